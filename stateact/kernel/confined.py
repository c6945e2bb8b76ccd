"""Run a pure function on agent-supplied bytes in a child process with hard limits, so that a crafted file
(a decompression bomb, a stream of millions of operators) costs the harness a clear error, not its memory
or its time.

    text, picture = confined(pdf_look, data, 1, None, error=PdfError, what="the PDF")

Each call starts a fresh interpreter (`python -I -c`, about a tenth of a second: see
benchmarks/editor_latency.py) that limits its own address space (RLIMIT_AS) and CPU time (RLIMIT_CPU)
before it reads the request, and is killed at a wall-clock timeout. The request and the result travel as
pickles over stdin and stdout; the result is unpickled with only ModelImage allowed, so a child taken over
by a hostile file cannot run code in the harness. Any failure comes back as `error`, with a message saying
what happened; the harness's process is untouched.
"""

from __future__ import annotations

import io
import pickle
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import stateact
from stateact.kernel import settings

Result = TypeVar("Result")

IMPORT_ROOT = str(Path(stateact.__file__).resolve().parents[1])
"""The folder the child imports stateact from: the same code as the harness's."""
CHILD = (
    f"import sys; sys.path.insert(0, {IMPORT_ROOT!r}); from stateact.kernel.confined import serve; serve()"
)
RESULT_CLASSES = {("stateact.kernel.images", "ModelImage")}
"""The only classes a child's result may contain (besides str, bytes, int, tuple, None)."""
MAX_CAUSES = 50
"""How far down an exception's causes the child looks for a MemoryError."""


def confined(function: Callable[..., Result], *args: Any, error: type[ValueError], what: str) -> Result:
    """`function(*args)` run in a limited child; `error` when it raises, or passes a limit.

    `function` must be importable by name (module level); its own `error`s come back as they are.
    `what` names the input in messages ("the PDF")."""
    limits = (settings.EDITOR_LOOK_MEMORY_MB, settings.EDITOR_LOOK_CPU_S)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", CHILD],
            input=pickle.dumps((limits, error, function, args)),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=settings.EDITOR_LOOK_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        kind, value = "limit", "it took longer"
    else:
        kind, value = _answer(done) if done.returncode == 0 else ("limit", _death(done.returncode))
    if kind == "done":
        return value
    if kind == "raised":
        raise error(value)
    if kind == "failed":
        raise error(f"{what} could not be read: {value}")
    raise error(
        f"{what} could not be read within {settings.EDITOR_LOOK_TIMEOUT_S:g} s / "
        f"{settings.EDITOR_LOOK_MEMORY_MB} MB: {value}"
    )


def serve() -> None:
    """The child: limit itself, read the request from stdin, and write ("done", result), ("raised",
    message) for the function's own error, ("limit", why) or ("failed", what went wrong) to stdout."""
    out, sys.stdout = sys.stdout.buffer, sys.stderr  # nothing but the answer on stdout
    (memory_mb, cpu_s), error, function, args = pickle.load(sys.stdin.buffer)
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 1024 * 1024,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    try:
        outcome: tuple[str, Any] = ("done", function(*args))
    except Exception as exc:  # noqa: BLE001 - a hostile file can make a parser raise anything
        outcome = _failure(exc, error)
    pickle.dump(outcome, out)
    out.flush()


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


def _answer(done: subprocess.CompletedProcess[bytes]) -> tuple[str, Any]:
    try:
        return _ResultUnpickler(io.BytesIO(done.stdout)).load()
    except Exception as exc:  # noqa: BLE001 - whatever the child wrote, it is not an answer
        return "failed", f"its reader's answer could not be read ({type(exc).__name__})"


def _death(returncode: int) -> str:
    if returncode == -signal.SIGXCPU:
        return "it used more CPU time"
    if returncode == -signal.SIGKILL:
        return "it was killed (out of memory?)"
    return f"its reader stopped (exit code {returncode})"


class _ResultUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in RESULT_CLASSES:
            raise pickle.UnpicklingError(f"a confined child may not return {module}.{name}")
        return super().find_class(module, name)
