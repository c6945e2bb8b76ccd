"""A persistent bash driven through a pseudo-terminal with pexpect.

Each command is written to a script file and sourced, so commands of any length
and shape (heredocs, multi-line functions) behave as if typed, and exactly one
prompt marker follows each. The marker carries the exit code and the working
directory. Reading happens with a large `maxread` and no send delay.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from shlex import quote as _quote

import pexpect

from sandbox.base import ShellOutput
from stateact import settings

NONINTERACTIVE_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "SYSTEMD_PAGER": "",
    "LESS": "-R",
    "DEBIAN_FRONTEND": "noninteractive",
    "TERM": "dumb",
    "NO_COLOR": "1",
    "CLICOLOR": "0",
    "PIP_NO_INPUT": "1",
    "PIP_PROGRESS_BAR": "off",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": "true",
    "PYTHONUNBUFFERED": "1",
}

_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


def clean_terminal_text(text: str) -> str:
    """Normalize newlines and remove escape sequences and control characters."""
    text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL_CHARS.sub("", text)


class BashSession:
    """One bash process behind a pty. Not thread-safe; one caller at a time."""

    def __init__(
        self,
        scratch_dir: Path,
        cwd: str,
        env: Mapping[str, str] | None = None,
        argv: list[str] | None = None,
    ) -> None:
        self._scratch = Path(scratch_dir)
        self._scratch.mkdir(parents=True, exist_ok=True)
        self._start_cwd = cwd
        self._env = {**os.environ, **(env or {}), **NONINTERACTIVE_ENV}
        self._argv = argv or ["bash", "--noprofile", "--norc", "--noediting", "-i"]
        self._counter = itertools.count(1)
        self._script_prefix = f"cmd_{secrets.token_hex(3)}"  # shells sharing a scratch folder never collide
        self._child: pexpect.spawn | None = None
        self._marker_re: re.Pattern[str] | None = None
        self._marker = ""
        self._pending = ""
        self._scan_from = 0
        self._busy = False
        self.cwd = cwd
        self._spawn()

    # -- lifecycle -------------------------------------------------------
    def _spawn(self) -> None:
        nonce = secrets.token_hex(6)
        marker = f"__SA_{nonce}__"
        self._marker = marker
        self._marker_re = re.compile(rf"{marker}(-?\d+)__(.*?)__END\r?\n")
        self._scan_from = 0
        self._child = pexpect.spawn(
            self._argv[0],
            self._argv[1:],
            cwd=self._start_cwd,
            env=self._env,
            encoding="utf-8",
            codec_errors="replace",
            echo=False,
            maxread=settings.BASH_MAXREAD,
            searchwindowsize=None,
            dimensions=(50, 200),
        )
        self._child.delaybeforesend = None
        setup = (
            "stty -echo -onlcr 2>/dev/null; unset HISTFILE; export PS1='' PS2='' PS0=''; "
            f'PROMPT_COMMAND=\'printf "\\n{marker}%d__%s__END\\n" $? "$PWD"; PS1= PS2=\''
        )
        self._child.sendline(setup)
        self._busy = True
        self._collect(settings.BASH_SOFT_TIMEOUT_S)
        if self._busy:
            raise RuntimeError("bash did not start: no prompt within the timeout")

    def close(self) -> None:
        if self._child is not None and self._child.isalive():
            self._child.close(force=True)
        self._child = None

    @property
    def busy(self) -> bool:
        """True while a command started earlier has not finished."""
        return self._busy

    # -- commands ----------------------------------------------------------
    def run(self, command: str, timeout: float = settings.BASH_SOFT_TIMEOUT_S) -> ShellOutput:
        if self._busy:
            raise RuntimeError("a command is still running")
        script = self._scratch / f"{self._script_prefix}_{next(self._counter)}.sh"
        script.write_text(command + "\n", encoding="utf-8")
        self._child.sendline(f". {_quote(str(script))}")
        self._busy = True
        return self._collect(timeout)

    def wait(self, timeout: float = settings.BASH_SOFT_TIMEOUT_S) -> ShellOutput:
        """Wait more for the running command; returns what it printed since the last call."""
        return self._collect(timeout)

    def send_input(self, text: str, timeout: float = settings.BASH_SOFT_TIMEOUT_S) -> ShellOutput:
        """Type text into the running command (a newline is not added)."""
        self._child.send(text)
        return self._collect(timeout)

    def interrupt(self) -> ShellOutput:
        """Ctrl-C, then SIGQUIT, then SIGKILL of the foreground group, then a restart.

        When Ctrl-C alone was not enough, the shell's INT and QUIT traps are reset:
        commands are sourced, so a `trap '' INT` would otherwise outlive its command.
        """
        collected = ""
        for attempt, step in enumerate((self._send_ctrl_c, self._send_sigquit, self._kill_foreground)):
            step()
            out = self._collect(settings.BASH_INTERRUPT_GRACE_S)
            collected += out.output
            if not out.running:
                if attempt:
                    self.run("trap - INT QUIT", settings.BASH_INTERRUPT_GRACE_S)
                return ShellOutput(collected, out.exit_code, out.cwd, note="interrupted")
        restarted = self.restart()
        return ShellOutput(collected, None, restarted.cwd, note=restarted.note)

    def restart(self) -> ShellOutput:
        """Start a fresh shell in the last known working directory."""
        last_cwd = self.cwd
        self.close()
        self._start_cwd = last_cwd if os.path.isdir(last_cwd) else self._start_cwd
        self._spawn()
        return ShellOutput(
            "",
            None,
            self.cwd,
            note=f"the shell was restarted in {self.cwd}; variables, functions and background jobs were lost",
        )

    # -- internals -----------------------------------------------------------
    def _send_ctrl_c(self) -> None:
        self._child.sendintr()

    def _send_sigquit(self) -> None:
        self._child.sendcontrol("\\")

    def _kill_foreground(self) -> None:
        try:
            pgid = os.tcgetpgrp(self._child.child_fd)
            if pgid != self._child.pid:
                os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass

    def _collect(self, timeout: float) -> ShellOutput:
        """Read until the prompt marker, the timeout or a memory-bounding amount of output."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            match = self._find_marker()
            if match:
                output = self._pending[: match.start()]
                output = output[:-1] if output.endswith("\n") else output
                self._pending = self._pending[match.end() :]
                self._scan_from = 0
                self._busy = False
                self.cwd = match.group(2)
                return ShellOutput(clean_terminal_text(output), int(match.group(1)), self.cwd)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or len(self._pending) >= settings.BASH_COLLECT_CAP_CHARS:
                break
            try:
                self._pending += self._child.read_nonblocking(
                    settings.BASH_MAXREAD, timeout=min(remaining, 0.5)
                )
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                return self._died()
        # Hold back a tail that could be the start of a marker; return the rest as partial output.
        keep = self._pending.rfind("\n")
        if keep < 0 or not self._marker.startswith(self._pending[keep + 1 :]):
            keep = len(self._pending)
        partial, self._pending = self._pending[:keep], self._pending[keep:]
        self._scan_from = 0
        return ShellOutput(clean_terminal_text(partial), None, self.cwd, running=True)

    def _find_marker(self) -> re.Match[str] | None:
        """The prompt marker line in the pending text, scanning only text not searched before."""
        start = self._pending.find(self._marker, self._scan_from)
        if start < 0:
            self._scan_from = max(0, len(self._pending) - len(self._marker) + 1)
            return None
        self._scan_from = start  # the marker's line may still be arriving
        return self._marker_re.match(self._pending, start)

    def _died(self) -> ShellOutput:
        leftover = clean_terminal_text(self._pending)
        self._pending = ""
        self._scan_from = 0
        self._child.close(force=True)
        status = self._child.exitstatus
        restarted = self.restart()
        return ShellOutput(
            leftover,
            status,
            restarted.cwd,
            note="the shell exited (did the command run `exit`, or fail under `set -e`?); " + restarted.note,
        )
