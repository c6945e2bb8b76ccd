"""What a dead harness's sandboxes left on the host, found by tag and removed.

A local sandbox records itself at start in `REGISTRY` (its tag and the harness process that owns it)
and removes the record at close. A record whose owner is gone (`kill -9`, a crash) names a sandbox
nobody closed: its tagged processes (Xvfb, applications) and its host folders (the sandbox's /tmp, with the
shell's command scripts, its generated system files, its home image) are leftovers, removed by the next
sandbox's start or by `stateact cleanup --remove`. Those folders may be mounts (sandbox/mounts.py): removing
them unmounts them, and a home image is first mirrored into the work folder it was bound over. So are its
cgroups (sandbox/cgroups.py), found by tag under this process's cgroup parents: a dead harness's whose record
is gone too (a group its close could not remove). A qemu guest (sandbox/pool_qemu.py) is recorded the same
way, its tag on its qemu process and its overlay among the record's `files`.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from stateact.sandbox.cgroups import SandboxGroup, tagged_groups
from stateact.sandbox.guard import guarded_tags
from stateact.sandbox.mounts import close_home, unmount
from stateact.sandbox.processes import kill_tagged, start_time, tagged_pids
from stateact.sandbox.settings import HOME_IMAGE_FOLDER

REGISTRY = Path(tempfile.gettempdir()) / "stateact-sandboxes"
TMP_PREFIX = "stateact-sandbox-tmp-"
IMAGE_PREFIX = "stateact-sandbox-image-"
HOME_PREFIX = "stateact-sandbox-home-"
REMOVAL_LOCK = ".removal.lock"
"""The file in `REGISTRY` whose lock a process holds while it removes a leftover."""


def tmp_folder(tag: str) -> Path:
    """The host folder behind the /tmp of the sandbox tagged `tag`."""
    return Path(tempfile.gettempdir()) / f"{TMP_PREFIX}{tag}"


def image_folder(tag: str) -> Path:
    """The host folder of the sandbox's generated system files (passwd, group, hostname) and runtime dir."""
    return Path(tempfile.gettempdir()) / f"{IMAGE_PREFIX}{tag}"


def home_folder(tag: str) -> Path:
    """The host folder of the sandbox's home image and the mount point it is mounted at."""
    return Path(HOME_IMAGE_FOLDER) / f"{HOME_PREFIX}{tag}"


def host_folders(tag: str) -> list[Path]:
    """Every host folder the sandbox tagged `tag` makes, that is still there."""
    return [folder for folder in (tmp_folder(tag), image_folder(tag), home_folder(tag)) if folder.exists()]


def remove_folders(tag: str) -> None:
    """Remove the host folders of the sandbox tagged `tag`: its home image mirrored into its work folder
    first, every mount taken off."""
    if home_folder(tag).exists():
        close_home(home_folder(tag))
    for folder in (tmp_folder(tag), image_folder(tag)):
        unmount(folder)
        shutil.rmtree(folder, ignore_errors=True)


def _special_files(folder: str, names: list[str]) -> list[str]:
    """The names in `folder` of FIFOs, sockets and devices: not copied (a move keeps them)."""
    kept = (stat.S_ISDIR, stat.S_ISREG, stat.S_ISLNK)
    return [n for n in names if not any(k(os.lstat(os.path.join(folder, n)).st_mode) for k in kept)]


def move_tmp(tag: str, staging: Path) -> bool:
    """Move the /tmp of the sandbox tagged `tag` (a folder or a tmpfs mounted there) to `staging`,
    replacing what was there; False when it has none (or another process removed it first)."""
    with _removal_lock():
        return _move_tmp(tag, staging)


def _move_tmp(tag: str, staging: Path) -> bool:
    """`move_tmp` for a holder of the removal lock."""
    source = tmp_folder(tag)
    if not source.is_dir():
        return False
    shutil.rmtree(staging, ignore_errors=True)
    if os.path.ismount(source):
        shutil.copytree(source, staging, symlinks=True, ignore=_special_files)
        unmount(source)
        source.rmdir()
    else:
        shutil.move(source, staging)
    return True


def register(
    tag: str, kind: str = "sandbox", files: tuple[Path, ...] = (), keep_tmp: Path | None = None
) -> None:
    """Record the sandbox tagged `tag` as owned by this process; `kind` says what it is, `files` are host
    files of its own (besides its folders) that a leftover's removal deletes, `keep_tmp` where a
    leftover's removal moves its /tmp (its run folder's, for a resume) instead of deleting it. Recording
    again replaces the record."""
    REGISTRY.mkdir(mode=0o1777, exist_ok=True)
    record: dict[str, object] = {"owner": os.getpid(), "owner_started": start_time(os.getpid()), "kind": kind}
    record["files"] = [str(path) for path in files]
    if keep_tmp is not None:
        record["keep_tmp"] = str(keep_tmp)
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
    """Its host folders (its /tmp, its system files, its home image) that are still there."""
    groups: list[Path] = field(default_factory=list)
    """Its cgroups that are still there."""
    kind: str = "sandbox"
    files: list[Path] = field(default_factory=list)
    """Its recorded host files that are still there (a qemu guest's overlay)."""
    keep_tmp: Path | None = None
    """Where its removal moves its /tmp (its run folder's place for a resume); None: deleted."""


def _read_record(path: Path) -> dict | None:
    """A sandbox's owner record; None when it was released while being read; no owner when torn."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        return None
    except ValueError:
        return {"owner": 0}


def _recorded_files(path: Path, record: dict) -> list[Path]:
    """The files the record at `path` names that are still there and belong to the record's writer: the
    registry is everyone's, so a record naming another user's files (root's harness cleans every user's
    leftovers) gets none of them removed."""
    files = record.get("files")
    named = [Path(name) for name in files if isinstance(name, str)] if isinstance(files, list) else []
    try:
        writer = path.lstat().st_uid
    except OSError:
        return []
    return [file for file in named if file.is_absolute() and _owner(file) == writer]


def _recorded_keep_tmp(path: Path, record: dict) -> Path | None:
    """The record's place for the sandbox's /tmp, when the record's writer owns it (or, not made yet, the
    folder it goes in) and it is a real folder: a record written by another user never has root's
    cleaner move files into, or delete, a folder that is not that user's."""
    named = record.get("keep_tmp")
    if not isinstance(named, str) or not os.path.isabs(named):
        return None
    target = Path(named)
    writer = _owner(path)
    checked = target if os.path.lexists(target) else target.parent
    try:
        found = checked.lstat()
    except OSError:
        return None
    return target if stat.S_ISDIR(found.st_mode) and found.st_uid == writer else None


def _owner(path: Path) -> int | None:
    try:
        return path.lstat().st_uid
    except OSError:
        return None


def _live_owner(record: dict) -> int:
    """The record's owner process when it still runs (its PID not reused since), else 0."""
    owner = int(record.get("owner", 0))
    return owner if owner and start_time(owner) == record.get("owner_started") else 0


def live_owner(tag: str) -> int:
    """The process that owns the sandbox tagged `tag` and still runs, or 0 (closed, or its owner died)."""
    record = _read_record(REGISTRY / f"{tag}.json")
    return _live_owner(record) if record else 0


def _tags_with_folders() -> set[str]:
    """The tags of the sandboxes whose host folders are on this machine."""
    places = ((Path(tempfile.gettempdir()), TMP_PREFIX), (Path(tempfile.gettempdir()), IMAGE_PREFIX))
    places += ((Path(HOME_IMAGE_FOLDER), HOME_PREFIX),)
    return {
        path.name.removeprefix(prefix)
        for folder, prefix in places
        for path in folder.glob(f"{prefix}*")
        if _owned(path)
    }


def _owned(path: Path) -> bool:
    """Whether `path` is this user's (root's harness cleans every user's leftovers; another user's harness
    only its own: it could not remove a root sandbox's mounts)."""
    try:
        return os.geteuid() == 0 or path.lstat().st_uid == os.geteuid()
    except OSError:
        return False


def stale() -> list[Leftover]:
    """The recorded sandboxes whose owner process is gone, the host folders of sandboxes whose record is
    gone (removed by hand, or by a cleaner of old temp files) and none of whose processes runs (a dead
    harness's guard ends its processes): a sandbox records itself before it makes its folders and removes
    its folders before its record; and the cgroups of sandboxes with no live owner. A sandbox whose guard
    runs is never taken: its harness lives, whatever registry (TMPDIR) it recorded itself in."""
    with_folders = _tags_with_folders()  # before the records: a sandbox started in between is in neither
    groups = tagged_groups()
    guarded = guarded_tags()
    recorded = {path.stem for path in REGISTRY.glob("*.json")} if REGISTRY.is_dir() else set()
    found = [
        Leftover(tag, 0, len(tagged_pids(tag)), host_folders(tag), groups.pop(tag, SandboxGroup([])).folders)
        for tag in sorted(with_folders - recorded)
        if tag not in guarded and not tagged_pids(tag)  # else live, recorded in another TMPDIR's registry
    ]
    for path in sorted(REGISTRY.glob("*.json")) if REGISTRY.is_dir() else []:
        record = _read_record(path)
        if record is None or _live_owner(record):
            groups.pop(path.stem, None)
            continue
        tag = path.stem
        group = groups.pop(tag, SandboxGroup([]))
        found.append(
            Leftover(
                tag,
                int(record.get("owner", 0)),
                len(tagged_pids(tag)),
                host_folders(tag),
                group.folders,
                str(record.get("kind") or "sandbox"),
                _recorded_files(path, record),
                _recorded_keep_tmp(path, record),
            )
        )
    for tag, group in groups.items():  # no record: its close could not remove it, or it closed since
        if tag in guarded or live_owner(tag) or (tag in with_folders and tagged_pids(tag)):
            continue  # live elsewhere, or ending (a dead harness's guard ends its processes)
        found.append(Leftover(tag, 0, len(group.pids()), host_folders(tag), group.folders))
    return found


@contextmanager
def _removal_lock() -> Iterator[None]:
    """Held while a leftover is removed or its /tmp moved: one process at a time."""
    REGISTRY.mkdir(mode=0o1777, exist_ok=True)
    held = _open_lock(REGISTRY / REMOVAL_LOCK)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield
    finally:
        os.close(held)


def _open_lock(path: Path) -> int:
    """A read-only descriptor of the lock file `path`, made when absent (anyone may lock a file they can
    read; a sticky folder refuses O_CREAT on another user's file, so it is not asked for an existing one)."""
    while True:
        try:
            return os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            try:
                made = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            os.fchmod(made, 0o644)  # whatever the umask
            return made


def remove(leftover: Leftover) -> None:
    """End the leftover's processes, remove its cgroups, its host folders and its record; one process at a
    time (the sandboxes of an eval run start together, and each removes what dead owners left)."""
    with _removal_lock():
        kill_tagged(leftover.tag)
        SandboxGroup(leftover.groups).remove()
        if not (REGISTRY / f"{leftover.tag}.json").exists() and not host_folders(leftover.tag):
            return  # another process removed the rest while this one waited
        # a /tmp already kept there is an earlier stop's, not carried over yet: it stays
        if leftover.keep_tmp is not None and not os.path.lexists(leftover.keep_tmp):
            _move_tmp(leftover.tag, leftover.keep_tmp)
        remove_folders(leftover.tag)
        for path in leftover.files:
            path.unlink(missing_ok=True)
        release(leftover.tag)


def remove_stale() -> list[Leftover]:
    """Remove what every dead owner's sandboxes left; returns them."""
    found = stale()
    for leftover in found:
        remove(leftover)
    return found
