"""The exit codes of `stateact run` and `stateact resume`: one definition, documented in docs/runs.md."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a run's exit status says."""

    DONE = 0
    """The task finished and the gate passed (or the variant has no gate, or the gate could not decide:
    `gate_passed` None); an infeasible claim the gate confirmed."""
    GATE_FAILED = 1
    """The agent finished but the gate did not pass its work within the allowed rounds."""
    USAGE = 2
    """Bad command line or configuration; nothing ran."""
    ERROR = 3
    """The harness could not do its part: a provider error, a task setup or scoring error, a crash."""
    BUDGET = 4
    """A turn, dollar or time budget ran out."""
    STOPPED = 5
    """The agent stopped without calling finish."""
    INTERRUPTED = 130
    """Ctrl-C: the run was stopped, cleaned up, and can be resumed."""
    TERMINATED = 143
    """SIGTERM: as Ctrl-C."""


STATUS_CODES = {
    "budget": ExitCode.BUDGET,
    "error": ExitCode.ERROR,
    "replied": ExitCode.STOPPED,
    "interrupted": ExitCode.INTERRUPTED,
}


def exit_code_for(status: str, gate_passed: bool | None) -> ExitCode:
    """The exit code of a run that ended with `status` and gate verdict `gate_passed`."""
    if status == "finished":
        return ExitCode.GATE_FAILED if gate_passed is False else ExitCode.DONE
    return STATUS_CODES.get(status, ExitCode.ERROR)
