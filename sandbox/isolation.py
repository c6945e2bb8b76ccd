"""The isolation boundary of a local sandbox: one set of Linux namespaces made by bubblewrap.

A holder process (`bwrap ... sleep infinity`) owns a user, mount, PID, IPC and UTS namespace whose
file system holds only the installed system read-only (`SYSTEM_FOLDERS`; the harness's own folders
that lie there hidden under empty tmpfs), the work folder at /home/user, a private /tmp (on the host, so
files there survive between commands), empty /run and /var/tmp, a private /dev/shm, the toolkit's bin
folder (read-only, at `SANDBOX_TOOLKIT`) and the sandbox Python (read-only, at its host path), the X
display's socket. When the harness is root, the home, /tmp and the small files are filesystems of their
own with disk caps (sandbox/mounts.py), so /proc/self/mountinfo inside names no host path. With `own_network` the holder makes a network namespace too (sandbox/netns.py);
otherwise the sandbox shares the host's network. Other host folders (other homes, /root, /mnt, checkouts,
data) are not there at all. Every process of the sandbox enters those namespaces with `nsenter`
(`command`), so they all share one PID namespace: `ps -e` shows the sandbox's processes only, and
none can signal the harness. Closing ends the holder, and the kernel ends every process of the
namespace with it. bubblewrap reads its options from a file descriptor (`--args`), and the holder
gets no environment of the harness's, so the holder (PID 1 inside) names no host path in its command
line or environment.

When the harness runs as root, the holder makes its namespaces as root and every process enters them
as `SANDBOX_UID` (root ignores RLIMIT_NPROC, and a root process could read everything); the work
folders are given to that user. Otherwise the holder makes a user namespace too, and processes
enter it keeping the harness's user id.
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from stateact.sandbox.base import SandboxError
from stateact.sandbox.settings import (
    DEV_SHM_BYTES,
    HOLDER_START_TIMEOUT_S,
    IMAGE_BIN_MOUNT,
    ISOLATION_MODES,
    LIMIT_ADDRESS_SPACE_BYTES,
    LIMIT_CPU_SECONDS,
    RUNTIME_DIR,
    SANDBOX_HOME,
    SANDBOX_HOSTNAME,
    SANDBOX_TOOLKIT,
    SANDBOX_UID,
    SYSTEM_COVERED,
    SYSTEM_FOLDERS,
    SYSTEM_LINKS,
    VAR_TMP_BYTES,
)
from stateact.sandbox.toolkit import TOOLKIT_BIN
from stateact.sandbox.vm_image import IMAGE_BIN, ImageFiles

CHECKOUT = Path(__file__).resolve().parents[1]
NO_USER_NAMESPACES = (
    "bubblewrap cannot create its namespaces here ({detail}); this happens in containers that forbid "
    "unprivileged user namespaces. Allow them (sysctl kernel.unprivileged_userns_clone=1, or run the "
    "container with --privileged / a seccomp profile that permits unshare), or run without isolation: "
    "--isolation none"
)

HOLDER_PATH = "/usr/bin:/bin"
"""The holder's whole environment: where it finds `sleep`."""
NO_ISOLATION_WARNING = "--isolation none: the agent's commands run as host processes"


def check_isolation(mode: str) -> str:
    """`mode` when it is an isolation mode; ValueError naming the modes otherwise."""
    if mode not in ISOLATION_MODES:
        raise ValueError(f"unknown isolation {mode!r}: use one of {', '.join(ISOLATION_MODES)}")
    return mode


def bwrap_problem() -> str:
    """Why bubblewrap cannot isolate a sandbox on this machine, or '' when it can."""
    if shutil.which("bwrap") is None or shutil.which("nsenter") is None:
        return "bubblewrap (bwrap) or nsenter is not installed: apt-get install bubblewrap util-linux"
    probe = subprocess.run(
        ["bwrap", *_user_namespace(), "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "true"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        return NO_USER_NAMESPACES.format(detail=probe.stderr.strip() or f"exit code {probe.returncode}")
    return ""


def default_hidden() -> list[Path]:
    """Host folders every isolated sandbox hides: the checkout and the harness's Python environment."""
    return [CHECKOUT, Path(sys.prefix).resolve()]


def visible_inside(path: Path, hidden: Sequence[Path]) -> bool:
    """Whether `path` (not under the home, /tmp or the toolkit's folder) is inside an isolated sandbox as
    on the host: in a system folder or the sandbox Python, and in no hidden folder."""
    if any(path == folder or folder in path.parents for folder in hidden):
        return False
    shown = [Path(p) for p in (*SYSTEM_FOLDERS, *SYSTEM_LINKS)] + [RUNTIME_DIR]
    return any(path == folder or folder in path.parents for folder in shown)


def _system_layout(hidden: Sequence[Path]) -> list[str]:
    """bwrap options for the installed system: its folders read-only, its /usr links as links, and the
    hidden folders that lie inside them covered."""
    args: list[str] = []
    for folder in SYSTEM_FOLDERS:
        if os.path.isdir(folder):
            args += [*_traversable(folder, hidden), "--ro-bind", folder, folder]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    for path in hidden:
        if any(path.is_relative_to(folder) for folder in SYSTEM_FOLDERS):
            args += ["--perms", "0755", "--tmpfs", str(path)]
    for folder in SYSTEM_COVERED:
        if os.path.isdir(folder):
            args += ["--perms", "0755", "--tmpfs", folder]
    return args


def _user_namespace() -> list[str]:
    """bwrap's option for a user namespace of its own: needed unless the harness is root."""
    return [] if os.geteuid() == 0 else ["--unshare-user"]


def limits(one_shot: bool, processes: int | None) -> Callable[[], None]:
    """preexec step setting the sandbox's resource limits (CPU time for one-shot commands only;
    RLIMIT_NPROC `processes` unless None: a sandbox with a pids cgroup gets no per-user budget)."""

    def apply() -> None:
        if processes is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
        # RLIMIT_DATA counts writable memory, not address space a browser reserves and never uses.
        resource.setrlimit(resource.RLIMIT_DATA, (LIMIT_ADDRESS_SPACE_BYTES, LIMIT_ADDRESS_SPACE_BYTES))
        if one_shot:
            resource.setrlimit(resource.RLIMIT_CPU, (LIMIT_CPU_SECONDS, LIMIT_CPU_SECONDS))

    return apply


def inside_ids() -> tuple[int, int]:
    """The user and group id the sandbox's processes run as."""
    return (SANDBOX_UID, SANDBOX_UID) if os.geteuid() == 0 else (os.getuid(), os.getgid())


def runtime_folder() -> str:
    """XDG_RUNTIME_DIR inside a sandbox (its session bus's socket is there)."""
    return f"/run/user/{inside_ids()[0]}"


def give_to_sandbox_user(path: Path) -> None:
    """Make `path` (and what is under it) the sandbox user's when the harness is root."""
    if os.geteuid() != 0:
        return
    os.chown(path, SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)
    if path.is_dir() and not path.is_symlink():
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                os.chown(os.path.join(root, name), SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)


class BwrapNamespace:
    """The namespaces of one sandbox: start them, wrap commands into them, end them."""

    def __init__(
        self,
        host_home: Path,
        host_tmp: Path,
        hidden: Sequence[Path],
        x_socket: str | None,
        image: ImageFiles | None = None,
        host_runtime: Path | None = None,
        own_network: bool = False,
        holder_preexec: Callable[[], None] | None = None,
        copies: Mapping[str, Path] | None = None,
    ) -> None:
        self.host_home = host_home
        self.host_tmp = host_tmp
        self.image = image
        self.host_runtime = host_runtime
        self.hidden = [p for p in hidden if p.exists()]
        self.x_socket = x_socket
        self.own_network = own_network
        self.holder_preexec = holder_preexec
        """Run by the holder before it execs bwrap (it joins the sandbox's cgroup)."""
        self.copies = copies or {}
        """Copies of the toolkit and the image's programs to bind (sandbox/mounts.py); else the checkout's."""
        self._holder: subprocess.Popen | None = None
        self._pid = 0

    def start(self) -> None:
        problem = bwrap_problem()
        if problem:
            raise SandboxError(problem)
        for folder in (self.host_home, self.host_tmp, self.host_runtime):
            if folder is not None:
                give_to_sandbox_user(folder)
        info_read, info_write = os.pipe()
        options = os.memfd_create("bwrap-args")
        try:
            layout = ["--info-fd", str(info_write), *self._layout()]
            os.write(options, b"".join(arg.encode() + b"\0" for arg in layout))
            os.lseek(options, 0, os.SEEK_SET)
            self._holder = subprocess.Popen(
                ["bwrap", "--args", str(options), "sleep", "infinity"],
                pass_fds=[info_write, options],
                env={"PATH": HOLDER_PATH},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=self.holder_preexec,
            )
        finally:
            os.close(info_write)
            os.close(options)
        with os.fdopen(info_read) as info:
            text = info.read()
        if not text:
            self._holder.wait()
            raise SandboxError(NO_USER_NAMESPACES.format(detail=self._holder.stderr.read().decode().strip()))
        self._pid = json.loads(text)["child-pid"]
        self._wait_until_entered()

    def _layout(self) -> list[str]:
        """bwrap's namespace and mount options (order matters: later mounts cover earlier ones)."""
        args = [
            *_user_namespace(),
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            *(["--unshare-net"] if self.own_network else []),
            "--hostname",
            SANDBOX_HOSTNAME,
        ]
        args += ["--die-with-parent", *_system_layout(self.hidden)]
        args += [
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/run",
            "--perms",
            "1777",
            "--size",
            str(VAR_TMP_BYTES),
            "--tmpfs",
            "/var/tmp",
            "--perms",
            "1777",
            "--size",
            str(DEV_SHM_BYTES),
            "--tmpfs",
            "/dev/shm",
        ]
        args += [*_traversable(SANDBOX_HOME, self.hidden), "--bind", str(self.host_home), SANDBOX_HOME]
        args += ["--bind", str(self.host_tmp), "/tmp"]
        for host, inside in (
            (self.copies.get("toolkit", TOOLKIT_BIN), SANDBOX_TOOLKIT),
            (self.copies.get("image_bin", IMAGE_BIN), IMAGE_BIN_MOUNT),
            (RUNTIME_DIR, RUNTIME_DIR),
        ):
            args += [*_traversable(inside, self.hidden), "--ro-bind", str(host), str(inside)]
        for host, inside in self.image.binds if self.image else ():
            args += ["--ro-bind", str(host), inside]
        if self.host_runtime is not None:
            args += [
                "--perms",
                "0755",
                "--dir",
                "/run/user",
                "--bind",
                str(self.host_runtime),
                runtime_folder(),
            ]
        if self.x_socket:  # its path socket: the abstract one is the host network's
            args += ["--perms", "1777", "--dir", os.path.dirname(self.x_socket)]
            args += ["--ro-bind", self.x_socket, self.x_socket]
        return [*args, "--chdir", SANDBOX_HOME]

    def _wait_until_entered(self) -> None:
        """Wait until a command can enter the namespaces (the holder maps its user ids after starting)."""
        deadline = time.monotonic() + HOLDER_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._holder.poll() is not None:
                raise SandboxError(
                    f"bubblewrap exited at start: {self._holder.stderr.read().decode().strip()}"
                )
            probe = subprocess.run(self.command(["true"]), capture_output=True)
            if probe.returncode == 0:
                return
            select.select([], [], [], 0.05)
        raise SandboxError(f"the sandbox's namespaces did not come up within {HOLDER_START_TIMEOUT_S:.0f}s")

    def command(self, argv: Sequence[str], cwd: str = SANDBOX_HOME) -> list[str]:
        """`argv` wrapped to run inside the namespaces, in `cwd` (a path as the sandbox sees it)."""
        if not self._pid:
            raise SandboxError("the sandbox's namespaces are not started")
        enter = ["nsenter", "-t", str(self._pid), "-m", "-p", "-i", "-u", *self._net(), "-r", f"--wdns={cwd}"]
        if os.geteuid() == 0:
            enter += ["-S", str(SANDBOX_UID), "-G", str(SANDBOX_UID)]
        else:
            enter += ["-U", "--preserve-credentials"]
        return [*enter, "--", *argv]

    def _net(self) -> list[str]:
        return ["-n"] if self.own_network else []

    def read_only_command(self, argv: Sequence[str], cwd: str = SANDBOX_HOME) -> list[str] | None:
        """`argv` wrapped to run in a read-only view of the sandbox (`READ_ONLY_VIEW`), as the sandbox's
        user; None when the harness is not root (a user namespace's user cannot make the view)."""
        if not self._pid:
            raise SandboxError("the sandbox's namespaces are not started")
        if os.geteuid() != 0:
            return None
        uid, gid = inside_ids()
        enter = ["nsenter", "-t", str(self._pid), "-m", "-p", "-i", "-u", *self._net(), "-r", f"--wdns={cwd}"]
        view = ["unshare", "--mount", "--propagation", "private", "bash", "-c", READ_ONLY_VIEW, "view"]
        drop = ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--no-new-privs"]
        drop += ["--inh-caps=-all", "--bounding-set=-all", "--"]
        return [*enter, "--", *view, str(VAR_TMP_BYTES), *drop, *argv]

    def network_entry(self) -> list[str]:
        """The nsenter prefix of a host process that joins the sandbox's network only (and its user
        namespace when the harness is not root), keeping the harness's files and PID namespace."""
        if not self._pid:
            raise SandboxError("the sandbox's namespaces are not started")
        user = [] if os.geteuid() == 0 else ["-U", "--preserve-credentials"]
        return ["nsenter", "-t", str(self._pid), "-n", *user]

    def namespace_file(self, kind: str) -> str:
        """The /proc path of the holder's namespace `kind` (net, user)."""
        return f"/proc/{self._pid}/ns/{kind}"

    def stop(self) -> None:
        if self._holder is not None:
            if self._holder.poll() is None:
                self._holder.kill()
            self._holder.communicate()
        self._holder = None
        self._pid = 0


READ_ONLY_VIEW = r"""
# $1: the scratch tmpfs's size; then the command that drops to the sandbox's user and runs.
scratch_bytes=$1; shift
awk '{print $5}' /proc/self/mountinfo | sort -u | while read -r point; do
    point=$(printf '%b' "$point")
    case "$point" in /proc|/proc/*|/sys|/sys/*) continue ;; esac
    mount -o remount,bind,ro "$point" || { echo "read-only view: cannot remount $point" >&2; exit 1; }
done || exit 125
mount -t tmpfs -o "size=$scratch_bytes,mode=1777" scratch /var/tmp || exit 125
export TMPDIR=/var/tmp
exec "$@"
"""
"""The read-only view (`BwrapNamespace.read_only_command`), run as root in a private copy of the sandbox's
mount namespace: every mount but /proc and /sys is remounted read-only (in that copy only: the sandbox's
own processes keep writing), a fresh tmpfs at /var/tmp is the one writable folder ($TMPDIR, gone when the
command ends), and the command runs as the sandbox's user without capabilities, so it cannot remount."""


def _traversable(target: str | Path, hidden: Sequence[Path]) -> list[str]:
    """bwrap options that make the folders above `target` exist and open to anyone where they are not
    the host system's own: in the namespace's empty root, or under a hidden folder's tmpfs."""
    args: list[str] = []
    for folder in reversed(Path(target).parents[:-1]):  # from the top, "/" left out
        system = any(folder == Path(s) or Path(s) in folder.parents for s in SYSTEM_FOLDERS)
        if system and not any(h in folder.parents for h in hidden):
            continue  # the host's own folder, or a hidden one's tmpfs (made 0755)
        args += ["--perms", "0755", "--dir", str(folder)]
    return args
