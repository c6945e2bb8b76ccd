"""What the judge knows of a rollout: evidence read from its final state, never its narration.

    started_at = take_start(sandbox, folder, instruction)   # before the agent's first turn
    ...                                                      # the rollout runs
    evidence = collect_evidence(sandbox, folder, instruction, run_dir, started_at)

`take_start` copies the task's files into `folder/start/` (the gate's baseline, `gate.inspect.changes`), taken
by the judge itself so every harness variant has one. `collect_evidence` reads, while the rollout's
sandbox is still open: the structured state diff against that start, the deliverables' facts and the
deterministic file check's findings (`gate.inspect.pregate`), and from the run folder only the run's status
and the finish gate's last verdict (PASS/FAIL, checklist, findings): the gate is narration-blind, so
its verdict is state evidence too. The agent's messages, plan, summary and final text are never read.
The evidence is saved as `folder/evidence.json`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from stateact.gate.events import GateVerdict
from stateact.gate.inspect.changes import BaselineError, load_baseline, render, state_diff, take_baseline
from stateact.gate.inspect.deliverables import mentioned_paths
from stateact.gate.inspect.facts import fact_briefs
from stateact.gate.inspect.pregate import run_pregate
from stateact.gate.inspect.probes import ProbeError
from stateact.kernel.events import read_events
from stateact.kernel.runlog import RunLog
from stateact.sandbox.base import Sandbox

START_FOLDER = "start"
EVIDENCE_FILE = "evidence.json"
PASSING_STATUS = "finished"
"""The run status of a rollout that ended by calling `finish`."""


@dataclass
class Evidence:
    """One rollout's final state as the judge sees it."""

    status: str
    """The run's status (finished, replied, budget, error, interrupted); `error` when there is no run."""
    home: str = ""
    """The rollout's home folder as its processes saw it (each rollout has its own)."""
    gate_passed: bool | None = None
    """The finish gate's last verdict; None: no gate, or it could not decide."""
    checklist: list[dict] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    """The gate's findings and the deterministic file check's."""
    facts: list[dict] = field(default_factory=list)
    """Facts of the files the instruction names (exists, size, format, modified after the start...), with
    a workbook's values of the cells the instruction names."""
    changes: str = ""
    """The state diff against the start, as text."""

    @property
    def passed(self) -> bool:
        """Finished by calling `finish`, and neither the gate nor the file check failed it."""
        return self.status == PASSING_STATUS and self.gate_passed is not False

    def save(self, folder: Path) -> None:
        (Path(folder) / EVIDENCE_FILE).write_text(json.dumps(asdict(self), ensure_ascii=False, indent=1))


def take_start(sandbox: Sandbox, folder: Path, instruction: str) -> float | None:
    """Record the start state of a rollout in `folder/start/`; returns the start on the sandbox's clock."""
    started_at = sandbox.clock()
    log = RunLog(Path(folder) / START_FOLDER)
    try:
        take_baseline(sandbox, Path(folder) / START_FOLDER, instruction, log, started_at)
    finally:
        log.close()
    return started_at


def collect_evidence(
    sandbox: Sandbox, folder: Path, instruction: str, run_dir: Path | None, started_at: float | None
) -> Evidence:
    """Read a finished rollout's final state from its open sandbox; saved in `folder`."""
    evidence = Evidence(status=_run_status(run_dir), home=sandbox.home)
    if run_dir is not None:
        _read_gate(evidence, Path(run_dir))
    pregate = run_pregate(sandbox, mentioned_paths(instruction), started_at)
    evidence.facts = fact_briefs(sandbox, instruction, pregate.facts)
    evidence.findings += [{"source": "file check", **f.model_dump()} for f in pregate.findings]
    if pregate.findings:
        evidence.gate_passed = False
    evidence.changes = _changes(sandbox, Path(folder))
    evidence.save(folder)
    return evidence


def load_evidence(folder: Path) -> Evidence | None:
    """The evidence a rollout saved, or None when it saved none (its job failed before)."""
    try:
        return Evidence(**json.loads((Path(folder) / EVIDENCE_FILE).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def _run_status(run_dir: Path | None) -> str:
    try:
        return str(json.loads((Path(run_dir) / "result.json").read_text()).get("status", "error"))
    except (TypeError, OSError, ValueError, AttributeError):
        return "error"


def _read_gate(evidence: Evidence, run_dir: Path) -> None:
    events = run_dir / "events.jsonl"
    if not events.is_file():
        return
    verdicts = [e for e in read_events(events, lenient=True) if isinstance(e, GateVerdict)]
    if not verdicts:
        return
    last = verdicts[-1]
    evidence.gate_passed = last.passed
    evidence.checklist = list(last.checklist)
    evidence.findings = [{"source": "finish gate", **f} for f in last.findings]


def _changes(sandbox: Sandbox, folder: Path) -> str:
    baseline = load_baseline(folder / START_FOLDER)
    if baseline is None:
        return "(unknown: the start state could not be recorded)"
    try:
        return render(state_diff(sandbox, baseline))
    except (BaselineError, ProbeError, OSError, ValueError) as exc:
        return f"(could not compare with the start: {exc})"
