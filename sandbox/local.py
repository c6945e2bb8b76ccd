"""LocalSandbox: the task runs in a work folder that is its home, isolated by bubblewrap by default.

With `isolation="bwrap"` every process (commands, shells, launched applications, GUI actions) runs
inside the namespaces of sandbox/isolation.py and sees the work folder as /home/user; with
`isolation="none"` they are host processes with only HOME changed (the work folder's own path).
An isolated sandbox has a network of its own (`network="own"`, sandbox/netns.py) unless it is given
the host's (`network="host"`). Every process of the sandbox, isolated or not, is in a cgroup of its
own capped by `limits` (sandbox/cgroups.py); where the machine gives none, the sandbox warns.
"""

from __future__ import annotations

import io
import os
import secrets
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from shlex import quote
from typing import IO
from urllib.parse import urlsplit, urlunsplit

from stateact.sandbox import backends, desktop_state, settings
from stateact.sandbox.backends import SandboxOptions, SandboxSpec
from stateact.sandbox.base import BrowserPlace, CommandResult, Sandbox, SandboxError, SandboxLost, Shell
from stateact.sandbox.bash_session import BashSession
from stateact.sandbox.caps import DEFAULT_CAPS, DiskCaps
from stateact.sandbox.cgroups import UNAVAILABLE_WARNING, CgroupError, SandboxGroup
from stateact.sandbox.display import XDisplay
from stateact.sandbox.file_access import MISSING, SandboxFiles
from stateact.sandbox.guard import Guard
from stateact.sandbox.isolation import (
    BwrapNamespace,
    check_isolation,
    default_hidden,
    give_to_sandbox_user,
    inside_ids,
    limits,
    runtime_folder,
    visible_inside,
)
from stateact.sandbox.leftovers import (
    home_folder,
    image_folder,
    register,
    release,
    remove_folders,
    remove_stale,
    tmp_folder,
)
from stateact.sandbox.limits import DEFAULT_LIMITS, SandboxLimits
from stateact.sandbox.marker_shell import NONINTERACTIVE_ENV
from stateact.sandbox.mounts import open_folders
from stateact.sandbox.netns import LOOPBACK_NAMES, SandboxNetwork, check_network
from stateact.sandbox.office_profile import install_office_profile
from stateact.sandbox.processes import TAG_VARIABLE, kill_tagged
from stateact.sandbox.runtime import require_runtime
from stateact.sandbox.settings import IMAGE_BIN_MOUNT, SANDBOX_HOME, SANDBOX_TOOLKIT, SANDBOX_USER
from stateact.sandbox.toolkit import TOOLKIT_BIN
from stateact.sandbox.vm_image import bind_terminal_key, make_home_folders, write_image_files

HOST_SESSION_VARIABLES = ("DISPLAY", "XDG_CONFIG_HOME", "DBUS_SESSION_BUS_ADDRESS")
"""The harness's desktop session, which a sandbox sharing the host's processes must not reach."""
DISPLAY_LOST = (
    "the sandbox's X server (Xvfb) died, and every window with it: the run cannot go on in this sandbox "
    "(`stateact resume` continues it in a new one)"
)
WINDOW_MANAGER_RESTARTED = (
    "[The window manager had died and was started again: the windows are open as they were, but their "
    "focus, stacking and decorations may have changed.]"
)
ROUTE_RESTARTED = (
    "[The sandbox's outbound network route (pasta) had died and was started again: connections to the "
    "outside that were open are broken; open them again.]"
)


class LocalSandbox(Sandbox):
    """A work folder (the task's home), an optional private Xvfb display, and the processes started in it."""

    shares_host_files = True

    def __init__(
        self,
        workdir: Path,
        display: bool = False,
        size: tuple[int, int] = settings.DISPLAY_SIZE,
        window_manager: bool = True,
        isolation: str = "none",
        hidden: Sequence[Path] = (),
        network: str = settings.DEFAULT_NETWORK,
        limits: SandboxLimits = DEFAULT_LIMITS,
        disk: DiskCaps = DEFAULT_CAPS,
    ) -> None:
        try:
            self.isolation = check_isolation(isolation)
            self.network = check_network(network)
        except ValueError as exc:
            raise SandboxError(str(exc)) from None
        self.host_home = str(Path(workdir).resolve())
        """The work folder on the host; `home` is the same folder as the sandbox's processes see it."""
        self.home = SANDBOX_HOME if isolation == "bwrap" else self.host_home
        self._hidden = [Path(p).resolve() for p in hidden]
        self.limits = limits
        self._group: SandboxGroup | None = None
        self.disk = disk
        """The disk caps of an isolated sandbox's home and /tmp (sandbox/mounts.py)."""
        self._namespace: BwrapNamespace | None = None
        self._network: SandboxNetwork | None = None
        self._host_tmp: Path | None = None
        self._host_state: Path | None = None
        """Generated files of the VM image (passwd, group, hostname) and the session bus's folder."""
        self.toolkit_dir = SANDBOX_TOOLKIT if isolation == "bwrap" else str(TOOLKIT_BIN)
        self.tag = secrets.token_hex(8)
        self._display = XDisplay(size, window_manager) if display else None
        self._shells: list[BashSession] = []
        self._launched: list[subprocess.Popen] = []
        self._files = SandboxFiles(self._start_file_helper, self._python(), self.toolkit_dir)
        self._guard: Guard | None = None
        self._helpers_lock = threading.Lock()
        self.env: dict[str, str] = {}
        self.warnings: list[str] = []
        self._started = False
        self._keep_tmp: Path | None = None

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        if self._started:
            return
        remove_stale()  # what sandboxes of dead harnesses left
        register(self.tag, keep_tmp=self._keep_tmp)
        self._guard = Guard(self.tag)  # ends the sandbox's processes if the harness dies without closing it
        self.warnings = []
        self._make_group()
        Path(self.host_home).mkdir(parents=True, exist_ok=True)
        install_office_profile(Path(self.host_home))
        self.env = self._environment()
        self._started = True
        try:
            if self._display is not None:
                self.env["DISPLAY"] = self._display.start(self.env, with_window_manager=not self.isolated)
                # python-xlib (pyautogui) refuses to connect when the home has no X authority file.
                Path(self.host_home, ".Xauthority").touch()
            if self.isolated:
                self._start_namespace()
                if self._display is not None:  # what its menus start must run in the sandbox too
                    self._display.start_window_manager(
                        self.env, lambda argv, errors: self.spawn(argv, errors)
                    )
            else:
                self._start_private_bus()
        except BaseException:
            self.close()
            raise

    def _environment(self) -> dict[str, str]:
        """What the sandbox's processes get: isolated ones a VM-like environment, never the harness's."""
        if self.isolation == "bwrap":
            runtime = require_runtime()
            base = {key: os.environ[key] for key in ("LANG", "LC_ALL", "TZ") if key in os.environ}
            path = [
                self.toolkit_dir,
                IMAGE_BIN_MOUNT,
                str(runtime / "bin"),
                "/usr/local/bin",
                "/usr/bin",
                "/bin",
            ]
            base.update(USER=SANDBOX_USER, LOGNAME=SANDBOX_USER, SHELL="/bin/bash", TMPDIR="/tmp")
            base.update(
                XDG_RUNTIME_DIR=runtime_folder(),
                DBUS_SESSION_BUS_ADDRESS=f"unix:path={runtime_folder()}/bus",
            )
        else:
            base = {k: v for k, v in os.environ.items() if k not in HOST_SESSION_VARIABLES}
            path = [self.toolkit_dir, str(Path(sys.executable).parent), os.environ.get("PATH", "")]
        # XDG_CONFIG_HOME stays unset: settings live under the home (LibreOffice's profile)
        return {
            **base,
            **NONINTERACTIVE_ENV,
            "HOME": self.home,
            "PATH": os.pathsep.join(p for p in path if p),
            TAG_VARIABLE: self.tag,
        }

    def _start_namespace(self) -> None:
        self._host_tmp, self._host_state = tmp_folder(self.tag), image_folder(self.tag)
        copies, warning = open_folders(
            self._host_tmp, self._host_state, home_folder(self.tag), Path(self.host_home), self.disk
        )
        self.warnings += [warning] if warning else []
        host_runtime = self._host_state / "runtime"
        host_runtime.mkdir(mode=0o700)
        make_home_folders(Path(self.host_home))
        bind_terminal_key(Path(self.host_home))
        x_socket = f"/tmp/.X11-unix/X{self.display.lstrip(':')}" if self.display else None
        self._namespace = BwrapNamespace(
            Path(self.host_home),
            self._host_tmp,
            [*default_hidden(), *self._hidden],
            x_socket,
            write_image_files(self._host_state / "etc", *inside_ids()),
            host_runtime,
            own_network=self.has_own_network,
            holder_preexec=self._group.join if self._group is not None else None,
            copies=copies,
        )
        self._namespace.start()
        if self.has_own_network:
            self._start_network()
        self._start_session_bus(host_runtime / "bus")

    def _make_group(self) -> None:
        """The sandbox's cgroup (sandbox/cgroups.py); a warning when the machine gives none."""
        try:
            self._group = SandboxGroup.create(self.tag, self.limits)
        except CgroupError as exc:
            self.warnings.append(UNAVAILABLE_WARNING.format(reason=exc))

    def _start_network(self) -> None:
        self._network = SandboxNetwork(
            self._namespace.network_entry(), {TAG_VARIABLE: self.tag}, self._host_state / "pasta.pid"
        )
        userns = None if os.geteuid() == 0 else self._namespace.namespace_file("user")
        warning = self._network.start(self._namespace.namespace_file("net"), userns)
        if warning:
            self.warnings.append(warning)

    def _start_private_bus(self) -> None:
        """A session D-Bus of the sandbox's own for host processes too: settings (gsettings, dconf) go
        into its home, never into the desktop session of the user running the harness."""
        self._host_state = image_folder(self.tag)
        self._host_state.mkdir(mode=0o700)
        socket = self._host_state / "bus"
        self.env["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={socket}"
        self._start_session_bus(socket)

    def _start_session_bus(self, host_socket: Path) -> None:
        """A session D-Bus inside (dconf-service starts on it when a setting is written); the image's
        settings go into a home that has none yet."""
        fresh = not Path(self.host_home, ".config", "dconf", "user").exists()
        address = self.env["DBUS_SESSION_BUS_ADDRESS"]
        argv = ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={address}"]
        self._launched.append(self.spawn(argv))
        deadline = time.monotonic() + settings.SESSION_BUS_TIMEOUT_S
        while not host_socket.exists():
            if self._launched[-1].poll() is not None or time.monotonic() > deadline:
                raise SandboxError("the sandbox's session D-Bus did not start (is dbus-daemon installed?)")
            time.sleep(0.02)
        if fresh:
            for schema, key, value in settings.IMAGE_SETTINGS:
                done = self.run(f"gsettings set {schema} {key} {quote(value)}", timeout=15)
                if not done.ok:
                    raise SandboxError(f"could not set {schema} {key} in the sandbox: {done.output.strip()}")

    def close(self) -> None:
        self._files.close()
        for shell in self._shells:
            shell.close()
        self._shells.clear()
        for proc in self._launched:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        self._launched.clear()
        if self._network is not None:
            self._network.stop()
            self._network = None
        if self._namespace is not None:
            self._namespace.stop()
            self._namespace = None
        if self._display is not None:
            self._display.stop()
        kill_tagged(self.tag)
        if self._group is not None:
            self._group.remove()
            self._group = None
        remove_folders(self.tag)
        self._host_tmp = self._host_state = None
        release(self.tag)
        if self._guard is not None:
            self._guard.release()
            self._guard = None
        self._started = False

    def keep_tmp_in(self, folder: Path) -> None:
        self._keep_tmp = Path(folder).resolve()
        if self._started:
            register(self.tag, keep_tmp=self._keep_tmp)

    def restore_helpers(self) -> str:
        """A dead window manager or network route (pasta) is started again; a dead X server ends the
        run, as its windows cannot come back."""
        if not self._started:
            return ""
        with self._helpers_lock:
            if self._display is not None:
                self._require_display()
            told = []
            try:
                if self._display is not None and self._display.restore_window_manager():
                    told.append(WINDOW_MANAGER_RESTARTED)
                if self._network is not None and self._network.restore_route():
                    told.append(ROUTE_RESTARTED)
            except SandboxError as exc:
                raise SandboxLost(f"a helper of the sandbox died and did not start again: {exc}") from None
            return " ".join(told)

    @property
    def isolated(self) -> bool:
        """Whether the sandbox's processes run inside bubblewrap's namespaces."""
        return self.isolation == "bwrap"

    @property
    def has_own_network(self) -> bool:
        """Whether the sandbox's processes are in a network namespace of their own (sandbox/netns.py)."""
        return self.isolated and self.network == "own"

    @property
    def shares_host_network(self) -> bool:
        return not self.has_own_network

    def reach_host_ports(self, ports: Iterable[int]) -> None:
        """Forward the host's 127.0.0.1:PORT of each of `ports` into a sandbox with a network of its own,
        on the same port (a site on this machine that the task names); a port a process inside serves
        already stays the sandbox's own."""
        self._require_started()
        if self._network is not None:
            for port in ports:
                self._network.bring_in(port)

    def harness_url(self, url: str) -> str:
        """`url` as the harness reaches what the sandbox's processes reach at it: a loopback address of a
        sandbox with a network of its own goes through a relay into it, unless it is a host port
        forwarded in."""
        parts = urlsplit(url)
        if self._network is None or parts.hostname not in LOOPBACK_NAMES:
            return url
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if port in self._network.brought_in:
            return url
        return urlunsplit(parts._replace(netloc=f"127.0.0.1:{self._network.inward(port)}"))

    def browser_place(self) -> BrowserPlace:
        """An isolated sandbox starts the web subagent's Chromium inside its namespaces, so the browser
        sees the files and network its processes see."""
        if self.isolated and not self.web_browser_url:
            return BrowserPlace.INSIDE
        return super().browser_place()

    @property
    def display(self) -> str | None:
        return self.env.get("DISPLAY")

    def cdp_url(self) -> str:
        return self.harness_url(f"http://127.0.0.1:{self.cdp_port}")

    # -- paths -------------------------------------------------------------------
    def path_variables(self) -> Mapping[str, str]:
        return self.env

    def resolve(self, path: str) -> Path:
        """The host path of a sandbox path (see `expand`): the home and /tmp map to the host folders behind
        them, the system's folders are the host's; anything else raises PermissionError, as it is not
        there inside (sandbox/isolation.py)."""
        inside = os.path.normpath(self.expand(path))
        if self.isolation != "bwrap":
            return Path(inside)
        for root, host in (
            (self.home, self.host_home),
            ("/tmp", self._host_tmp),
            (SANDBOX_TOOLKIT, TOOLKIT_BIN),
        ):
            if host is not None and (inside == root or inside.startswith(root + "/")):
                return Path(str(host) + inside[len(root) :])
        if not visible_inside(Path(inside), [*default_hidden(), *self._hidden]):
            raise PermissionError(f"{inside} is not visible inside the sandbox")
        return Path(inside)

    def exists(self, path: str) -> bool:
        return self.path_kind(path) != MISSING

    def path_kind(self, path: str) -> str:
        """What `path` (see `expand`) is as the sandbox's processes see it, after symlinks: `file`,
        `directory`, `missing`, or the kind of a special file (sandbox/file_access.py)."""
        self._require_started()
        return self._files.kind(self.expand(path))

    # -- commands ------------------------------------------------------------------
    def run(self, command: str, timeout: float = 60.0) -> CommandResult:
        return _finish(self._spawn_bash(command, subprocess.PIPE), timeout)

    def run_read_only(self, command: str, timeout: float = 60.0) -> CommandResult | None:
        """`command` in the isolated sandbox's read-only view (`isolation.READ_ONLY_VIEW`); None without
        isolation, or when the harness is not root."""
        self._require_started()
        argv = (
            self._namespace.read_only_command(["bash", "-c", command], self.home) if self._namespace else None
        )
        if argv is None:
            return None
        return _finish(self._popen(argv, subprocess.PIPE, one_shot=True), timeout)

    def run_python(self, code: str, timeout: float = 60.0) -> CommandResult:
        self._require_started()
        python = self._python()
        try:
            proc = subprocess.run(
                self.command([python, "-c", code]),
                cwd=self.host_home,
                env=self.env,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=timeout,
                preexec_fn=self._preexec(one_shot=True),
            )
        except subprocess.TimeoutExpired as exc:
            return CommandResult(124, _text(exc.stdout or b""), f"[timed out after {timeout:.0f}s]")
        return CommandResult(proc.returncode, _text(proc.stdout), _text(proc.stderr))

    def _python(self) -> str:
        """The Python that runs in the sandbox: its own venv's when isolated, the harness's otherwise."""
        return "python3" if self.isolation == "bwrap" else sys.executable

    def launch(self, command: str) -> None:
        self._launched.append(self._spawn_bash(command, subprocess.DEVNULL, one_shot=False))

    def command(self, argv: Sequence[str], cwd: str | None = None) -> list[str]:
        """`argv` as the host runs it so that it lives in the sandbox (wrapped into its namespaces when
        isolated); `cwd` is a sandbox path, the home by default. Start it with `preexec` as preexec_fn."""
        self._require_started()
        if self._namespace is None:
            return list(argv)
        return self._namespace.command(argv, cwd or self.home)

    def preexec(self) -> Callable[[], None] | None:
        """The preexec_fn that gives a long-lived process started with `command` the sandbox's limits."""
        return self._preexec(one_shot=False)

    def _shell_preexec(self) -> Callable[[], None]:
        """The preexec_fn of an isolated shell: its terminal (the pty on its standard input) becomes the
        sandbox user's, so `> /dev/stdout` and `tty` work for it, then the sandbox's limits."""
        limits = self.preexec()

        def apply() -> None:
            os.fchown(0, *inside_ids())
            if limits is not None:
                limits()

        return apply

    def _preexec(self, one_shot: bool) -> Callable[[], None] | None:
        steps = [self._group.join] if self._group is not None else []
        if self._namespace is not None:  # RLIMIT_NPROC is one budget per user: only without a pids cgroup
            steps.append(limits(one_shot, None if self._group else self.limits.processes))

        def apply() -> None:
            for step in steps:
                step()

        return apply if steps else None

    def _spawn_bash(self, command: str, output: int, one_shot: bool = True) -> subprocess.Popen:
        """`bash -c command` in the home folder, in a session of its own, with no input."""
        return self.spawn(["bash", "-c", command], output, one_shot)

    def spawn(
        self,
        argv: Sequence[str],
        output: int | IO[bytes] = subprocess.DEVNULL,
        one_shot: bool = False,
        stdin: int = subprocess.DEVNULL,
    ) -> subprocess.Popen:
        """`argv` started in the sandbox (inside its namespaces when isolated) in the home folder, in a
        session of its own (end it with os.killpg), its input from `stdin` (none by default), its output
        and errors to `output`; the caller waits for it or ends it."""
        return self._popen(self.command(argv), output, one_shot, stdin)

    def _popen(
        self,
        wrapped: Sequence[str],
        output: int | IO[bytes],
        one_shot: bool,
        stdin: int = subprocess.DEVNULL,
    ) -> subprocess.Popen:
        """Start `wrapped` (a command already wrapped into the sandbox) as `spawn` says."""
        return subprocess.Popen(
            wrapped,
            cwd=self.host_home,
            env=self.env,
            stdin=stdin,
            stdout=output,
            stderr=output,
            start_new_session=True,
            preexec_fn=self._preexec(one_shot),
        )

    def open_shell(self, scratch_dir: Path) -> Shell:
        self._require_started()
        if self._namespace is None:
            shell = BashSession(scratch_dir, cwd=self.home, env=self.env, preexec=self.preexec())
        else:  # the shell sources its command scripts, so they go where it can read them
            scratch = self._host_tmp / ".stateact-shell"
            scratch.mkdir(exist_ok=True)
            give_to_sandbox_user(scratch)
            shell = BashSession(
                scratch,
                cwd=self.home,
                env=self.env,
                launcher=self.command,
                preexec=self._shell_preexec(),
                inner_scratch="/tmp/.stateact-shell",
                is_dir=lambda path: self.path_kind(path) == "directory",
            )
        self._shells.append(shell)
        return shell

    # -- files ---------------------------------------------------------------------
    def read_file(self, path: str) -> bytes:
        """Read as the sandbox's processes would (sandbox/file_access.py): its view, its user's rights."""
        self._require_started()
        return self._files.read(self.expand(path))

    def write_file(self, path: str, data: bytes) -> None:
        """Write as the sandbox's processes would (sandbox/file_access.py): its view, its user's rights."""
        self._require_started()
        self._files.write(self.expand(path), data)

    def copy_in(self, host_folder: Path, names: Sequence[str], folder: str) -> None:
        """Copy the entries `names` of `host_folder` (recursively, symlinks as symlinks) into the sandbox's
        `folder`, unpacked there by `tar` as the sandbox's user, so nothing lands where it may not write."""
        self._require_started()
        with tempfile.TemporaryFile() as errors:
            unpack = self.spawn(
                ["tar", "-x", "--no-same-owner", "-C", folder, "-f", "-"], errors, stdin=subprocess.PIPE
            )
            try:
                with tarfile.open(fileobj=unpack.stdin, mode="w|") as archive:
                    for name in names:
                        archive.add(host_folder / name, arcname=name)
            except BrokenPipeError:
                pass  # tar ended early: its message says why
            finally:
                unpack.stdin.close()
            if unpack.wait() != 0:
                errors.seek(0)
                said = errors.read().decode(errors="replace").strip()
                raise SandboxError(f"could not copy {', '.join(names)} into {folder}: {said}")

    def _start_file_helper(self, argv: list[str]) -> subprocess.Popen:
        return self.spawn(argv, subprocess.PIPE, stdin=subprocess.PIPE)

    # -- screen ----------------------------------------------------------------------
    def screenshot(self) -> bytes:
        from PIL import ImageGrab

        image = ImageGrab.grab(xdisplay=self._require_display())
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=1)
        return buffer.getvalue()

    def screen_size(self) -> tuple[int, int]:
        self._require_display()
        return self._display.size

    def window_size(self, app_class: str) -> tuple[int, int] | None:
        self._require_display()
        return desktop_state.window_size(self, app_class)

    def wallpaper(self) -> bytes | None:
        path = desktop_state.wallpaper_path(self)
        return self.read_file(path) if path else None

    def directory_tree(self, path: str) -> dict | None:
        return desktop_state.directory_tree(self, path)

    def _require_display(self) -> str:
        if not self.display:
            raise SandboxError("this sandbox has no display; start it with display=True (CLI: --display)")
        if not self._display.server_alive():
            raise SandboxLost(DISPLAY_LOST)
        return self.display

    def _require_started(self) -> None:
        if not self._started:
            raise SandboxError("the sandbox is not started")


def _finish(proc: subprocess.Popen, timeout: float) -> CommandResult:
    """The output of a command started in a session of its own; after `timeout` its session is killed."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        return CommandResult(124, _text(out), _text(err) + f"\n[timed out after {timeout:.0f}s]")
    return CommandResult(proc.returncode, _text(out), _text(err))


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


LOCAL_SPEC = "local"


def _read_local_spec(text: str) -> str:
    if text != LOCAL_SPEC:
        raise SandboxError(f"the local sandbox takes no address: {text!r} (use `{LOCAL_SPEC}`)")
    return ""


def _build(spec: SandboxSpec, options: SandboxOptions) -> LocalSandbox:
    return LocalSandbox(
        options.workdir,
        display=options.display,
        isolation=options.isolation,
        hidden=options.hidden,
        network=options.network,
        limits=options.limits,
        disk=options.disk,
    )


backends.register(backends.Backend(LOCAL_SPEC, LOCAL_SPEC, _read_local_spec, _build, on_this_machine=True))
