"""OSWorld's own metric functions, run in the user's OSWorld environment.

A metric that has no implementation here can still be scored when the user names an interpreter
that holds OSWorld's `desktop-env` (`--osworld-python PATH`, or `STATEACT_OSWORLD_PYTHON`): each call
runs `bridge_runner.py` in that interpreter with the metric's inputs as JSON (paths of the files the
getters fetched, command outputs, rules) and reads back the score. OSWorld's package is never
imported into this process, so its pinned dependencies stay out of ours.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stateact.evals import settings

PYTHON_ENV = "STATEACT_OSWORLD_PYTHON"
"""Names the interpreter of the user's OSWorld environment."""
RUNNER = Path(__file__).with_name("bridge_runner.py")
OPTION_HELP = (
    "Python of an environment with OSWorld's desktop-env: metrics not implemented here are scored by "
    f"OSWorld's own functions there (default: ${PYTHON_ENV})."
)


class BridgeError(RuntimeError):
    """The OSWorld environment could not be run or did not answer: not the agent's failure."""


class OSWorldMetricError(RuntimeError):
    """OSWorld's metric function raised: recorded with the part, which scores 0 (evals/osworld/scoring.py)."""


def configured_python() -> str | None:
    """The interpreter the user named for OSWorld's evaluator, or None."""
    return os.environ.get(PYTHON_ENV) or None


def use_python(python: str | None) -> None:
    """Name the OSWorld interpreter for this process and the workers it starts; None leaves it as is."""
    if python:
        resolved = Path(python).expanduser()
        if not resolved.is_file() or not os.access(resolved, os.X_OK):
            raise BridgeError(f"--osworld-python {python}: no such executable")
        os.environ[PYTHON_ENV] = str(resolved)


def _run(python: str, *args: str) -> None:
    try:
        done = subprocess.run(
            [python, str(RUNNER), *args],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=settings.OSWORLD_BRIDGE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BridgeError(f"OSWorld environment {python}: {exc}") from exc
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise BridgeError(f"OSWorld environment {python} failed (exit {done.returncode}): {' | '.join(tail)}")


@functools.cache
def bridged_names(python: str) -> frozenset[str]:
    """The metric functions OSWorld's package offers in `python` (modules that import there)."""
    with tempfile.TemporaryDirectory(prefix="stateact-osworld-") as folder:
        out = Path(folder) / "names.json"
        _run(python, "list", str(out))
        return frozenset(json.loads(out.read_text(encoding="utf-8")))


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except TypeError as exc:
        raise BridgeError(f"a metric input cannot be sent to OSWorld's environment: {exc}") from exc
    return value


def bridged_metric(python: str, name: str) -> Callable[..., float]:
    """A callable that scores with OSWorld's function `name` in `python`."""

    def call(*args: Any, **kwargs: Any) -> float:
        with tempfile.TemporaryDirectory(prefix="stateact-osworld-") as folder:
            request, answer = Path(folder) / "in.json", Path(folder) / "out.json"
            request.write_text(
                json.dumps({"name": name, "args": _jsonable(list(args)), "kwargs": _jsonable(kwargs)})
            )
            _run(python, "call", str(request), str(answer))
            reply = json.loads(answer.read_text(encoding="utf-8"))
        if "raises" in reply:
            raise OSWorldMetricError(f"OSWorld's {name} raised {reply['raises']}: {reply['message']}")
        return float(reply["score"])

    call.__name__ = name
    return call
