"""The prompt marker a persistent bash prints after every command, and its parsing.

bash's PROMPT_COMMAND prints `__SA_<nonce>__<exit code>__<cwd>__END` on a line
of its own. The nonce makes the marker impossible to print by accident. Shell
backends feed terminal text in as it arrives and take out finished commands or,
at a soft timeout, the partial output so far.
"""

from __future__ import annotations

import re
import secrets

from sandbox.base import ShellOutput

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

    def finished(self, clean) -> ShellOutput | None:
        """The output of a finished command (marker found), cleaned with `clean`; None while it runs."""
        match = self._pattern.search(self.pending)
        if match is None:
            return None
        output = self.pending[: match.start()]
        self.pending = self.pending[match.end() :]
        return ShellOutput(clean(output), int(match.group(1)), match.group(2))

    def partial(self, clean) -> str:
        """Output so far, holding back a last line that could be the start of a marker."""
        keep = self.pending.rfind("\n")
        if keep < 0 or not self.marker.startswith(self.pending[keep + 1 :]):
            keep = len(self.pending)
        text, self.pending = self.pending[:keep], self.pending[keep:]
        return clean(text)

    def drain(self, clean) -> str:
        """Everything not yet returned (the shell died)."""
        text, self.pending = self.pending, ""
        return clean(text)
