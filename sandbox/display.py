"""A private X display: Xvfb on a free display number, and optionally a window manager.

Xvfb listens on its path socket only (/tmp/.X11-unix/XN): not on TCP, nor on the abstract socket that
every process of the host's network namespace reaches (a sandbox with `--network host` among them). An
isolated sandbox has only its own display's path socket, so it reaches no other display.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO

from stateact.sandbox import settings
from stateact.sandbox.base import SandboxError

WINDOW_MANAGERS = ("openbox", "xfwm4", "fluxbox", "matchbox-window-manager")
Launcher = Callable[[Sequence[str], IO[bytes]], subprocess.Popen]
"""Starts a program (argv, where its output goes) in a session of its own: where the window manager runs."""
START_ATTEMPTS = 3
"""Xvfb and window-manager starts can race with other servers starting at the same moment."""
CONNECT_POLL_S = 0.05
DISPLAY_NUMBERS = (100, 4000)


def _free_display_number() -> int:
    """A random display number whose lock file and socket are absent (high numbers avoid desktop servers)."""
    for _ in range(100):
        number = random.randint(*DISPLAY_NUMBERS)
        if not os.path.exists(f"/tmp/.X{number}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{number}"):
            return number
    raise SandboxError("no free X display number found")


def _accepts_clients(number: int, server: subprocess.Popen) -> bool:
    """True once the server's Unix socket accepts a connection (False if the server died first)."""
    deadline = time.monotonic() + settings.DISPLAY_START_TIMEOUT_S
    path = f"/tmp/.X11-unix/X{number}"
    while time.monotonic() < deadline and server.poll() is None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(path)
                return server.poll() is None
            except OSError:
                time.sleep(CONNECT_POLL_S)
    return False


class XDisplay:
    """Starts Xvfb with `-displayfd` so the server itself picks a free display number."""

    def __init__(self, size: tuple[int, int] = settings.DISPLAY_SIZE, window_manager: bool = True) -> None:
        self.size = size
        self.window_manager = window_manager
        self.name = ""
        self._procs: list[subprocess.Popen] = []
        self._server: subprocess.Popen | None = None
        self._manager: subprocess.Popen | None = None
        self._manager_start: tuple[Mapping[str, str], Launcher | None] | None = None

    def start(self, env: Mapping[str, str], with_window_manager: bool = True) -> str:
        """Start the server (and the window manager, unless the caller starts it later with
        `start_window_manager`); returns the display name like `:3`."""
        if shutil.which("Xvfb") is None:
            raise SandboxError("Xvfb is not installed; run the set-up command from README.md")
        failure = ""
        for _ in range(START_ATTEMPTS):
            failure = self._try_xvfb(env)
            if not failure:
                break
        else:
            raise SandboxError(failure)
        if with_window_manager:
            self.start_window_manager(env)
        return self.name

    def _try_xvfb(self, env: Mapping[str, str]) -> str:
        """Start Xvfb on a free display number and wait until it accepts clients; returns an error or ''."""
        number = _free_display_number()
        with tempfile.TemporaryFile() as errors:
            return self._launch_xvfb(number, env, errors)

    def _launch_xvfb(self, number: int, env: Mapping[str, str], errors: IO[bytes]) -> str:
        width, height = self.size
        xvfb = subprocess.Popen(
            [
                "Xvfb",
                f":{number}",
                "-screen",
                "0",
                f"{width}x{height}x{settings.DISPLAY_DEPTH}",
                "-nolisten",
                "tcp",
                "-nolisten",
                "local",  # the abstract socket, which any process of the host's network reaches
                "-noreset",
                "-ac",
                "+extension",
                "RANDR",
            ],
            env=dict(env),
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,
        )
        if _accepts_clients(number, xvfb):
            self._procs.append(xvfb)
            self._server = xvfb
            self.name = f":{number}"
            return ""
        if xvfb.poll() is None:
            xvfb.kill()
        xvfb.wait()
        errors.seek(0)
        detail = errors.read().decode(errors="replace").strip()[-500:]
        return f"Xvfb did not start on :{number} (exit code {xvfb.returncode}): {detail}"

    def start_window_manager(self, env: Mapping[str, str], launch: Launcher | None = None) -> None:
        """Start the window manager (when this display has one) through `launch` (None: a host process),
        so that what its menus start runs where the manager runs."""
        if not self.window_manager:
            return
        self._manager_start = (env, launch)
        env = {**env, "DISPLAY": self.name}
        manager = next((wm for wm in WINDOW_MANAGERS if shutil.which(wm)), None)
        if manager is None:
            raise SandboxError(f"no window manager found (tried {', '.join(WINDOW_MANAGERS)})")
        failure = ""
        for _ in range(START_ATTEMPTS):
            failure = self._try_window_manager(manager, env, launch or _host_launcher(env))
            if not failure:
                return
        raise SandboxError(failure)

    def _try_window_manager(self, manager: str, env: Mapping[str, str], launch: Launcher) -> str:
        """Start the manager and wait until it owns the root window; returns an error text or ''."""
        with tempfile.TemporaryFile() as errors:
            return self._launch_window_manager(manager, env, errors, launch)

    def _launch_window_manager(
        self, manager: str, env: Mapping[str, str], errors: IO[bytes], launch: Launcher
    ) -> str:
        proc = launch([manager], errors)
        deadline = time.monotonic() + settings.DISPLAY_START_TIMEOUT_S
        while time.monotonic() < deadline:
            probe = subprocess.run(
                ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=dict(env), capture_output=True, text=True
            )
            if "window id" in probe.stdout:
                self._procs.append(proc)
                self._manager = proc
                return ""
            if proc.poll() is not None:
                errors.seek(0)
                detail = errors.read().decode(errors="replace").strip()[-500:]
                return f"{manager} exited at start (code {proc.returncode}) {detail}"
            time.sleep(0.1)
        proc.kill()
        proc.wait()
        return f"{manager} did not take the display within {settings.DISPLAY_START_TIMEOUT_S:.0f}s"

    def server_alive(self) -> bool:
        """Whether the X server still runs (False before it started)."""
        return self._server is not None and self._server.poll() is None

    def restore_window_manager(self) -> bool:
        """Start the window manager again, as it was started, when it died; whether it had died."""
        if self._manager is None or self._manager.poll() is None or self._manager_start is None:
            return False
        self._procs.remove(self._manager)
        env, launch = self._manager_start
        # the dead manager's mark on the root window would pass the new one's start check at once
        subprocess.run(
            ["xprop", "-root", "-remove", "_NET_SUPPORTING_WM_CHECK"],
            env={**env, "DISPLAY": self.name},
            capture_output=True,
        )
        self.start_window_manager(env, launch)
        return True

    def stop(self) -> None:
        for proc in reversed(self._procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, 15)
                    proc.wait(timeout=5)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    proc.kill()
                    proc.wait()
        self._procs.clear()
        self._server = self._manager = self._manager_start = None


def _host_launcher(env: Mapping[str, str]) -> Launcher:
    def launch(argv: Sequence[str], errors: IO[bytes]) -> subprocess.Popen:
        return subprocess.Popen(
            list(argv), env=dict(env), stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True
        )

    return launch
