"""A private X display: Xvfb on a free display number, and optionally a window manager."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time
from collections.abc import Mapping

from sandbox.base import SandboxError
from stateact import settings

WINDOW_MANAGERS = ("openbox", "xfwm4", "fluxbox", "matchbox-window-manager")


class XDisplay:
    """Starts Xvfb with `-displayfd` so the server itself picks a free display number."""

    def __init__(self, size: tuple[int, int] = settings.DISPLAY_SIZE, window_manager: bool = True) -> None:
        self.size = size
        self.window_manager = window_manager
        self.name = ""
        self._procs: list[subprocess.Popen] = []

    def start(self, env: Mapping[str, str]) -> str:
        if shutil.which("Xvfb") is None:
            raise SandboxError("Xvfb is not installed; run the set-up command from README.md")
        read_fd, write_fd = os.pipe()
        width, height = self.size
        xvfb = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                f"{width}x{height}x{settings.DISPLAY_DEPTH}",
                "-nolisten",
                "tcp",
                "-ac",
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
            number = _read_line(read_fd, settings.DISPLAY_START_TIMEOUT_S)
        finally:
            os.close(read_fd)
        if not number:
            self.stop()
            raise SandboxError("Xvfb did not report a display number in time")
        self.name = f":{number}"
        if self.window_manager:
            self._start_window_manager({**env, "DISPLAY": self.name})
        return self.name

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


def _read_line(fd: int, timeout: float) -> str:
    """Read up to the newline. Xvfb writes the number and the newline separately, and dies of
    SIGPIPE if the pipe is closed between the two writes."""
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 64) if ready else b""
        if not chunk:
            break
        data += chunk
    return data.decode().strip() if data.endswith(b"\n") else ""
