"""Ending every process a sandbox started, including daemons and background jobs.

Each sandbox puts a tag in the environment of everything it starts. At close,
every process still carrying the tag is signalled, whatever session or group
it moved to (LibreOffice, browsers and `cmd &` jobs included).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

TAG_VARIABLE = "STATEACT_SANDBOX_TAG"


def start_time(pid: int) -> str | None:
    """The start time of process `pid` (None: no such process): a reused PID has another."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[19]
    except (OSError, IndexError):
        return None


def proc_files(name: str) -> Iterator[tuple[int, list[bytes]]]:
    """(PID, the NUL-separated fields of /proc/PID/`name`) of every other process whose file can be read
    (`environ`, `cmdline`)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            yield int(entry.name), (entry / name).read_bytes().split(b"\0")
        except OSError:
            continue


def tagged_pids(tag: str) -> list[int]:
    """PIDs of live processes whose environment carries `TAG_VARIABLE=tag`."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    return [pid for pid, environ in proc_files("environ") if needle in environ]


def _signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def kill_tagged(tag: str, grace_s: float = 2.0) -> int:
    """SIGTERM every tagged process, SIGKILL what is left after `grace_s`; returns how many were found."""
    pids = tagged_pids(tag)
    if not pids:
        return 0
    _signal_all(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        alive = [p for p in tagged_pids(tag) if not _is_zombie(p)]
        if not alive:
            return len(pids)
        time.sleep(0.05)
    _signal_all(tagged_pids(tag), signal.SIGKILL)
    return len(pids)


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not ended (a zombie has)."""
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] == "Z"


def _session_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[-1].split()[3])


def session_pids(session: int) -> list[int]:
    """PIDs of the live processes of session `session` (its leader's PID), zombies left out."""
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit()
        and _session_of(int(entry.name)) == session
        and not _is_zombie(int(entry.name))
    ]


def kill_session(session: int) -> None:
    """Stop every process of `session` at once, then SIGKILL them: a shell stopped first cannot go on to
    the next command of a list (`sleep 30; rm f`) when the command it waits for dies."""
    stop_and_kill(lambda: session_pids(session))


def kill_tagged_at_once(tag: str) -> None:
    """Stop, then SIGKILL, every live process carrying `tag`: with no grace, so none of them goes on."""
    stop_and_kill(lambda: [pid for pid in tagged_pids(tag) if not _is_zombie(pid)])


def stop_and_kill(find: Callable[[], list[int]], rounds: int = 20) -> None:
    """SIGSTOP, then SIGKILL, the processes `find` names, again while it finds some (a process may fork
    between the search and the signals), at most `rounds` times."""
    for _ in range(rounds):
        pids = find()
        if not pids:
            return
        _signal_all(pids, signal.SIGSTOP)
        _signal_all(pids, signal.SIGKILL)
        time.sleep(0.01)
