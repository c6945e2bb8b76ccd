"""Make one folder tree hold exactly what another holds, copying only the entries that differ.

Used to bring a sandbox's home image back into the work folder (sandbox/mounts.py). Nothing is
followed: symbolic links are copied as links, and an entry of the target whose type differs from the
source's is removed before the source's is put in its place, so a link in the target never leads a
write outside it. Regular files are written beside their place and renamed over it (a file is whole or
as it was); FIFOs and sockets are made anew; owners, modes and times are copied. A file's data is
copied when its size or modification time differ.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

PARTIAL_SUFFIX = ".stateact-mirror-partial"
METADATA = ("st_mode", "st_uid", "st_gid", "st_mtime_ns")
"""An entry whose lstat agrees with the source's on these and on its data needs nothing done."""


def mirror(source: Path, target: Path) -> None:
    """Make the folder `target` hold what the folder `source` holds (both exist)."""
    wanted = {entry.name: entry for entry in os.scandir(source)}
    for entry in os.scandir(target):
        if entry.name not in wanted:
            _remove(Path(entry.path))
    for name, entry in wanted.items():
        _copy_entry(Path(entry.path), entry.stat(follow_symlinks=False), target / name)
    _copy_metadata(source.lstat(), target)


def _copy_entry(source: Path, info: os.stat_result, place: Path) -> None:
    """Put the entry `source` at `place`: a file's data only when its size or time differ (the quick
    check rsync makes), then its owner, mode and times when they differ."""
    current = _lstat(place)
    if current is not None and stat.S_IFMT(current.st_mode) != stat.S_IFMT(info.st_mode):
        _remove(place)
        current = None
    if stat.S_ISDIR(info.st_mode):
        if current is None:
            place.mkdir()
        mirror(source, place)
        return
    if stat.S_ISREG(info.st_mode):
        if current is None or (current.st_size, current.st_mtime_ns) != (info.st_size, info.st_mtime_ns):
            partial = place.with_name(place.name + PARTIAL_SUFFIX)
            _remove(partial)
            shutil.copyfile(source, partial, follow_symlinks=False)
            os.replace(partial, place)
            current = None
    elif stat.S_ISLNK(info.st_mode):
        if current is None or os.readlink(place) != os.readlink(source):
            _remove(place)
            os.symlink(os.readlink(source), place)
            current = None
    elif stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode):
        if current is None:
            os.mknod(place, info.st_mode)
    else:
        return  # a device file: the sandbox's user cannot make one, and none is carried out
    if current is None or any(getattr(current, f) != getattr(info, f) for f in METADATA):
        _copy_metadata(info, place)


def _copy_metadata(info: os.stat_result, place: Path) -> None:
    """The owner, mode and times of `info` onto `place` (a link's own, never its target's)."""
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
