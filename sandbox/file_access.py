"""SandboxFiles: the harness reads and writes a sandbox's files through a helper that runs inside it.

A path the agent names (the editor's, a plan item's evidence, the gate's, a setup step's, a download's)
must reach only what the agent could reach itself. So the harness never opens such a path on the host:
a helper process started in the sandbox (the toolkit's `_file_helper.py`), with the sandbox's namespaces, user and
limits, opens it. Symlinks and `..` resolve as they do for the sandbox's own processes; a read-only
system folder stays read-only; a file the sandbox user cannot read stays unreadable; a FIFO, socket or
device is refused. Each operation is bounded by `FILE_OP_TIMEOUT_S`: a helper that does not answer in
time is killed (the next operation starts another), and so is a helper the agent killed or stopped.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from stateact.sandbox.base import SandboxError
from stateact.sandbox.settings import FILE_OP_TIMEOUT_S, FILE_READ_CAP_BYTES

HELPER_SCRIPT = "_file_helper.py"
"""The helper's program, in the office toolkit's folder (sandbox/toolkit/bin), which every sandbox sees."""
MISSING = "missing"


class NotRegularFile(SandboxError):
    """The path names a FIFO, socket or device: the harness reads and writes regular files only."""


class SandboxFiles:
    """File operations inside one sandbox, through a helper `start` launches there (one at a time)."""

    def __init__(self, start: Callable[[list[str]], subprocess.Popen], python: str, toolkit_dir: str) -> None:
        self._start = start
        self._argv = [python, "-I", "-S", f"{toolkit_dir}/{HELPER_SCRIPT}"]
        """Isolated mode and no site packages: the helper needs the standard library only."""
        self._helper: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def read(self, path: str) -> bytes:
        """The bytes of the regular file `path` (an absolute sandbox path)."""
        return self._call({"op": "read", "path": path, "limit": FILE_READ_CAP_BYTES})[1]

    def write(self, path: str, data: bytes) -> None:
        """Write `data` to the regular file `path`, creating it and its missing parent folders."""
        self._call({"op": "write", "path": path, "parents": True}, data)

    def kind(self, path: str) -> str:
        """`file`, `directory`, `missing`, or what else `path` is (`a FIFO (named pipe)`, ...), after
        symlinks."""
        return self._call({"op": "kind", "path": path})[0]["kind"]

    def close(self) -> None:
        with self._lock:
            self._stop()

    # -- the exchange ------------------------------------------------------------------------
    def _call(self, request: dict[str, Any], data: bytes = b"") -> tuple[dict[str, Any], bytes]:
        with self._lock:
            for attempt in (1, 2):
                helper = self._running_helper()
                try:
                    header, body = _exchange(helper, {**request, "size": len(data)}, data)
                    break
                except HelperGone:
                    self._stop()
                    if attempt == 2:
                        raise SandboxError(
                            f"the sandbox's file helper ended while handling {request['path']}"
                        ) from None
                except TimeoutError:
                    self._stop()
                    raise SandboxError(
                        f"{request['op']} of {request['path']} did not finish within {FILE_OP_TIMEOUT_S:.0f}s"
                    ) from None
        if header["ok"]:
            return header, body
        if header.get("refused"):
            raise NotRegularFile(header["message"])
        raise OSError(header["errno"], header["message"], request["path"])

    def _running_helper(self) -> subprocess.Popen:
        if self._helper is None or self._helper.poll() is not None:
            self._stop()
            self._helper = self._start(self._argv)
        return self._helper

    def _stop(self) -> None:
        helper, self._helper = self._helper, None
        if helper is None:
            return
        if helper.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(helper.pid, signal.SIGKILL)
        for stream in (helper.stdin, helper.stdout, helper.stderr):
            if stream is not None:
                stream.close()
        helper.wait()


class HelperGone(Exception):
    """The helper's pipes closed before its answer was complete."""


def _exchange(helper: subprocess.Popen, request: dict[str, Any], data: bytes) -> tuple[dict[str, Any], bytes]:
    """Send one request to the helper and read its answer, within `FILE_OP_TIMEOUT_S`."""
    deadline = time.monotonic() + FILE_OP_TIMEOUT_S
    outgoing = memoryview(json.dumps(request).encode() + b"\n" + data)
    reader, writer = helper.stdout.fileno(), helper.stdin.fileno()
    os.set_blocking(writer, False)
    received = bytearray()
    header: dict[str, Any] | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(reader, selectors.EVENT_READ)
        if outgoing:
            selector.register(writer, selectors.EVENT_WRITE)
        while header is None or len(received) < header["size"]:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            for key, _ in selector.select(left):
                if key.fd == writer:
                    try:
                        outgoing = outgoing[os.write(writer, outgoing) :]
                    except BrokenPipeError:
                        raise HelperGone from None
                    if not outgoing:
                        selector.unregister(writer)
                    continue
                chunk = os.read(reader, 1 << 20)
                if not chunk:
                    raise HelperGone
                received += chunk
                if header is None and b"\n" in received:
                    line, _, rest = bytes(received).partition(b"\n")
                    header, received = _header(line), bytearray(rest)
    return header, bytes(received)


def _header(line: bytes) -> dict[str, Any]:
    """The answer's JSON line; anything else means the helper is not the harness's any more."""
    try:
        header = json.loads(line)
    except ValueError:
        raise HelperGone from None
    if not isinstance(header, dict) or not isinstance(header.get("size"), int):
        raise HelperGone
    return header
