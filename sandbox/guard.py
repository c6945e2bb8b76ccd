"""A sandbox's guard: a small host process that ends every process of the sandbox when its harness dies.

The harness holds the write end of a pipe whose read end is the guard's input. However the harness ends
(`kill -9` included), the kernel closes that end and the guard reads end-of-file; it then stops and kills
every process carrying the sandbox's tag (sandbox/processes.py): the running command line, background
jobs, launched programs, and the sandbox's helpers (Xvfb, the window manager, pasta, the session bus).
This holds with `--isolation none` too, where no PID namespace ends with the harness. A sandbox closed
normally has ended its processes already and releases its guard, which then finds none.

    guard = Guard(tag)
    ...
    guard.release()
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from stateact.sandbox.processes import proc_files
from stateact.sandbox.settings import GUARD_EXIT_TIMEOUT_S, SYSTEM_PYTHON

CHECKOUT = Path(__file__).resolve().parents[1]

GUARD_ENTRY = "kill_tagged_at_once"
"""What a guard's command line calls: with the tag after it, how `guarded_tags` knows a guard."""


# Run with `python -I` (no user site, no current folder): PYTHONPATH names the checkout only. The guard's
# environment carries no tag, so it never finds itself.
_GUARD_CODE = (
    "import os, sys; sys.path.insert(0, os.environ.pop('PYTHONPATH'));"
    f"from sandbox.processes import {GUARD_ENTRY};"
    f"sys.stdin.buffer.read(); {GUARD_ENTRY}(sys.argv[1])"
)


def guarded_tags() -> set[str]:
    """The tags of the sandboxes whose guard runs: their harness is alive (or the guard is ending the
    sandbox right now). Found by command line, so this holds whatever registry (TMPDIR) the asker uses."""
    return {
        argv[-2].decode(errors="replace")
        for _, argv in proc_files("cmdline")
        if len(argv) > 2 and GUARD_ENTRY.encode() in b" ".join(argv[:-2])
    }


def guard_python() -> str:
    """The system's Python when there is one (the guard needs only the standard library, and the harness's
    own interpreter may lie where its user cannot run it again, e.g. under /root), else the harness's."""
    return SYSTEM_PYTHON if os.access(SYSTEM_PYTHON, os.X_OK) else sys.executable


class Guard:
    """The guard of the sandbox tagged `tag`, started at once."""

    def __init__(self, tag: str) -> None:
        watched, self._held = os.pipe()  # both close-on-exec: no other child holds the harness's end
        try:
            self._process = subprocess.Popen(
                [guard_python(), "-I", "-c", _GUARD_CODE, tag],
                stdin=watched,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={"PYTHONPATH": str(CHECKOUT)},
                start_new_session=True,  # a Ctrl-C of the harness's terminal is the harness's to handle
            )
        finally:
            os.close(watched)

    def release(self) -> None:
        """The sandbox is closed: let the guard look once more (it finds nothing) and end."""
        os.close(self._held)
        try:
            self._process.wait(timeout=GUARD_EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
