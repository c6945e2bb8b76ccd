"""Run a pure function on agent-supplied files in a child process with hard limits, so that a crafted file
(a decompression bomb, a stream of millions of operators) costs the harness a clear error, not its memory
or its time.

    look = confined(pdf_look, data, 1, None, error=PdfError, what="the PDF")
    score, notes = confined(run_metric, name, None, args, options, error=MetricFailed, what="its inputs",
                            caps=metric_caps(), preload=PRELOAD)

A worker process (`python -I`, started on first use, with the `preload` modules imported: the editor's
readers by default; one worker per set of modules) forks one child per call. The child limits its CPU
time (RLIMIT_CPU) and runs the function; the worker kills it at the wall-clock limit or as soon as its
resident memory passes the memory limit, and discards an answer given by a child whose peak resident
memory passed it (its `wait4` usage). No allocation is refused below the memory limit, so what a library
does when one fails (many catch the MemoryError and read on: a metric would score 0) never decides an
answer; an address-space limit of MEMORY_BACKSTOP times the memory limit stops a child growing faster
than the worker looks. The worker is a subreaper: whatever a child started is killed when the child is
done. A call costs a fork, not an interpreter start (benchmarks/editor_latency.py,
benchmarks/confined_metrics.py). The worker never unpickles what a child wrote; the harness unpickles it
with only RESULT_CLASSES allowed, so a child taken over by a hostile file cannot run code in the harness. A
worker that stops answering is killed and replaced on the next call. Any failure comes back as `error`,
with a message saying what happened; the harness's process is untouched.
"""

from __future__ import annotations

import atexit
import ctypes
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import stateact
from stateact.kernel import settings

Result = TypeVar("Result")

IMPORT_ROOT = str(Path(stateact.__file__).resolve().parents[1])
"""The folder the worker imports stateact from: the same code as the harness's."""
WORKER = (
    f"import sys; sys.path.insert(0, {IMPORT_ROOT!r}); "
    "from stateact.kernel.confined import serve; serve(sys.argv[1:])"
)
READERS = ("stateact.kernel.images", "stateact.kernel.tools.pdf_view")
"""The editor's worker's modules, imported once, so each child starts with them loaded."""
RESULT_CLASSES = {("stateact.kernel.images", "ModelImage"), ("stateact.kernel.tools.pdf_view", "PdfLook")}
"""The only classes a child's answer may contain (besides built-in values: str, bytes, numbers, lists,
dicts...): plain data classes whose unpickling runs no code of theirs."""
MAX_CAUSES = 50
"""How far down an exception's causes the child looks for a MemoryError."""
WORKER_GRACE_S = 10.0
"""How much longer than the timeout the harness waits for the worker's answer before replacing it."""
MEMORY_POLL_S = 0.01
"""How often the worker reads a running child's resident memory."""
MEMORY_BACKSTOP = 2
"""A child's address space (RLIMIT_AS) is this many times its memory limit."""
PR_SET_CHILD_SUBREAPER = 36
"""prctl(2): orphans in the worker's subtree become its children, so it can end them."""
LENGTH_BYTES = 8
LIMITS = struct.Struct("!dII")
"""A request starts with the child's limits (wall seconds, CPU seconds, MB of memory), read by the
worker; the pickled call after them is unpickled only by the child."""


@dataclass(frozen=True)
class Caps:
    """The limits of one confined call."""

    wall_s: float
    cpu_s: int
    memory_mb: int


def editor_caps() -> Caps:
    """The limits of the editor's reads of images and PDFs (settings.EDITOR_LOOK_*)."""
    return Caps(settings.EDITOR_LOOK_TIMEOUT_S, settings.EDITOR_LOOK_CPU_S, settings.EDITOR_LOOK_MEMORY_MB)


def confined(
    function: Callable[..., Result],
    *args: Any,
    error: type[ValueError],
    what: str,
    caps: Caps | None = None,
    preload: tuple[str, ...] = READERS,
) -> Result:
    """`function(*args)` run in a limited child; `error` when it raises, or passes a limit.

    `function` must be importable by name (module level) and is best found in `preload`'s modules; its
    own `error`s come back as they are. `what` names the input in messages ("the PDF"). `caps`: the
    editor's when None."""
    caps = caps or editor_caps()
    limits = LIMITS.pack(caps.wall_s, caps.cpu_s, caps.memory_mb)
    answer = _worker_for(preload).ask(
        limits + pickle.dumps((error, function, args)), caps.wall_s + WORKER_GRACE_S
    )
    kind, value = (
        _read_answer(answer) if answer is not None else ("failed", "the reading worker gave no answer")
    )
    if kind == "done":
        return cast(Result, value)
    if kind == "raised":
        raise error(value)
    if kind == "failed":
        raise error(f"{what} could not be read: {value}")
    raise error(f"{what} could not be read within {caps.wall_s:g} s / {caps.memory_mb} MB: {value}")


class _Worker:
    """The harness's end of a worker: one request at a time; a worker that fails is replaced."""

    def __init__(self, preload: tuple[str, ...]) -> None:
        self._preload = preload
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None

    def ask(self, request: bytes, wait_s: float) -> bytes | None:
        """The worker's answer to `request`, or None when it gave none within `wait_s` (it is replaced)."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._stop()
                self._process = subprocess.Popen(
                    [sys.executable, "-I", "-c", WORKER, *self._preload],
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


_workers: dict[tuple[str, ...], _Worker] = {}
_workers_lock = threading.Lock()


def _worker_for(preload: tuple[str, ...]) -> _Worker:
    with _workers_lock:
        return _workers.setdefault(preload, _Worker(preload))


@atexit.register
def _stop_workers() -> None:
    """The harness leaves no worker behind."""
    for worker in list(_workers.values()):
        worker._stop()


def serve(preload: list[str]) -> None:
    """The worker: import `preload`; for each request on stdin, fork a limited child and send its answer
    (or why it has none) to stdout; end when stdin closes."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for module in preload:
        __import__(module)
    while (request := _receive(0, None)) is not None:
        _send(1, _run_child(Caps(*LIMITS.unpack_from(request)), request[LIMITS.size :]))


def _run_child(caps: Caps, call: bytes) -> bytes:
    """The pickled answer of a child that runs `call` within `caps`, or why it has none; what it started
    is ended."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(reading)
        _child(writing, caps, call)
    os.close(writing)
    deadline = time.monotonic() + caps.wall_s
    limit_kb = caps.memory_mb << 10
    passed = False

    def over_memory() -> bool:
        nonlocal passed
        passed = _resident_kb(child) > limit_kb
        return passed

    answer = _receive(reading, deadline, over_memory)
    os.close(reading)
    if answer is None:
        os.kill(child, signal.SIGKILL)
    _, status, usage = os.wait4(child, 0)
    _end_orphans()
    if passed or usage.ru_maxrss > limit_kb:
        return pickle.dumps(("limit", "it needed more memory"))
    if answer is None:
        return pickle.dumps(("limit", _why_none(status, time.monotonic() >= deadline)))
    return answer


def _resident_kb(pid: int) -> int:
    """The resident memory of process `pid` in KB (0 once it has ended)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize() >> 10
    except (OSError, IndexError, ValueError):
        return 0


def _end_orphans() -> None:
    """Kill and reap what the children started and left (the worker's children now): until none is left,
    since each one killed hands its own children to the worker."""
    while orphans := [
        int(pid)
        for task in Path(f"/proc/{os.getpid()}/task").iterdir()
        for pid in _read_or_empty(task / "children").split()
    ]:
        for pid in orphans:
            os.kill(pid, signal.SIGKILL)
        for pid in orphans:
            os.waitpid(pid, 0)


def _read_or_empty(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:  # a thread that ended meanwhile
        return ""


def _child(answer_fd: int, caps: Caps, call: bytes) -> None:
    """In the forked child: limit itself, run the pickled call, write ("done", result), ("raised",
    message) for the function's own error, ("limit", why) or ("failed", what went wrong), and exit."""
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # nothing the reader prints reaches the worker's pipes
        os.dup2(quiet, fd)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BACKSTOP * caps.memory_mb << 20,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (caps.cpu_s, caps.cpu_s + 1))
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


def _receive(fd: int, deadline: float | None, stop: Callable[[], bool] | None = None) -> bytes | None:
    """One length-prefixed payload from `fd`; None at the end of the stream, past `deadline`, or once
    `stop()` (asked every MEMORY_POLL_S while waiting) is true."""
    header = _read_exactly(fd, LENGTH_BYTES, deadline, stop)
    if header is None:
        return None
    return _read_exactly(fd, int.from_bytes(header, "big"), deadline, stop)


def _read_exactly(
    fd: int, size: int, deadline: float | None, stop: Callable[[], bool] | None
) -> bytes | None:
    parts: list[bytes] = []
    while size:
        if deadline is not None and not _readable(fd, deadline, stop):
            return None
        part = os.read(fd, min(size, 1 << 20))
        if not part:
            return None
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _readable(fd: int, deadline: float, stop: Callable[[], bool] | None) -> bool:
    """Whether `fd` can be read before `deadline`, and before `stop()` is true."""
    while (left := deadline - time.monotonic()) > 0 and not (stop and stop()):
        if select.select([fd], [], [], min(left, MEMORY_POLL_S) if stop else left)[0]:
            return True
    return False
