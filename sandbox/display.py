"""A private X display: Xvfb on a free display number, and optionally a window manager."""

from __future__ import annotations

import os
import random
import select
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from sandbox.base import SandboxError
from stateact import settings

WINDOW_MANAGERS = ("openbox", "xfwm4", "fluxbox", "matchbox-window-manager")
DISPLAY_ATTEMPTS = 5
DISPLAY_NUMBERS = range(100, 4000)
"""Displays are picked at random from a high range: on a shared machine the low numbers are crowded."""


def _read_line(fd: int, timeout: float) -> str:
    """Read up to a newline. Xvfb may write its number and the newline separately, and dies
    ("Cannot write display number") if the pipe is closed between the two writes."""
    deadline = time.monotonic() + timeout
    data = b""
    while b"\n" not in data:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 64) if ready else b""
        if not chunk:
            break
        data += chunk
    return data.decode().strip()


def _free_display_number() -> int:
    """A random display number with neither a lock file nor a socket."""
    while True:
        number = random.choice(DISPLAY_NUMBERS)
        if not (Path(f"/tmp/.X{number}-lock").exists() or Path(f"/tmp/.X11-unix/X{number}").exists()):
            return number


class XDisplay:
    """Starts Xvfb on a free display number; `-displayfd` tells when it is ready."""

    def __init__(self, size: tuple[int, int] = settings.DISPLAY_SIZE, window_manager: bool = True) -> None:
        self.size = size
        self.window_manager = window_manager
        self.name = ""
        self._procs: list[subprocess.Popen] = []

    def start(self, env: Mapping[str, str]) -> str:
        if shutil.which("Xvfb") is None:
            raise SandboxError("Xvfb is not installed; run the set-up command from README.md")
        for _ in range(DISPLAY_ATTEMPTS):
            number = self._start_xvfb(env, _free_display_number())
            if number:
                break
            self.stop()
        else:
            raise SandboxError("Xvfb did not start on a free display number")
        self.name = f":{number}"
        self._wait_until_connectable({**env, "DISPLAY": self.name})
        if self.window_manager:
            self._start_window_manager({**env, "DISPLAY": self.name})
        return self.name

    def _start_xvfb(self, env: Mapping[str, str], number: int) -> str:
        """Start Xvfb on `:number`; returns the number once it is ready, or '' when it could not start."""
        read_fd, write_fd = os.pipe()
        width, height = self.size
        xvfb = subprocess.Popen(
            [
                "Xvfb",
                f":{number}",
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                f"{width}x{height}x{settings.DISPLAY_DEPTH}",
                "-nolisten",
                "tcp",
                "-ac",
                "-noreset",
                "+extension",
                "RANDR",
            ],
            pass_fds=(write_fd,),
            env=dict(env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(write_fd)
        self._procs.append(xvfb)
        try:
            return _read_line(read_fd, settings.DISPLAY_START_TIMEOUT_S)
        finally:
            os.close(read_fd)

    def _wait_until_connectable(self, env: Mapping[str, str]) -> None:
        """Xvfb can report its number before clients can connect; wait until one can."""
        deadline = time.monotonic() + settings.DISPLAY_START_TIMEOUT_S
        while subprocess.run(["xprop", "-root"], env=dict(env), capture_output=True).returncode != 0:
            exited = self._procs[0].poll() if self._procs else None
            if exited is not None or time.monotonic() >= deadline:
                self.stop()
                state = f"it exited with code {exited}" if exited is not None else "no client could connect"
                raise SandboxError(f"Xvfb reported display {self.name} but {state}")
            time.sleep(0.05)

    def _start_window_manager(self, env: Mapping[str, str]) -> None:
        manager = next((wm for wm in WINDOW_MANAGERS if shutil.which(wm)), None)
        if manager is None:
            raise SandboxError(f"no window manager found (tried {', '.join(WINDOW_MANAGERS)})")
        proc = subprocess.Popen(
            [manager],
            env=dict(env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._procs.append(proc)
        deadline = time.monotonic() + settings.DISPLAY_START_TIMEOUT_S
        while time.monotonic() < deadline:  # the manager is up once it owns the root window's WM selection
            probe = subprocess.run(
                ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=dict(env), capture_output=True, text=True
            )
            if "window id" in probe.stdout:
                return
            if proc.poll() is not None:
                raise SandboxError(f"{manager} exited at start (code {proc.returncode})")
            time.sleep(0.1)

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
