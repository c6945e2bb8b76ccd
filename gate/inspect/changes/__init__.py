"""What changed since the task started: a baseline of the task's files at the start, and a structured
diff of the state against it for each gate round."""

from __future__ import annotations

from pathlib import Path

from stateact.gate.events import GateChanges
from stateact.gate.inspect.changes.baseline import Baseline, BaselineError, load_baseline, take_baseline
from stateact.gate.inspect.changes.diff import StateDiff, state_diff
from stateact.gate.inspect.changes.remaining import texts_to_remove
from stateact.gate.inspect.changes.render import render
from stateact.kernel.runlog import RunLog
from stateact.sandbox.base import Sandbox

NO_BASELINE = "(unknown: no copy of the files was taken when the task started)"


def describe_changes(sandbox: Sandbox, run_dir: Path, log: RunLog, scope: str, instruction: str = "") -> str:
    """The state diff against the run's baseline as text, logged as a `gate_changes` event; with the
    `instruction`, it says where the texts it asks to replace or remove still occur."""
    baseline = load_baseline(run_dir)
    if baseline is None:
        return NO_BASELINE
    try:
        diff = state_diff(sandbox, baseline, texts_to_remove(instruction))
    except (BaselineError, OSError, ValueError) as exc:
        log.emit(GateChanges(scope=scope, error=f"{type(exc).__name__}: {exc}"))
        return f"(could not compare with the task start: {exc})"
    text = render(diff)
    log.emit(GateChanges(scope=scope, **diff.summary, chars=len(text)))
    return text


__all__ = [
    "Baseline",
    "StateDiff",
    "describe_changes",
    "load_baseline",
    "render",
    "state_diff",
    "take_baseline",
]
