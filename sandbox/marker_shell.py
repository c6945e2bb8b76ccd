"""A persistent shell reporting through a prompt marker: the marker bash prints after every
command, its parsing, and the run / interrupt / restart / died handling built on a backend's own steps.

bash's PROMPT_COMMAND prints `__SA_<nonce>__<exit code>__<cwd>__END` on a line
of its own. The nonce makes the marker impossible to print by accident. Shell
backends feed terminal text in as it arrives and take out finished commands or,
at a soft timeout, the partial output so far.
"""

from __future__ import annotations

import re
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from sandbox.base import ShellOutput
from sandbox.bash_session import clean_terminal_text
from stateact import settings

EXIT_NOTE = "the shell exited (did the command run `exit`?); "
INTERRUPTED_NOTE = "interrupted"


def restart_note(cwd: str) -> str:
    return f"the shell was restarted in {cwd}; variables, functions and background jobs were lost"


class PromptMarker:
    """One shell's marker and the text read from it that is not yet returned."""

    def __init__(self) -> None:
        self.marker = f"__SA_{secrets.token_hex(6)}__"
        self._pattern = re.compile(rf"(?:\r?\n)?{self.marker}(-?\d+)__(.*?)__END\r?\n")
        self.pending = ""

    @property
    def prompt_command(self) -> str:
        """A bash assignment that makes every prompt print the marker."""
        return f'PROMPT_COMMAND=\'printf "\\n{self.marker}%d__%s__END\\n" $? "$PWD"\''

    def feed(self, text: str) -> None:
        self.pending += text

    def finished(self) -> ShellOutput | None:
        """The cleaned output of a finished command (marker found); None while it runs."""
        match = self._pattern.search(self.pending)
        if match is None:
            return None
        output = self.pending[: match.start()]
        self.pending = self.pending[match.end() :]
        return ShellOutput(clean_terminal_text(output), int(match.group(1)), match.group(2))

    def partial(self) -> str:
        """Output so far, holding back a last line that could be the start of a marker."""
        keep = self.pending.rfind("\n")
        if keep < 0 or not self.marker.startswith(self.pending[keep + 1 :]):
            keep = len(self.pending)
        text, self.pending = self.pending[:keep], self.pending[keep:]
        return clean_terminal_text(text)

    def drain(self) -> str:
        """Everything not yet returned (the shell died)."""
        text, self.pending = self.pending, ""
        return clean_terminal_text(text)


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

    @abstractmethod
    def _send_command(self, command: str) -> None:
        """Make bash run `command` (any length and shape) as if typed."""

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

    def _died(self) -> ShellOutput:
        leftover = self._marker.drain()
        restarted = self.restart()
        return ShellOutput(leftover, None, restarted.cwd, note=EXIT_NOTE + restarted.note)
