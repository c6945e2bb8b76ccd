"""The sandbox's own Python: a venv on the system interpreter with what a task VM's Python offers.

Isolated sandboxes see it read-only at `RUNTIME_MOUNT` first on PATH, so the toolkit, the gate's
probes and GUI actions never run on the harness's interpreter or its libraries.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from stateact.sandbox.base import SandboxError
from stateact.sandbox.settings import RUNTIME_BUILD_TIMEOUT_S, RUNTIME_DIR, RUNTIME_PACKAGES, SYSTEM_PYTHON

READY_MARK = ".stateact-ready"
"""Written last by `build_runtime`: a half-built venv is never used."""


def runtime_ready(root: Path = RUNTIME_DIR) -> bool:
    """Whether the sandbox Python venv at `root` is complete."""
    return (root / READY_MARK).exists() and (root / "bin" / "python3").exists()


def require_runtime(root: Path = RUNTIME_DIR) -> Path:
    """The venv folder; a clear error says how to build it when it is missing."""
    if not runtime_ready(root):
        raise SandboxError(
            f"the sandbox Python ({root}) is not built; run `stateact doctor --fix` or scripts/setup.sh "
            "(or use --isolation none)"
        )
    return root


def build_runtime(root: Path = RUNTIME_DIR) -> Path:
    """Create the venv at `root` from the system python3 and pip-install `RUNTIME_PACKAGES` (idempotent)."""
    if runtime_ready(root):
        return root
    if not Path(SYSTEM_PYTHON).exists():
        raise SandboxError(f"{SYSTEM_PYTHON} is missing; install the python3 and python3-venv packages")
    shutil.rmtree(root, ignore_errors=True)
    steps = (
        [SYSTEM_PYTHON, "-m", "venv", str(root)],
        [
            str(root / "bin" / "python3"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            *RUNTIME_PACKAGES,
        ],
    )
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=RUNTIME_BUILD_TIMEOUT_S)
        if done.returncode != 0:
            raise SandboxError(
                f"building the sandbox Python failed at {' '.join(step[:4])}: {done.stderr[-800:]}"
            )
    (root / READY_MARK).write_text("ok\n")
    return root
