"""Make one folder tree hold exactly what another holds, copying only the entries that differ.

Used to bring a sandbox's home image back into the work folder (sandbox/mounts.py). Nothing is
followed: symbolic links are copied as links, and an entry of the target whose type differs from the
source's is removed before the source's is put in its place, so a link in the target never leads a
write outside it. Regular files are written beside their place and renamed over it (a file is whole or
as it was); FIFOs and sockets are made anew; owners, modes and times are copied.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

SAME_FIELDS = ("st_mode", "st_uid", "st_gid", "st_size", "st_mtime_ns")
"""An entry whose lstat agrees on these is taken as unchanged."""
PARTIAL_SUFFIX = ".stateact-mirror-partial"


def mirror(source: Path, target: Path) -> None:
    """Make the folder `target` hold what the folder `source` holds (both exist)."""
    wanted = {entry.name: entry for entry in os.scandir(source)}
    for entry in os.scandir(target):
        if entry.name not in wanted:
            _remove(Path(entry.path))
    for name, entry in wanted.items():
        _copy_entry(entry, target / name)
    _copy_metadata(source, target)


def _copy_entry(entry: os.DirEntry, place: Path) -> None:
    info = entry.stat(follow_symlinks=False)
    current = _lstat(place)
    if current is not None and stat.S_IFMT(current.st_mode) != stat.S_IFMT(info.st_mode):
        _remove(place)
        current = None
    if stat.S_ISDIR(info.st_mode):
        if current is None:
            place.mkdir()
        mirror(Path(entry.path), place)
        return
    if _same(current, info, place, Path(entry.path)):
        return
    if stat.S_ISREG(info.st_mode):
        partial = place.with_name(place.name + PARTIAL_SUFFIX)
        _remove(partial)
        shutil.copyfile(entry.path, partial, follow_symlinks=False)
        _copy_metadata(Path(entry.path), partial)
        os.replace(partial, place)
        return
    if current is not None:
        _remove(place)
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(entry.path), place)
    elif stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode):
        os.mknod(place, info.st_mode)
    else:
        return  # a device file: the sandbox's user cannot make one, and none is carried out
    _copy_metadata(Path(entry.path), place)


def _same(current: os.stat_result | None, info: os.stat_result, place: Path, source: Path) -> bool:
    """Whether the entry at `place` (lstat `current`) is unchanged from the source's (lstat `info`)."""
    if current is None or any(getattr(current, f) != getattr(info, f) for f in SAME_FIELDS):
        return False
    return not stat.S_ISLNK(info.st_mode) or os.readlink(place) == os.readlink(source)


def _copy_metadata(source: Path, place: Path) -> None:
    """Owner, mode and times of `source` onto `place` (a link's own, never its target's)."""
    info = source.lstat()
    if os.geteuid() == 0:
        os.chown(place, info.st_uid, info.st_gid, follow_symlinks=False)
    if not stat.S_ISLNK(info.st_mode):
        os.chmod(place, stat.S_IMODE(info.st_mode))
    os.utime(place, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=False)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except FileNotFoundError:
        return None


def _remove(path: Path) -> None:
    """Remove `path` whatever it is (a folder with what it holds); nothing when it is absent."""
    info = _lstat(path)
    if info is None:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)
    else:
        path.unlink()
