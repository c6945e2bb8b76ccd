"""LocalSandbox: the task runs as host processes in a work folder that is its home."""

from __future__ import annotations

import io
import os
import secrets
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from sandbox.base import CommandResult, Sandbox, SandboxError, Shell
from sandbox.bash_session import BashSession
from sandbox.display import XDisplay
from sandbox.marker_shell import NONINTERACTIVE_ENV
from sandbox.office_profile import install_office_profile
from sandbox.processes import TAG_VARIABLE, kill_tagged
from sandbox.toolkit import TOOLKIT_BIN
from stateact import settings


class LocalSandbox(Sandbox):
    """A work folder (the task's home), an optional private Xvfb display, and the processes started in it."""

    shares_host_files = True

    def __init__(
        self,
        workdir: Path,
        display: bool = False,
        size: tuple[int, int] = settings.DISPLAY_SIZE,
        window_manager: bool = True,
    ) -> None:
        self.home = str(Path(workdir).resolve())
        self.toolkit_dir = str(TOOLKIT_BIN)
        self.tag = secrets.token_hex(8)
        self._display = XDisplay(size, window_manager) if display else None
        self._shells: list[BashSession] = []
        self._launched: list[subprocess.Popen] = []
        self.env: dict[str, str] = {}
        self._started = False

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        if self._started:
            return
        Path(self.home).mkdir(parents=True, exist_ok=True)
        install_office_profile(Path(self.home))
        path_entries = [self.toolkit_dir, str(Path(sys.executable).parent), os.environ.get("PATH", "")]
        self.env = {
            **os.environ,
            **NONINTERACTIVE_ENV,
            "HOME": self.home,
            "PATH": os.pathsep.join(p for p in path_entries if p),
            TAG_VARIABLE: self.tag,
        }
        self.env.pop("DISPLAY", None)
        self.env.pop("XDG_CONFIG_HOME", None)  # settings live under the home (LibreOffice's profile)
        self._started = True
        if self._display is not None:
            try:
                self.env["DISPLAY"] = self._display.start(self.env)
                # python-xlib (pyautogui) refuses to connect when the home has no X authority file.
                Path(self.home, ".Xauthority").touch()
            except BaseException:
                self.close()
                raise

    def close(self) -> None:
        for shell in self._shells:
            shell.close()
        self._shells.clear()
        for proc in self._launched:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        self._launched.clear()
        if self._display is not None:
            self._display.stop()
        kill_tagged(self.tag)
        self._started = False

    @property
    def display(self) -> str | None:
        return self.env.get("DISPLAY")

    # -- paths -------------------------------------------------------------------
    def path_variables(self) -> Mapping[str, str]:
        return self.env

    def resolve(self, path: str) -> Path:
        """The host path of a sandbox path (they are the same file system; see `expand`)."""
        return Path(self.expand(path))

    def exists(self, path: str) -> bool:
        return self.resolve(path).exists()

    # -- commands ------------------------------------------------------------------
    def run(self, command: str, timeout: float = 60.0) -> CommandResult:
        proc = self._spawn_bash(command, subprocess.PIPE)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            out, err = proc.communicate()
            return CommandResult(124, _text(out), _text(err) + f"\n[timed out after {timeout:.0f}s]")
        return CommandResult(proc.returncode, _text(out), _text(err))

    def run_python(self, code: str, timeout: float = 60.0) -> CommandResult:
        self._require_started()
        try:
            proc = subprocess.run(
                [sys.executable, "-c", code],
                cwd=self.home,
                env=self.env,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as exc:
            return CommandResult(124, _text(exc.stdout or b""), f"[timed out after {timeout:.0f}s]")
        return CommandResult(proc.returncode, _text(proc.stdout), _text(proc.stderr))

    def launch(self, command: str) -> None:
        self._launched.append(self._spawn_bash(command, subprocess.DEVNULL))

    def _spawn_bash(self, command: str, output: int) -> subprocess.Popen:
        """`bash -c command` in the home folder, in a session of its own, with no input."""
        self._require_started()
        return subprocess.Popen(
            ["bash", "-c", command],
            cwd=self.home,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )

    def open_shell(self, scratch_dir: Path) -> Shell:
        self._require_started()
        shell = BashSession(scratch_dir, cwd=self.home, env=self.env)
        self._shells.append(shell)
        return shell

    # -- files ---------------------------------------------------------------------
    def read_file(self, path: str) -> bytes:
        return self.resolve(path).read_bytes()

    def write_file(self, path: str, data: bytes) -> None:
        target = self.resolve(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

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

    def _require_display(self) -> str:
        if not self.display:
            raise SandboxError("this sandbox has no display; start it with display=True (CLI: --display)")
        return self.display

    def _require_started(self) -> None:
        if not self._started:
            raise SandboxError("the sandbox is not started")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")
