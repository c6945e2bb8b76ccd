"""The run folder and its append-only event log.

Layout of `runs/<run_id>/`: `config.json`, `events.jsonl` (one JSON object a
line, flushed per event; the events are typed in `stateact.kernel.events`), `result.json`,
`images/` and `outputs/` for files the events point to. A torn last line (the
process died mid-write) is cut before appending.

A full disk (or quota) under the run folder raises `RunFolderFull`, which ends the run: an event is
appended whole or not at all, so the log stays valid JSONL and the run can be resumed once space is freed.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from stateact.kernel.events import Event, LoopStart, MessageEvent, read_events
from stateact.kernel.messages import ImageBlock, Message
from stateact.kernel.roles import is_numbered_scope, numbered_scope, role_of_scope

EventListener = Callable[[Event], None]
RunWatcher = Callable[["RunLog"], EventListener]
"""Given a run's log (before its first event of this start), the listener of its events; the listener may
emit events of its own into the log."""
E = TypeVar("E", bound=Event)
IMAGE_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


class RunFolderFull(Exception):
    """The disk (or quota) of the run folder is full: the run cannot record what it does, so it ends.
    Not an OSError, so that no tool takes it for a failure of its own."""


@contextlib.contextmanager
def _full_disk_ends_run(run_dir: Path) -> Iterator[None]:
    """Within the block, a full disk raises RunFolderFull naming the run folder."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in DISK_FULL:
            raise
        raise RunFolderFull(
            f"the disk of the runs folder is full ({run_dir}: {exc.strerror}); free space, then "
            f"`stateact resume {run_dir}` continues the run"
        ) from None


class RunLog:
    """Writes events to `events.jsonl` and files beside it."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        with _full_disk_ends_run(self.run_dir):
            self.run_dir.mkdir(parents=True, exist_ok=True)
        self.images_dir = self.run_dir / "images"
        self.outputs_dir = self.run_dir / "outputs"
        self.events_path = self.run_dir / "events.jsonl"
        existing = list(read_events(self.events_path)) if self.events_path.exists() else []
        self._repair_torn_tail()
        self._next_seq = existing[-1].seq + 1 if existing else 1
        self._scopes = Counter(
            role_of_scope(e.scope)
            for e in existing
            if isinstance(e, LoopStart) and is_numbered_scope(e.scope)
        )
        self._fd = os.open(self.events_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._lock = threading.Lock()
        self._listeners: list[EventListener] = []
        self._file_counter = itertools.count(self._count_files() + 1)

    def _repair_torn_tail(self) -> None:
        """Cut a partial last line left by a crash so appends start on a fresh line."""
        if not self.events_path.exists():
            return
        data = self.events_path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with self.events_path.open("r+b") as handle:
                handle.truncate(cut)

    def _count_files(self) -> int:
        return sum(len(list(d.iterdir())) for d in (self.images_dir, self.outputs_dir) if d.exists())

    def next_scope(self, role: str) -> str:
        """A fresh scope name for a subagent loop, like `gui#3`, unique across resumes of the run."""
        with self._lock:
            self._scopes[role] += 1
            return numbered_scope(role, self._scopes[role])

    def subscribe(self, listener: EventListener) -> None:
        self._listeners.append(listener)

    def emit(self, event: E) -> E:
        """Append one event, numbered and timed, and flush it to the OS before returning it."""
        with self._lock:
            event = event.model_copy(update={"seq": self._next_seq, "t": round(time.time(), 3)})
            record = event.model_dump(mode="json")
            self._append((json.dumps(record, ensure_ascii=False, default=str) + "\n").encode())
            self._next_seq += 1  # only once the event is written: the numbers have no gap
        for listener in self._listeners:
            listener(event)
        return event

    def _append(self, line: bytes) -> None:
        """Write `line` at the end of the log and flush it to the disk; on a full disk, none of it stays."""
        start = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            with _full_disk_ends_run(self.run_dir):
                rest = memoryview(line)
                while rest:
                    rest = rest[os.write(self._fd, rest) :]
                os.fsync(self._fd)
        except RunFolderFull:
            os.ftruncate(self._fd, start)
            raise

    def save_image(self, png: bytes, stem: str = "image", media_type: str = "image/png") -> Path:
        """Write an image under `images/`, named with a running number and its type's extension."""
        extension = IMAGE_EXTENSIONS.get(media_type, "png")
        return self._save(self.images_dir, f"{stem}.{extension}", png)

    def save_output(self, text: str, stem: str = "output") -> Path:
        return self._save(self.outputs_dir, f"{stem}.txt", text.encode("utf-8", errors="replace"))

    def _save(self, folder: Path, name: str, data: bytes) -> Path:
        """Write `data` under `folder`, its name prefixed with a running number; a file the disk had no
        room for is removed."""
        path = folder / f"{next(self._file_counter):05d}_{name}"
        with _full_disk_ends_run(self.run_dir), _removed_on_error(path):
            folder.mkdir(exist_ok=True)
            path.write_bytes(data)
        return path

    def message_event(self, message: Message, scope: str) -> MessageEvent:
        """A message's event, with image bytes moved to files under `images/`."""
        for image in message.images():
            if image.path is None:
                saved = self.save_image(image.to_bytes(), message.role, image.media_type)
                image.path = str(saved.relative_to(self.run_dir))
        logged = message.model_copy(deep=True)
        for image in logged.images():
            image.data = ""
        return MessageEvent(scope=scope, message=logged)

    def write_json(self, name: str, payload: Any) -> Path:
        """Write a JSON file in the run folder atomically."""
        path = self.run_dir / name
        tmp = path.with_suffix(path.suffix + ".tmp")
        with _full_disk_ends_run(self.run_dir), _removed_on_error(tmp):
            tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, path)
        return path

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


@contextlib.contextmanager
def _removed_on_error(path: Path) -> Iterator[None]:
    """Within the block, an error removes `path` (a file written in part)."""
    try:
        yield
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def load_message(logged: Message, run_dir: Path) -> Message:
    """A copy of a logged message with its images read back from the run folder."""
    message = logged.model_copy(deep=True)
    for image in message.images():
        if not image.data and image.path:
            image.data = ImageBlock.from_bytes((Path(run_dir) / image.path).read_bytes()).data
    return message


__all__ = ["EventListener", "RunLog", "RunWatcher", "load_message"]
