"""`check_python_file_by_test_suite`: the score a task's own Python test function gives the
agent's files, run in a child Python process in a temporary copy of the scoring folder."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stateact.evals import settings

_CHILD = Path(__file__).with_name("python_tests_child.py")


def check_python_file_by_test_suite(result: Any, expected: str | None, **options: Any) -> float:
    """Load the test file `expected` as a module, with its folder (where the agent's files were
    fetched) as the working folder and first import path, and call its `test_function_name`
    (default `test`): a bool scores 1 or 0, a number is clamped to [0, 1], another value scores
    its truth. A missing test file, a module that does not load, a missing function or one that
    raises scores 0.

    As in OSWorld the code runs on the scoring host, not in the sandbox, but here in a child
    process (isolated mode: PYTHONPATH is ignored) in a temporary copy of the test file's folder,
    plus the `result` files kept elsewhere, and limited to settings.TEST_SUITE_TIMEOUT_S (a test
    that runs longer scores 0)."""
    if not expected or not Path(expected).is_file():
        return 0.0
    test_file = Path(expected).resolve()
    with tempfile.TemporaryDirectory(prefix="stateact-test-suite-") as root:
        work = Path(root) / "work"
        shutil.copytree(test_file.parent, work, symlinks=True)
        for path in _result_files(result):
            if path.parent != test_file.parent:
                shutil.copy2(path, work / path.name)
        score_file = Path(root) / "score.json"
        argv = [sys.executable, "-I", str(_CHILD), test_file.name, options.get("test_function_name", "test")]
        _run(argv + [str(score_file)], work)
        try:
            return float(json.loads(score_file.read_text()))
        except (OSError, ValueError):
            return 0.0


def _result_files(result: Any) -> list[Path]:
    paths = result if isinstance(result, list) else [result]
    return [Path(p).resolve() for p in paths if isinstance(p, str) and Path(p).is_file()]


def _run(argv: list[str], cwd: Path) -> None:
    """Run `argv` in a session of its own; past the timeout, end the whole session."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=settings.TEST_SUITE_TIMEOUT_S)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # also whatever the test left running
    proc.wait()


METRICS: dict[str, Callable[..., float]] = {
    "check_python_file_by_test_suite": check_python_file_by_test_suite
}
