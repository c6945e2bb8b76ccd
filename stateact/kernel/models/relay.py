"""The relay provider (`relay:DIR`): a person or another agent plays a model role through files.

For each request the provider writes, in DIR, `NNNN-SCOPE.request.json` (the whole request) and
`NNNN-SCOPE.request.txt` (a readable rendering, images saved beside it as PNG files), names the
request in `DIR/PENDING`, and waits for `NNNN-SCOPE.reply.json` or `NNNN-SCOPE.reply.txt` (forms in
`stateact.kernel.models.relay_reply`). Numbers run across every scope and role using the folder. A reply
that cannot be parsed is renamed `NNNN-SCOPE.reply-rejected-K.EXT`, the problem is written to
`NNNN-SCOPE.reply-error.txt`, and the provider keeps waiting for a corrected reply. Usage is the
offline token estimate; the cost is $0.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from stateact.kernel import settings
from stateact.kernel.messages import TextBlock, ToolSpec, ToolUseBlock
from stateact.kernel.models.base import ModelProvider, ModelRequest, ModelResponse, ProviderError
from stateact.kernel.models.relay_render import ScopeView, render_request
from stateact.kernel.models.relay_reply import ReplyError, parse_reply
from stateact.kernel.models.scripted import offline_response, prompt_tokens
from stateact.sandbox.processes import start_time

PENDING = "PENDING"
"""The file naming the request waiting for a reply (its stem, `NNNN-SCOPE`) and, on its second line, the
process that waits for it (`PID START_TIME`)."""
REPLY_KINDS = ("json", "txt")
_NUMBERED = re.compile(r"^(\d+)-")


def reply_path(directory: Path, stem: str, kind: str) -> Path:
    return directory / f"{stem}.reply.{kind}"


def error_path(directory: Path, stem: str) -> Path:
    return directory / f"{stem}.reply-error.txt"


def rejected_count(directory: Path, stem: str) -> int:
    """How many replies to `stem` were rejected so far."""
    return sum(1 for _ in directory.glob(f"{stem}.reply-rejected-*"))


def pending_stem(directory: Path) -> str | None:
    """The stem of the request waiting for a reply, if any: a request whose run is gone (killed, crashed)
    waits for nothing, and is not named."""
    try:
        stem, _, owner = (directory / PENDING).read_text(encoding="utf-8").strip().partition("\n")
    except OSError:
        return None
    pid, _, started = owner.strip().partition(" ")
    if owner and not (pid.isdigit() and start_time(int(pid)) == started):
        return None
    return stem.strip() or None


def _pending_text(stem: str) -> str:
    """What PENDING holds while this process waits for the reply to `stem`."""
    return f"{stem}\n{os.getpid()} {start_time(os.getpid())}\n"


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write a file whole: a reader polling for it never sees it half written."""
    partial = path.with_name(f".{path.name}.partial")
    if isinstance(data, str):
        partial.write_text(data, encoding="utf-8")
    else:
        partial.write_bytes(data)
    os.replace(partial, path)


@dataclass
class _Folder:
    """What every relay provider on one folder shares: one request at a time, the scopes' last views."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    views: dict[str, ScopeView] = field(default_factory=dict)


_folders: dict[Path, _Folder] = {}
_folders_lock = threading.Lock()


def _folder(directory: Path) -> _Folder:
    with _folders_lock:
        return _folders.setdefault(directory, _Folder())


class RelayProvider(ModelProvider):
    """Hands each request to whoever answers in `directory`, and returns their reply."""

    def __init__(
        self,
        directory: Path,
        role: str = "main",
        spec: str | None = None,
        poll_s: float | None = None,
        timeout_s: float | None = None,
    ) -> None:
        self.directory = Path(directory).resolve()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.role = role
        self.name = "relay"
        self.spec = spec or f"relay:{directory}"
        self.poll_s = settings.RELAY_POLL_S if poll_s is None else poll_s
        self.timeout_s = settings.RELAY_TIMEOUT_S if timeout_s is None else timeout_s
        self._folder = _folder(self.directory)

    def complete(self, request: ModelRequest) -> ModelResponse:
        prompt = prompt_tokens(request)
        scope = request.scope or self.role
        with self._folder.lock:
            number = self._next_number()
            stem = f"{number:04d}-{re.sub(r'[^A-Za-z0-9_.-]', '-', scope)}"
            rendering = render_request(request, stem, self._folder.views.get(scope))
            self._folder.views[scope] = rendering.view
            for name, png in rendering.images.items():
                write_atomic(self.directory / name, png)
            write_atomic(self.directory / f"{stem}.request.json", self._request_json(request, stem, scope))
            write_atomic(self.directory / f"{stem}.request.txt", rendering.text)
            write_atomic(self.directory / PENDING, _pending_text(stem))
            try:
                content = self._wait(stem, request.tools, f"toolu_r{number:04d}")
            finally:
                if pending_stem(self.directory) == stem:
                    (self.directory / PENDING).unlink(missing_ok=True)
        return offline_response(content, prompt, self.name)

    def _next_number(self) -> int:
        numbers = (int(m.group(1)) for p in self.directory.iterdir() if (m := _NUMBERED.match(p.name)))
        return max(numbers, default=0) + 1

    def _request_json(self, request: ModelRequest, stem: str, scope: str) -> str:
        data = {
            "request": stem,
            "scope": scope,
            "role": self.role,
            "system": request.system,
            "tools": [tool.model_dump() for tool in request.tools],
            "messages": [message.model_dump() for message in request.messages],
            "injected_blocks": request.injected_blocks,
            "max_tokens": request.max_tokens,
        }
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    def _wait(self, stem: str, tools: list[ToolSpec], id_prefix: str) -> list[TextBlock | ToolUseBlock]:
        deadline = None if self.timeout_s is None else time.monotonic() + self.timeout_s
        while True:
            for kind in REPLY_KINDS:
                content = self._take(reply_path(self.directory, stem, kind), kind, tools, id_prefix)
                if content is not None:
                    return content
            if deadline is not None and time.monotonic() >= deadline:
                raise ProviderError(
                    f"relay: no reply to {stem} in {self.directory} within {self.timeout_s:g}s "
                    f"(expected {stem}.reply.txt or {stem}.reply.json)"
                )
            time.sleep(self.poll_s)

    def _take(
        self, path: Path, kind: str, tools: list[ToolSpec], id_prefix: str
    ) -> list[TextBlock | ToolUseBlock] | None:
        """The content of a reply file; None while there is none, or after rejecting a bad one."""
        raw = _read(path)
        if raw is None:
            return None
        try:
            return parse_reply(_decode(raw), kind, tools, id_prefix)
        except ReplyError as exc:
            problem = str(exc)
        time.sleep(self.poll_s)
        if _read(path) != raw:
            return None  # still being written: look again
        stem = path.name.removesuffix(f".reply.{kind}")
        aside = path.with_name(f"{stem}.reply-rejected-{rejected_count(self.directory, stem) + 1}.{kind}")
        write_atomic(  # before the reply moves aside: a watcher sees the rejection with its reason
            error_path(self.directory, stem),
            f"{path.name} was not accepted (kept as {aside.name}):\n  {problem}\n"
            f"Write a corrected {stem}.reply.txt or {stem}.reply.json.\n",
        )
        os.replace(path, aside)
        return None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReplyError(f"the reply is not UTF-8 text: {exc}") from None
