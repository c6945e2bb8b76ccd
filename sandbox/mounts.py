"""Host-side mounts of an isolated sandbox: disk caps, and a filesystem of its own behind every folder
it is given, so that `/proc/self/mountinfo` inside names no host path.

A bind mount's line in mountinfo shows the path of its source inside the source's filesystem, so a bind
of a host folder tells the folder's host path unless the folder is the root of a filesystem. When the
harness runs as root (`mount_problem` says why not otherwise):

- /tmp: a tmpfs of `DiskCaps.tmp` bytes mounted at the sandbox's tmp folder on the host. Being a mount,
  it outlives a harness killed with `kill -9` as the plain folder did, so `stateact resume` carries it.
- home: an ext4 image of `DiskCaps.home` bytes (a sparse file: it takes on disk what it holds) under
  `HOME_IMAGE_FOLDER`, loop-mounted at a staging folder, the work folder's files copied in, and bound over
  the work folder, so the harness, checkers and gate keep reading the work folder's path. `close_home`
  (at close, or when the leftovers of a dead harness are removed) takes the bind away and mirrors the
  image into the work folder, which then holds the run's files.
- small files: a tmpfs at the sandbox's state folder holds copies of the toolkit and the image's
  programs (so a checkout changed during a run does not change them), the /etc files and the runtime
  folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from stateact.sandbox.base import SandboxError
from stateact.sandbox.caps import DiskCaps, size_text
from stateact.sandbox.mirror import mirror
from stateact.sandbox.settings import MOUNT_TIMEOUT_S, SANDBOX_UID, STATE_TMPFS_BYTES
from stateact.sandbox.toolkit import TOOLKIT_BIN
from stateact.sandbox.vm_image import IMAGE_BIN

IMAGE_NAME = "home.img"
MOUNT_POINT = "mnt"
BOUND_MARK = "workdir"
"""Written in a home image's folder once the work folder's files are in the image: the work folder's path.
While it is there, the image holds the home and is mirrored back before it is removed."""
COPIES = {"toolkit": TOOLKIT_BIN, "image_bin": IMAGE_BIN}
"""What the state tmpfs holds copies of, by the name of its folder there."""
NOT_COPIED = shutil.ignore_patterns("__pycache__", "*.pyc")
NO_CAPS_WARNING = (
    "no disk caps for the sandbox's home and /tmp ({reason}): what the agent writes there goes to this "
    "machine's disk, and /proc/self/mountinfo inside shows host paths"
)

SHORT_DISK_WARNING = (
    "the home's disk cap ({cap}) is more than {folder} has free: the agent filling its home would fill "
    "this machine's disk first (give a smaller --disk-home)"
)


def mount_problem() -> str:
    """Why this machine gives no disk caps or private mounts to sandboxes, or '' when it does."""
    if os.geteuid() != 0:
        return "the harness is not root, and mounts need root"
    missing = [p for p in ("mount", "umount", "mkfs.ext4", "cp") if shutil.which(p) is None]
    if missing:
        return f"{', '.join(missing)} not found (apt-get install mount e2fsprogs coreutils)"
    if not Path("/dev/loop-control").exists():
        return "no loop devices (/dev/loop-control is missing)"
    return ""


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=MOUNT_TIMEOUT_S)
    if done.returncode != 0:
        raise SandboxError(f"{what} failed: {done.stderr.strip() or f'exit code {done.returncode}'}")


def mount_tmpfs(folder: Path, size: int, owner: int) -> None:
    """A tmpfs of `size` bytes at `folder` (made if absent), open to `owner` only."""
    folder.mkdir(mode=0o700, exist_ok=True)
    options = f"size={size},mode=0700,uid={owner},gid={owner},nosuid,nodev"
    _run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], f"mounting a tmpfs at {folder}")


def unmount(folder: Path) -> None:
    """Take every mount off `folder`; nothing when none is there."""
    while os.path.ismount(folder):
        unmount_once(folder)


def unmount_once(folder: Path) -> None:
    """Take the topmost mount off `folder` (lazily when it is busy)."""
    if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
        _run(["umount", "--lazy", str(folder)], f"unmounting {folder}")


def open_state(folder: Path) -> dict[str, Path]:
    """A state tmpfs at `folder` (root's only) holding copies of the toolkit and the image's programs;
    their folders there by name (`COPIES`)."""
    mount_tmpfs(folder, STATE_TMPFS_BYTES, 0)
    copies = {name: folder / name for name in COPIES}
    for name, source in COPIES.items():
        shutil.copytree(source, copies[name], ignore=NOT_COPIED)
    return copies


def open_home(folder: Path, workdir: Path, size: int) -> None:
    """Make an image of `size` bytes in `folder` the home: the files of `workdir` copied in, the image
    bound over `workdir`. SandboxError when they do not fit."""
    image, mount_point = folder / IMAGE_NAME, folder / MOUNT_POINT
    folder.mkdir(mode=0o700)  # the image holds the home's files: root's only on the host
    mount_point.mkdir(mode=0o700)
    with open(image, "wb") as sparse:
        sparse.truncate(size)
    _run(["mkfs.ext4", "-q", "-F", "-m", "0", "-E", "nodiscard", str(image)], "making the home's image")
    _run(["mount", "-o", "loop,nosuid,nodev", str(image), str(mount_point)], "mounting the home's image")
    (mount_point / "lost+found").rmdir()
    copied = subprocess.run(
        ["cp", "-a", "--", f"{workdir}/.", str(mount_point)],
        capture_output=True,
        text=True,
        timeout=MOUNT_TIMEOUT_S,
    )
    if copied.returncode != 0:
        raise SandboxError(
            f"the work folder's files do not fit in the home's disk cap of {size_text(size)} "
            f"({copied.stderr.strip()[-300:]}): give a larger --disk-home, or --disk-home 0 for no cap"
        )
    shutil.copystat(workdir, mount_point)
    os.chown(mount_point, workdir.stat().st_uid, workdir.stat().st_gid)
    (folder / BOUND_MARK).write_text(str(workdir), encoding="utf-8")
    _run(["mount", "--bind", str(mount_point), str(workdir)], "binding the home's image over the work folder")


def close_home(folder: Path) -> None:
    """Undo `open_home`: the bind off the work folder, the image's files mirrored into it, the image and
    `folder` removed. Safe to repeat after a crash at any step (a host restart included)."""
    image, mount_point, mark = folder / IMAGE_NAME, folder / MOUNT_POINT, folder / BOUND_MARK
    if mark.exists():
        workdir = Path(mark.read_text(encoding="utf-8"))
        if not os.path.ismount(mount_point):  # the machine restarted since: the image still holds the home
            _run(["mount", "-o", "loop", str(image), str(mount_point)], "mounting a left home image")
        while os.path.ismount(workdir) and workdir.stat().st_dev == mount_point.stat().st_dev:
            unmount_once(workdir)
        workdir.mkdir(parents=True, exist_ok=True)  # removed or moved away meanwhile: made again
        mirror(mount_point, workdir)
        mark.unlink()
    unmount(mount_point)
    shutil.rmtree(folder, ignore_errors=True)


def open_folders(
    tmp: Path, state: Path, home: Path, workdir: Path, caps: DiskCaps
) -> tuple[dict[str, Path], str]:
    """Make a sandbox's host folders: its /tmp at `tmp`, its state folder at `state` and, with a home cap,
    its home image in `home` bound over `workdir`. Returns the copies in the state folder by name (none:
    the sandbox binds the checkout's) and a warning ('' when the caps hold)."""
    problem = mount_problem()
    if problem:
        tmp.mkdir(mode=0o700)
        state.mkdir(mode=0o700)
        return {}, NO_CAPS_WARNING.format(reason=problem)
    if caps.tmp:
        mount_tmpfs(tmp, caps.tmp, SANDBOX_UID)
    else:
        tmp.mkdir(mode=0o700)
    copies = open_state(state)
    if not caps.home:
        return copies, ""
    open_home(home, workdir, caps.home)
    disk = os.statvfs(home)
    if disk.f_bavail * disk.f_frsize < caps.home:
        return copies, SHORT_DISK_WARNING.format(cap=size_text(caps.home), folder=home.parent)
    return copies, ""
