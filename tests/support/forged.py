"""What a confined reader taken over by a hostile file could answer: a pickle that runs a command in
whatever process unpickles it (stateact.kernel.confined must refuse it)."""

from __future__ import annotations

import os


class RunsACommand:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (self.command,)


def forged_answer(marker: str) -> RunsACommand:
    """An answer that, unpickled, creates the file `marker`."""
    return RunsACommand(f"touch {marker}")
