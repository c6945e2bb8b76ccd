"""Run a pure function on agent-supplied bytes in a child process with hard limits, so that a crafted file
(a decompression bomb, a stream of millions of operators) costs the harness a clear error, not its memory
or its time.

    look = confined(pdf_look, data, 1, None, error=PdfError, what="the PDF")

A worker process (`python -I`, started on first use, with the readers imported) forks one child per
call; the child limits its address space (RLIMIT_AS) and CPU time (RLIMIT_CPU), runs the function and
writes its answer, and is killed at a wall-clock timeout. A call costs a fork, not an interpreter start
(benchmarks/editor_latency.py). The worker never unpickles what a child wrote; the harness unpickles it
with only RESULT_CLASSES allowed, so a child taken over by a hostile file cannot run code in the harness. A
worker that stops answering is killed and replaced on the next call. Any failure comes back as `error`,
with a message saying what happened; the harness's process is untouched.
"""

from __future__ import annotations

import atexit
import io
import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import stateact
from stateact.kernel import settings

Result = TypeVar("Result")

IMPORT_ROOT = str(Path(stateact.__file__).resolve().parents[1])
"""The folder the worker imports stateact from: the same code as the harness's."""
WORKER = (
    f"import sys; sys.path.insert(0, {IMPORT_ROOT!r}); from stateact.kernel.confined import serve; serve()"
)
READERS = ("stateact.kernel.images", "stateact.kernel.tools.pdf_view")
"""Modules the worker imports once, so each child starts with them loaded."""
RESULT_CLASSES = {("stateact.kernel.images", "ModelImage"), ("stateact.kernel.tools.pdf_view", "PdfLook")}
"""The only classes a child's answer may contain (besides str, bytes, int, list, tuple, None): plain data
classes whose unpickling runs no code of theirs."""
MAX_CAUSES = 50
"""How far down an exception's causes the child looks for a MemoryError."""
WORKER_GRACE_S = 10.0
"""How much longer than the timeout the harness waits for the worker's answer before replacing it."""
LENGTH_BYTES = 8
LIMITS = struct.Struct("!IId")
"""A request starts with the child's limits (MB of address space, CPU seconds, wall seconds), read by
the worker; the pickled call after them is unpickled only by the child."""


def confined(function: Callable[..., Result], *args: Any, error: type[ValueError], what: str) -> Result:
    """`function(*args)` run in a limited child; `error` when it raises, or passes a limit.

    `function` must be importable by name (module level); its own `error`s come back as they are.
    `what` names the input in messages ("the PDF")."""
    timeout = settings.EDITOR_LOOK_TIMEOUT_S
    limits = LIMITS.pack(settings.EDITOR_LOOK_MEMORY_MB, settings.EDITOR_LOOK_CPU_S, timeout)
    answer = _worker.ask(limits + pickle.dumps((error, function, args)), timeout + WORKER_GRACE_S)
    kind, value = (
        _read_answer(answer) if answer is not None else ("failed", "the reading worker gave no answer")
    )
    if kind == "done":
        return cast(Result, value)
    if kind == "raised":
        raise error(value)
    if kind == "failed":
        raise error(f"{what} could not be read: {value}")
    raise error(
        f"{what} could not be read within {timeout:g} s / {settings.EDITOR_LOOK_MEMORY_MB} MB: {value}"
    )


class _Worker:
    """The harness's end of the worker: one request at a time; a worker that fails is replaced."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None

    def ask(self, request: bytes, wait_s: float) -> bytes | None:
        """The worker's answer to `request`, or None when it gave none within `wait_s` (it is replaced)."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._stop()
                self._process = subprocess.Popen(
                    [sys.executable, "-I", "-c", WORKER],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            assert self._process.stdin and self._process.stdout
            try:
                _send(self._process.stdin.fileno(), request)
                answer = _receive(self._process.stdout.fileno(), time.monotonic() + wait_s)
            except OSError:
                answer = None
            if answer is None:
                self._stop()
            return answer

    def _stop(self) -> None:
        """Kill the worker, if any, and close its pipes."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            for pipe in (self._process.stdin, self._process.stdout):
                if pipe:
                    pipe.close()
        self._process = None


_worker = _Worker()
atexit.register(_worker._stop)  # the harness leaves no worker behind


def serve() -> None:
    """The worker: for each request on stdin, fork a limited child and send its answer (or why it has
    none) to stdout; end when stdin closes."""
    for module in READERS:
        __import__(module)
    while (request := _receive(0, None)) is not None:
        memory_mb, cpu_s, timeout_s = LIMITS.unpack_from(request)
        reading, writing = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(reading)
            _child(writing, memory_mb, cpu_s, request[LIMITS.size :])
        os.close(writing)
        deadline = time.monotonic() + timeout_s
        answer = _receive(reading, deadline)
        os.close(reading)
        if answer is None:
            os.kill(child, signal.SIGKILL)
        _, status = os.waitpid(child, 0)
        if answer is None:
            answer = pickle.dumps(("limit", _why_none(status, time.monotonic() >= deadline)))
        _send(1, answer)


def _child(answer_fd: int, memory_mb: int, cpu_s: int, call: bytes) -> None:
    """In the forked child: limit itself, run the pickled call, write ("done", result), ("raised",
    message) for the function's own error, ("limit", why) or ("failed", what went wrong), and exit."""
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # nothing the reader prints reaches the worker's pipes
        os.dup2(quiet, fd)
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    error: type[ValueError] = ValueError
    try:
        error, function, args = pickle.loads(call)
        outcome: tuple[str, Any] = ("done", function(*args))
    except Exception as exc:  # noqa: BLE001 - a hostile file can make a parser raise anything
        outcome = _failure(exc, error)
    try:
        _send(answer_fd, pickle.dumps(outcome))
    finally:
        os._exit(0)


def _failure(exc: Exception, error: type[ValueError]) -> tuple[str, str]:
    """The outcome for an exception of the function: out of memory (also when a library wrapped the
    MemoryError in its own error), its own `error`, or something else."""
    if any(isinstance(cause, MemoryError) for cause in _causes(exc)):
        return "limit", "it needed more memory"
    if isinstance(exc, error):
        return "raised", str(exc)
    return "failed", f"{type(exc).__name__}: {exc}"


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception, the ones it was raised from or during, and exceptions carried in their arguments."""
    found: list[BaseException] = []
    pending: list[object] = [exc]
    while pending and len(found) < MAX_CAUSES:
        current = pending.pop()
        if isinstance(current, BaseException) and all(current is not seen for seen in found):
            found.append(current)
            pending += [current.__cause__, current.__context__, *current.args]
    return found


def _why_none(status: int, timed_out: bool) -> str:
    """Why a child gave no answer, from its wait status."""
    if timed_out:
        return "it took longer"
    if os.WIFSIGNALED(status):
        if os.WTERMSIG(status) == signal.SIGXCPU:
            return "it used more CPU time"
        return f"its reader was stopped by signal {os.WTERMSIG(status)}"
    return f"its reader stopped (exit code {os.WEXITSTATUS(status)})"


def _read_answer(answer: bytes) -> tuple[str, Any]:
    try:
        kind, value = _AnswerUnpickler(io.BytesIO(answer)).load()
        return str(kind), value
    except Exception as exc:  # noqa: BLE001 - whatever the child wrote, it is not an answer
        return "failed", f"its reader's answer could not be read ({type(exc).__name__})"


class _AnswerUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in RESULT_CLASSES:
            raise pickle.UnpicklingError(f"a confined child may not return {module}.{name}")
        return super().find_class(module, name)


def _send(fd: int, payload: bytes) -> None:
    """`payload` written to `fd` after its length."""
    view = memoryview(len(payload).to_bytes(LENGTH_BYTES, "big") + payload)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int, deadline: float | None) -> bytes | None:
    """One length-prefixed payload from `fd`; None at the end of the stream or past `deadline`."""
    header = _read_exactly(fd, LENGTH_BYTES, deadline)
    if header is None:
        return None
    return _read_exactly(fd, int.from_bytes(header, "big"), deadline)


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes | None:
    parts: list[bytes] = []
    while size:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and (left <= 0 or not select.select([fd], [], [], left)[0]):
            return None
        part = os.read(fd, min(size, 1 << 20))
        if not part:
            return None
        parts.append(part)
        size -= len(part)
    return b"".join(parts)
