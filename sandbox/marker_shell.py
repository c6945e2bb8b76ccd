"""A persistent shell reporting through a prompt marker: the marker bash prints after every
command, its parsing, and the run / interrupt / restart / died handling built on a backend's own steps.

bash's PROMPT_COMMAND prints `__SA_<nonce>__<exit code>__<cwd>__END` on a line
of its own. The nonce makes the marker impossible to print by accident. Shell
backends (sandbox/bash_session.py over pexpect, sandbox/relay_shell.py inside a
VM) feed terminal text in as it arrives and take out finished commands or, at a
soft timeout, the partial output so far.
"""

from __future__ import annotations

import re
import secrets
import signal
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from stateact.sandbox import settings
from stateact.sandbox.base import ShellOutput

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
"""Environment that keeps programs from paging, colouring or asking questions."""

EXIT_NOTE = "the shell exited (did the command run `exit`, or fail under `set -e`?); "
INTERRUPTED_NOTE = "interrupted"

_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


def clean_terminal_text(text: str) -> str:
    """Normalize newlines and remove escape sequences and control characters."""
    text = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL_CHARS.sub("", text)


def restart_note(cwd: str) -> str:
    return f"the shell was restarted in {cwd}; variables, functions and background jobs were lost"


class PromptMarker:
    """One shell's marker and the text read from it that is not yet returned.

    The search for the marker is incremental: each call scans only text not searched
    before, so a command printing many megabytes costs linear time.
    """

    def __init__(self) -> None:
        self.marker = f"__SA_{secrets.token_hex(6)}__"
        self._pattern = re.compile(rf"{self.marker}(-?\d+)__(.*?)__END\r?\n")
        self.pending = ""
        self._scan_from = 0

    @property
    def prompt_command(self) -> str:
        """A bash assignment that makes every prompt print the marker.

        PS1 and PS2 are emptied at each prompt too: scripts such as a virtualenv's
        `activate` set them, and the prompt text would otherwise leak into output.
        """
        return f'PROMPT_COMMAND=\'printf "\\n{self.marker}%d__%s__END\\n" $? "$PWD"; PS1= PS2=\''

    def feed(self, text: str) -> None:
        self.pending += text

    def finished(self) -> ShellOutput | None:
        """The cleaned output of a finished command (marker found); None while it runs."""
        start = self.pending.find(self.marker, self._scan_from)
        if start < 0:
            self._scan_from = max(0, len(self.pending) - len(self.marker) + 1)
            return None
        self._scan_from = start  # the marker's line may still be arriving
        match = self._pattern.match(self.pending, start)
        if match is None:
            return None
        output = self.pending[:start].removesuffix("\n").removesuffix("\r")  # the newline printf puts first
        self._take(match.end())
        return ShellOutput(clean_terminal_text(output), int(match.group(1)), match.group(2))

    def partial(self) -> str:
        """Output so far, holding back a last line that could be the start of a marker."""
        keep = self.pending.rfind("\n")
        if keep < 0 or not self.marker.startswith(self.pending[keep + 1 :]):
            keep = len(self.pending)
        return clean_terminal_text(self._take(keep))

    def drain(self) -> str:
        """Everything not yet returned (the shell died)."""
        return clean_terminal_text(self._take(len(self.pending)))

    def _take(self, end: int) -> str:
        """Remove and return the pending text up to `end`; the rest is searched afresh."""
        text, self.pending = self.pending[:end], self.pending[end:]
        self._scan_from = 0
        return text


class MarkerShell(ABC):
    """Interrupt escalation, restart and death handling for a shell that reports through a PromptMarker."""

    cwd: str
    _start_cwd: str
    _marker: PromptMarker
    _busy: bool

    @property
    def busy(self) -> bool:
        """True while a command started earlier has not finished."""
        return self._busy

    def run(self, command: str, timeout: float = settings.BASH_SOFT_TIMEOUT_S) -> ShellOutput:
        """Start `command` and wait up to `timeout` for it; a longer command returns `running=True`."""
        if self._busy:
            raise RuntimeError("a command is still running")
        self._send_command(command)
        self._busy = True
        return self._collect(timeout)

    def wait(self, timeout: float = settings.BASH_SOFT_TIMEOUT_S) -> ShellOutput:
        """Wait more for the running command; returns what it printed since the last call."""
        return self._collect(timeout)

    def send_input(self, text: str, timeout: float = settings.BASH_SOFT_TIMEOUT_S) -> ShellOutput:
        """Type text into the running command (a newline is not added)."""
        if text:
            self._type(text)
        return self._collect(timeout)

    @abstractmethod
    def _send_command(self, command: str) -> None:
        """Make bash run `command` (any length and shape) as if typed."""

    @abstractmethod
    def _type(self, text: str) -> None:
        """Write `text` to the shell's terminal as typed keys."""

    @abstractmethod
    def _spawn(self) -> None:
        """Start bash in `self._start_cwd` and wait for its first prompt."""

    @abstractmethod
    def _collect(self, timeout: float) -> ShellOutput: ...

    @abstractmethod
    def _interrupt_steps(self) -> Sequence[Callable[[], None]]:
        """Ever stronger ways to stop the running command (Ctrl-C first)."""

    @abstractmethod
    def _is_dir(self, path: str) -> bool: ...

    @abstractmethod
    def close(self) -> None: ...

    def interrupt(self, grace_s: float = settings.BASH_INTERRUPT_GRACE_S) -> ShellOutput:
        """Each of `_interrupt_steps` in turn, waiting `grace_s` for the prompt after it; then a restart."""
        collected = ""
        for attempt, step in enumerate(self._interrupt_steps()):
            step()
            out = self._collect(grace_s)
            collected += out.output
            if not out.running:
                if attempt:  # commands are sourced: a `trap '' INT` would outlive the command it guarded
                    self.run("trap - INT QUIT", grace_s)
                return ShellOutput(collected, out.exit_code, out.cwd, note=INTERRUPTED_NOTE)
        restarted = self.restart()
        return ShellOutput(collected, None, restarted.cwd, note=restarted.note)

    def restart(self) -> ShellOutput:
        """Start a fresh shell in the last known working directory."""
        last_cwd = self.cwd
        self.close()
        if self._is_dir(last_cwd):
            self._start_cwd = last_cwd
        self._spawn()
        return ShellOutput("", None, self.cwd, note=restart_note(self.cwd))

    def _take_finished(self) -> ShellOutput | None:
        """The finished command's output, if its marker has arrived; the shell is then idle."""
        done = self._marker.finished()
        if done is not None:
            self._busy = False
            self.cwd = done.cwd
        return done

    def _died(self, exit_code: int | None = None) -> ShellOutput:
        """The shell process ended: what it printed last, its exit code if known, and a fresh shell."""
        leftover = self._marker.drain()
        restarted = self.restart()
        return ShellOutput(leftover, exit_code, restarted.cwd, note=EXIT_NOTE + restarted.note)


def restore_default_signals() -> None:
    """Run in a shell's child process before exec: Python ignores SIGPIPE and SIGXFSZ, and bash cannot
    reset a signal ignored when it started, so `yes | head -1` would print "Broken pipe" and fail."""
    for number in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(number, signal.SIG_DFL)
