"""A control group per local sandbox: every process of the sandbox in it, capped in number and memory.

    group = SandboxGroup.create(tag, SandboxLimits())   # CgroupError saying why not
    subprocess.Popen(argv, preexec_fn=group.join)       # the child joins before it execs
    group.remove()                                      # kills what is left, removes the group

Both cgroup versions are used as the machine mounts them. A controller in a v1 hierarchy of its own
(`pids`, `memory`) gets a group there under the harness's own group, so whatever limits the harness
keeps holding over its sandboxes. The controllers of the v2 (unified) hierarchy get one group, under the
nearest group at or above the harness's own that can hand them to children (v2 lets no group but the
root both hold processes and do that): the parent of a root harness's login scope, or a group
delegated to the user (`systemd-run --user --scope -p Delegate=yes`). A process joins in its preexec
step, before it execs `nsenter`: an entered process otherwise stays in the harness's group.

Closing lets no new process start in the group (pids.max 0), kills what is left (v2: cgroup.kill) and
removes it. Groups are named `stateact-<tag>`; a dead harness's are found under the same parents by
sandbox/leftovers.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stateact.sandbox.limits import SandboxLimits
from stateact.sandbox.settings import CGROUP_REMOVE_TIMEOUT_S

CONTROLLERS = ("pids", "memory")
GROUP_PREFIX = "stateact-"
UNAVAILABLE_WARNING = (
    "no per-sandbox limits on processes and memory ({reason}): a fork bomb or memory hog in this sandbox "
    "can starve other runs and the machine. Run as root, or in a delegated cgroup v2 "
    "(systemd-run --user --scope -p Delegate=yes stateact ...)"
)


class CgroupError(Exception):
    """The machine gives no cgroup this process may use for a sandbox; the message says why."""


@dataclass(frozen=True)
class Place:
    """Where one hierarchy's sandbox groups go: `parent`, a group this process may make children in."""

    version: int
    controllers: tuple[str, ...]
    """Which of CONTROLLERS this hierarchy carries (a v2 place may carry none: membership only)."""
    parent: Path


def _mounts() -> list[tuple[str, Path, str, set[str]]]:
    """(file system type, mount point, root inside the hierarchy, super options) of each cgroup mount."""
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, tail = line.partition(" - ")
        parts, (fstype, _source, options) = fields.split(), tail.split()
        if fstype in ("cgroup", "cgroup2"):
            found.append((fstype, Path(parts[4]), parts[3], set(options.split(","))))
    return found


def _own_groups() -> dict[str, str]:
    """This process's group per v1 controller, and its v2 group under the key ''."""
    own: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller] = path
    return own


def _folder(mount: Path, root: str, group: str) -> Path | None:
    """The folder of `group` in a hierarchy mounted at `mount` from `root`; None when outside the mount."""
    inside = os.path.relpath(group, root)
    return None if inside.startswith("..") else (mount / inside).resolve()


def _writable(group: Path) -> bool:
    return os.access(group, os.W_OK) and os.access(group / "cgroup.procs", os.W_OK)


def _delegating_parent(own: Path, mount: Path, controllers: Sequence[str]) -> Path | None:
    """The nearest group at or above `own` that this process may write, that has `controllers` from its
    parent, and that hands them to its children (enabled here when they are not yet); None when none does."""
    for group in (own, *own.parents):
        if not group.is_relative_to(mount):
            break
        available = (group / "cgroup.controllers").read_text().split()
        if not _writable(group) or not set(controllers) <= set(available):
            continue
        enabled = (group / "cgroup.subtree_control").read_text().split()
        wanted = " ".join(f"+{c}" for c in controllers if c not in enabled)
        try:
            if wanted:
                (group / "cgroup.subtree_control").write_text(wanted)
        except OSError:  # EBUSY: it holds processes of its own
            continue
        return group
    return None


def places() -> list[Place]:
    """Where a sandbox's groups go, one place per hierarchy; CgroupError when a controller has none."""
    own = _own_groups()
    found: list[Place] = []
    missing: list[str] = []
    unified = next(((m, r) for fstype, m, r, _ in _mounts() if fstype == "cgroup2"), None)
    v2_controllers: list[str] = []
    for controller in CONTROLLERS:
        v1 = next(((m, r) for t, m, r, opts in _mounts() if t == "cgroup" and controller in opts), None)
        if v1 is not None:
            folder = _folder(*v1, own.get(controller, "/"))
            if folder is None or not _writable(folder):
                raise CgroupError(f"this user may not make groups in the {controller} hierarchy at {v1[0]}")
            found.append(Place(1, (controller,), folder))
        elif unified is not None and controller in (unified[0] / "cgroup.controllers").read_text().split():
            v2_controllers.append(controller)
        else:
            missing.append(controller)
    if missing:
        raise CgroupError(f"no mounted cgroup hierarchy has the {' and '.join(missing)} controller")
    if v2_controllers:
        own_v2 = _folder(*unified, own.get("", "/"))
        parent = own_v2 and _delegating_parent(own_v2, unified[0], v2_controllers)
        if parent is None:
            raise CgroupError(
                f"no group of the cgroup v2 hierarchy at {unified[0]} is delegated to this user"
            )
        found.append(Place(2, tuple(v2_controllers), parent))
    return found


def problem() -> str:
    """Why sandboxes here get no cgroup limits, or '' when they do."""
    try:
        places()
    except (CgroupError, OSError) as exc:
        return str(exc)
    return ""


def _write(path: Path, value: str | int) -> None:
    path.write_text(str(value))


def _apply(place: Place, group: Path, limits: SandboxLimits) -> None:
    """Write `limits` into the new `group` (memory: swap included, so the cap is real)."""
    if "pids" in place.controllers:
        _write(group / "pids.max", limits.processes)
    if "memory" not in place.controllers:
        return
    if place.version == 1:
        _write(group / "memory.limit_in_bytes", limits.memory_bytes)
        if (group / "memory.memsw.limit_in_bytes").exists():  # swap accounting is on
            _write(group / "memory.memsw.limit_in_bytes", limits.memory_bytes)
    else:
        _write(group / "memory.max", limits.memory_bytes)
        if (group / "memory.swap.max").exists():
            _write(group / "memory.swap.max", 0)


class SandboxGroup:
    """One sandbox's group: a folder in each hierarchy that carries a limit."""

    def __init__(self, folders: Sequence[Path]) -> None:
        self.folders = list(folders)
        self._procs = [str(folder / "cgroup.procs") for folder in self.folders]

    @classmethod
    def create(cls, tag: str, limits: SandboxLimits, where: Sequence[Place] | None = None) -> SandboxGroup:
        """A new group for the sandbox tagged `tag` with `limits`, in `where` (default: `places()`)."""
        made: list[Path] = []
        try:
            for place in places() if where is None else where:
                folder = place.parent / f"{GROUP_PREFIX}{tag}"
                folder.mkdir()
                made.append(folder)
                _apply(place, folder, limits)
        except OSError as exc:
            cls(made).remove()
            raise CgroupError(f"cannot make the sandbox's cgroup: {exc}") from None
        return cls(made)

    def join(self) -> None:
        """Move the calling process into the group (a preexec step: its children are born inside)."""
        pid = str(os.getpid()).encode()
        for procs in self._procs:
            fd = os.open(procs, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def pids(self) -> set[int]:
        """The processes in the group (host PIDs)."""
        found: set[int] = set()
        for folder in self.folders:
            try:
                found.update(int(pid) for pid in (folder / "cgroup.procs").read_text().split())
            except FileNotFoundError:
                continue
        return found

    def remove(self, timeout: float = CGROUP_REMOVE_TIMEOUT_S) -> bool:
        """Kill every process in the group and remove it; False when it is still there after `timeout`."""
        for folder in self.folders:
            for name, value in (("pids.max", 0), ("cgroup.kill", 1)):  # no new process, then all killed
                if (folder / name).exists():
                    _write(folder / name, value)
        deadline = time.monotonic() + timeout
        while True:
            for pid in self.pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            for folder in [f for f in self.folders if f.exists()]:
                with contextlib.suppress(OSError):  # EBUSY until the killed processes are reaped
                    folder.rmdir()
            if not any(folder.exists() for folder in self.folders):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)


def tagged_groups() -> dict[str, SandboxGroup]:
    """The sandbox groups under this process's places, by the tag of the sandbox that made them."""
    try:
        where = places()
    except (CgroupError, OSError):
        return {}
    folders: dict[str, list[Path]] = {}
    for place in where:
        for folder in place.parent.glob(f"{GROUP_PREFIX}*"):
            if folder.is_dir():
                folders.setdefault(folder.name.removeprefix(GROUP_PREFIX), []).append(folder)
    return {tag: SandboxGroup(found) for tag, found in folders.items()}
