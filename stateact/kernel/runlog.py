"""The run folder and its append-only event log.

Layout of `runs/<run_id>/`: `config.json`, `events.jsonl` (one JSON object a
line, flushed per event; the events are typed in `stateact.kernel.events`), `result.json`,
`images/` and `outputs/` for files the events point to. A torn last line (the
process died mid-write) is cut before appending.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from stateact.kernel.events import Event, LoopStart, MessageEvent, read_events
from stateact.kernel.messages import ImageBlock, Message
from stateact.kernel.roles import is_numbered_scope, numbered_scope, role_of_scope

EventListener = Callable[[Event], None]
E = TypeVar("E", bound=Event)
IMAGE_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


class RunLog:
    """Writes events to `events.jsonl` and files beside it."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.images_dir = self.run_dir / "images"
        self.outputs_dir = self.run_dir / "outputs"
        self.events_path = self.run_dir / "events.jsonl"
        existing = list(read_events(self.events_path)) if self.events_path.exists() else []
        self._repair_torn_tail()
        self._seq = itertools.count(existing[-1].seq + 1 if existing else 1)
        self._scopes = Counter(
            role_of_scope(e.scope)
            for e in existing
            if isinstance(e, LoopStart) and is_numbered_scope(e.scope)
        )
        self._file = self.events_path.open("a", encoding="utf-8")
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
            event = event.model_copy(update={"seq": next(self._seq), "t": round(time.time(), 3)})
            record = event.model_dump(mode="json")
            self._file.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
        for listener in self._listeners:
            listener(event)
        return event

    def save_image(self, png: bytes, stem: str = "image", media_type: str = "image/png") -> Path:
        """Write an image under `images/`, named with a running number and its type's extension."""
        self.images_dir.mkdir(exist_ok=True)
        extension = IMAGE_EXTENSIONS.get(media_type, "png")
        path = self.images_dir / f"{next(self._file_counter):05d}_{stem}.{extension}"
        path.write_bytes(png)
        return path

    def save_output(self, text: str, stem: str = "output") -> Path:
        self.outputs_dir.mkdir(exist_ok=True)
        path = self.outputs_dir / f"{next(self._file_counter):05d}_{stem}.txt"
        path.write_text(text, encoding="utf-8", errors="replace")
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
        tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, path)
        return path

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def load_message(logged: Message, run_dir: Path) -> Message:
    """A copy of a logged message with its images read back from the run folder."""
    message = logged.model_copy(deep=True)
    for image in message.images():
        if not image.data and image.path:
            image.data = ImageBlock.from_bytes((Path(run_dir) / image.path).read_bytes()).data
    return message


__all__ = ["RunLog", "load_message"]
