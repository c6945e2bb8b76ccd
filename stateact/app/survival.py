"""What a stopped run's sandbox kept, and the notice that tells the resumed agent exactly that.

A VM keeps running when the harness dies: its files and programs are as they were. A local sandbox
does not outlive its harness (its display, namespace and programs are ended at resume): its home
folder is kept on the host, its private /tmp is carried into the new sandbox, and the notice names
every program that was ended and what the task's setup started again.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.bash_session import BashSession
from stateact.sandbox.display import WINDOW_MANAGERS
from stateact.sandbox.leftovers import move_tmp
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.processes import kill_tagged, tagged_pids

PLUMBING = {"Xvfb", "bwrap", "dbus-daemon", "dconf-service", "pasta", "passt", *WINDOW_MANAGERS}
"""Programs a local sandbox runs for itself: not the agent's or the task's."""
RECORDER = ("ffmpeg", "x11grab")
"""The display's recorder (sandbox/recording.py): the harness's, though it carries the sandbox's tag."""
SANDBOX_OWN_TMP = {".stateact-shell", ".X11-unix", ".ICE-unix"}
"""Entries of a sandbox's /tmp that the sandbox makes at its start: never carried over."""
PROGRAMS_NAMED = 20


@dataclass(frozen=True)
class Leftovers:
    """What the stopped run's sandbox left on this machine, taken over by its resume."""

    programs: list[str]
    """Command lines of the agent's and the task's programs that were still running, now ended."""
    staged_tmp: Path | None
    """The stopped sandbox's /tmp, moved aside to be carried into the new sandbox (None: it had none)."""


def end_leftovers(tags: Sequence[str], staging: Path) -> Leftovers:
    """End the processes of the stopped run's sandboxes (`tags`), noting what they were, and move the
    latest one's /tmp to `staging`."""
    programs: list[str] = []
    for tag in tags:
        programs += [line for pid in tagged_pids(tag) if (line := _own_program(pid))]
        kill_tagged(tag)
    moved = bool(tags) and move_tmp(tags[-1], staging)
    return Leftovers(programs, staging if moved else None)


def _own_program(pid: int) -> str:
    """The command line of process `pid` when it is not the sandbox's plumbing or shell; '' otherwise."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return ""
    if not argv or os.path.basename(argv[0]) in PLUMBING or tuple(argv) == BashSession.DEFAULT_ARGV:
        return ""
    if os.path.basename(argv[0]) == RECORDER[0] and RECORDER[1] in argv:
        return ""
    return " ".join(argv)


def carry_tmp(leftovers: Leftovers, sandbox: Sandbox) -> list[str]:
    """Copy the stopped sandbox's /tmp into the started `sandbox`'s; the names carried."""
    staged = leftovers.staged_tmp
    if staged is None:
        return []
    names = sorted(entry.name for entry in staged.iterdir() if entry.name not in SANDBOX_OWN_TMP)
    if names:
        if not isinstance(sandbox, LocalSandbox):
            raise SandboxError(
                f"a stopped local sandbox's /tmp cannot be carried into {type(sandbox).__name__}"
            )
        sandbox.copy_in(staged, names, "/tmp")
    shutil.rmtree(staged, ignore_errors=True)
    return names


def resume_note(sandbox: Sandbox, leftovers: Leftovers, carried: list[str], restarted: Sequence[str]) -> str:
    """The notice of a resume: what survived the stop, what was lost, what was started again."""
    shell = "The shell was started anew: its variables, working folder and background jobs are gone."
    check = "Check the state you rely on before going on."
    if sandbox.full_system:
        return (
            "The run was stopped and has been resumed on the same machine, which kept running: its files "
            f"and the programs and windows that were open are as they were. {shell} {check}"
        )
    lines = [
        f"The run was stopped and has been resumed in a new sandbox. The home folder ({sandbox.home}) is as it was."
    ]
    if leftovers.staged_tmp is not None:
        kept = f"carried over: {', '.join(carried)}" if carried else "empty, so nothing was carried over"
        lines.append(f"The sandbox's own /tmp was {kept}.")
    elif sandbox.resolve("/tmp") != Path("/tmp"):
        lines.append("The sandbox's own /tmp was not kept: what you had put there is gone.")
    if leftovers.programs:
        named = leftovers.programs[:PROGRAMS_NAMED]
        more = (
            f" and {len(leftovers.programs) - len(named)} more"
            if len(leftovers.programs) > len(named)
            else ""
        )
        lines.append(
            "These programs were running and were ended (what they held only in memory and their open "
            f"windows are gone): {'; '.join(named)}{more}."
        )
    else:
        lines.append(
            "No program of the task or yours was still running: the sandbox's programs ended with the "
            "stopped run (what they held only in memory and their open windows are gone)."
        )
    if restarted:
        lines.append(
            "The task's setup started these again, in their start-up state (reading the files as they "
            f"are now): {'; '.join(restarted)}."
        )
    lines += [shell, check]
    return " ".join(lines)
