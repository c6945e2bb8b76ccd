"""What a dead harness's sandboxes left on the host, found by tag and removed.

A local sandbox records itself at start in `REGISTRY` (its tag and the harness process that owns it)
and removes the record at close. A record whose owner is gone (`kill -9`, a crash) names a sandbox
nobody closed: its tagged processes (Xvfb, applications) and its host folders (the sandbox's /tmp, with the
shell's command scripts, and its generated system files) are leftovers, removed by the next sandbox's start or by
`stateact cleanup --remove`. So are its cgroups (sandbox/cgroups.py), found by tag under this process's
cgroup parents: a dead harness's whose record is gone too (a group its close could not remove).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.cgroups import SandboxGroup, tagged_groups
from sandbox.processes import kill_tagged, tagged_pids

REGISTRY = Path(tempfile.gettempdir()) / "stateact-sandboxes"
TMP_PREFIX = "stateact-sandbox-tmp-"
IMAGE_PREFIX = "stateact-sandbox-image-"


def tmp_folder(tag: str) -> Path:
    """The host folder behind the /tmp of the sandbox tagged `tag`."""
    return Path(tempfile.gettempdir()) / f"{TMP_PREFIX}{tag}"


def image_folder(tag: str) -> Path:
    """The host folder of the sandbox's generated system files (passwd, group, hostname) and runtime dir."""
    return Path(tempfile.gettempdir()) / f"{IMAGE_PREFIX}{tag}"


def host_folders(tag: str) -> list[Path]:
    """Every host folder the sandbox tagged `tag` makes, that is still there."""
    return [folder for folder in (tmp_folder(tag), image_folder(tag)) if folder.exists()]


def _started(pid: int) -> str | None:
    """The start time of process `pid` (None: no such process): a reused PID has another."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[19]
    except (OSError, IndexError):
        return None


def register(tag: str) -> None:
    """Record the sandbox tagged `tag` as owned by this process."""
    REGISTRY.mkdir(mode=0o1777, exist_ok=True)
    record = {"owner": os.getpid(), "owner_started": _started(os.getpid())}
    partial = REGISTRY / f".{tag}.json.partial"
    partial.write_text(json.dumps(record), encoding="utf-8")
    partial.replace(REGISTRY / f"{tag}.json")  # whole or absent: a reader never sees half a record


def release(tag: str) -> None:
    """The sandbox was closed: forget it."""
    (REGISTRY / f"{tag}.json").unlink(missing_ok=True)


@dataclass(frozen=True)
class Leftover:
    """A sandbox whose owner died without closing it."""

    tag: str
    owner: int
    processes: int
    folders: list[Path]
    """Its host folders (its /tmp, its system files) that are still there."""
    groups: list[Path] = field(default_factory=list)
    """Its cgroups that are still there."""


def _read_record(path: Path) -> dict | None:
    """A sandbox's owner record; None when it was released while being read; no owner when torn."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        return None
    except ValueError:
        return {"owner": 0}


def _live_owner(record: dict) -> int:
    """The record's owner process when it still runs (its PID not reused since), else 0."""
    owner = int(record.get("owner", 0))
    return owner if owner and _started(owner) == record.get("owner_started") else 0


def live_owner(tag: str) -> int:
    """The process that owns the sandbox tagged `tag` and still runs, or 0 (closed, or its owner died)."""
    record = _read_record(REGISTRY / f"{tag}.json")
    return _live_owner(record) if record else 0


def stale() -> list[Leftover]:
    """The recorded sandboxes whose owner process is gone, and the cgroups of sandboxes with no live owner."""
    groups = tagged_groups()
    found = []
    for path in sorted(REGISTRY.glob("*.json")) if REGISTRY.is_dir() else []:
        record = _read_record(path)
        if record is None or _live_owner(record):
            groups.pop(path.stem, None)
            continue
        tag = path.stem
        group = groups.pop(tag, SandboxGroup([]))
        found.append(
            Leftover(
                tag, int(record.get("owner", 0)), len(tagged_pids(tag)), host_folders(tag), group.folders
            )
        )
    for tag, group in groups.items():  # no record: its close could not remove it, or it closed since
        if not live_owner(tag):
            found.append(Leftover(tag, 0, len(group.pids()), [], group.folders))
    return found


def remove(leftover: Leftover) -> None:
    """End the leftover's processes, remove its temp folder and its record."""
    kill_tagged(leftover.tag)
    SandboxGroup(leftover.groups).remove()
    for folder in leftover.folders:
        shutil.rmtree(folder, ignore_errors=True)
    release(leftover.tag)


def remove_stale() -> list[Leftover]:
    """Remove what every dead owner's sandboxes left; returns them."""
    found = stale()
    for leftover in found:
        remove(leftover)
    return found
