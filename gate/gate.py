"""FinishGate: a fresh, narration-blind, read-only reviewer that the finish tool consults.

    gate = FinishGate(context, task_started_at=sandbox_clock(context.sandbox))  # at the task's start
    FinishTool(context, gate=gate)   # each finish call is one gate.review() round

Each round: a deterministic pre-gate (no model call; a failure is a FAIL verdict), then a
fingerprint and snapshot of the task's files, then a fresh AgentLoop (scope `gate#N`, N the round
whether or not its pre-gate passed, logged as `gate_pregate`; role `gate`) whose only input is the
round's number and how earlier rounds ended, the verbatim instruction (`context.task`) plus file
facts and the pre-gate's notes, with
read-only tools, ending in a `verdict` call. Afterwards any change to the task's files is
recorded as a `gate_violation` event and undone from the snapshot. After `max_rounds`
FAIL rounds the gate is exhausted and the run ends with the last verdict.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from gate import settings as gate_settings
from gate.deliverables import MentionedPath, cell_references, mentioned_paths
from gate.pregate import OPEN_DOCUMENT_RULE, run_pregate
from gate.probes import ProbeError, run_probe
from gate.snapshot import Snapshot
from gate.tools import PROBE_TOOLS, ReadOnlyShell, Screenshot, VerdictTool
from gate.verdict import CheckItem, Finding, Verdict
from sandbox.base import Sandbox
from stateact import settings
from stateact.context_policy import build_context_manager
from stateact.loop import AgentLoop, Budget, LoopOutcome
from stateact.models import ProviderError
from stateact.runtime import RunContext
from stateact.tools.base import Tool
from stateact.tools.edit import EditTool

PROMPTS = Path(__file__).parent / "prompts"


class FinishGate:
    """Bounded review rounds over the deliverable the task instruction names."""

    def __init__(
        self,
        context: RunContext,
        max_rounds: int = settings.GATE_MAX_ROUNDS,
        task_started_at: float | None = None,
        deliverables: Sequence[str] | None = None,
    ) -> None:
        """`task_started_at`: epoch seconds on the sandbox's clock when the task began (enables the
        "changed since the task started" check). `deliverables`: the output paths when the harness knows
        them; by default they are read from the instruction."""
        self.context = context
        self.max_rounds = max_rounds
        self.task_started_at = task_started_at
        self.paths = (
            [MentionedPath(p, True) for p in deliverables]
            if deliverables is not None
            else mentioned_paths(context.task)
        )
        self.verdicts: list[Verdict] = []

    def resume_from(self, events: Iterable[dict]) -> None:
        """Take back the rounds of a resumed run from its logged `gate_verdict` events."""
        self.verdicts = [Verdict.from_dict(e) for e in events if e.get("kind") == "gate_verdict"]

    @property
    def rounds_used(self) -> int:
        return len(self.verdicts)

    @property
    def last_verdict(self) -> Verdict | None:
        return self.verdicts[-1] if self.verdicts else None

    @property
    def exhausted(self) -> bool:
        """True once `max_rounds` rounds ended in FAIL: the run ends with the last verdict."""
        return self.rounds_used >= self.max_rounds and not self.verdicts[-1].passed

    def review(self) -> Verdict:
        """Run one round and return its verdict; once exhausted, returns the last verdict again."""
        if self.exhausted or self.rounds_used >= self.max_rounds:
            return self.verdicts[-1]
        number = self.rounds_used + 1
        scope = f"gate#{number}"
        log = self.context.log
        log.emit(
            "gate_start",
            scope,
            round=number,
            max_rounds=self.max_rounds,
            paths=[{"path": p.path, "output": p.output} for p in self.paths],
            task_started_at=self.task_started_at,
        )
        pregate = run_pregate(self.context.sandbox, self.paths, self.task_started_at)
        log.emit("gate_pregate", scope, round=number, failed=bool(pregate.findings), notes=pregate.notes)
        if pregate.findings:
            verdict = Verdict(
                passed=False,
                findings=pregate.findings,
                round=number,
                source="pregate",
                summary="The deterministic file check failed before any review.",
            )
        else:
            verdict = self._model_round(number, scope, pregate.facts, pregate.notes)
        self.verdicts.append(verdict)
        log.emit(
            "gate_verdict", scope, **verdict.to_dict(), rounds_used=self.rounds_used, exhausted=self.exhausted
        )
        return verdict

    # -- one model round ------------------------------------------------------------
    def _model_round(self, number: int, scope: str, facts: list[dict], notes: list[str]) -> Verdict:
        try:
            model = self.context.provider("gate")
        except (ProviderError, ValueError) as exc:
            return _undecided(
                number, [], "the gate's model could not be set up", f"{type(exc).__name__}: {exc}"
            )
        snapshot = self._take_snapshot(scope, [p.path for p in self.paths])
        loop = AgentLoop(
            scope=scope,
            role="gate",
            model=model,
            tools=self._tools(),
            system_prompt=self._system_prompt(),
            log=self.context.log,
            meter=self.context.meter,
            budget=Budget(
                max_turns=gate_settings.GATE_MAX_TURNS,
                max_usd=self.context.meter.total_usd + gate_settings.GATE_MAX_USD,
                max_seconds=gate_settings.GATE_MAX_SECONDS,
            ),
            context=build_context_manager(self.context, model.name),
        )
        try:
            outcome = loop.run(self._round_line(number) + self._task_text(facts, notes))
        finally:
            loop.close_tools()
            violations = self._undo_changes(scope, number, snapshot)
        return _verdict_from(outcome, number, violations)

    def _round_line(self, number: int) -> str:
        """Which round this is, and how the earlier ones ended (the scope `gate#N` numbers rounds)."""
        line = f"Finish gate round {number} of {self.max_rounds}."
        earlier = [
            f"round {v.round} {'failed at the file check, before any review' if v.source == 'pregate' else 'was reviewed'}"
            for v in self.verdicts
        ]
        return line + (f" Earlier: {'; '.join(earlier)}." if earlier else "") + "\n\n"

    def _tools(self) -> list[Tool]:
        sandbox = self.context.sandbox
        return [
            ReadOnlyShell(sandbox),
            EditTool(self.context, read_only=True),
            Screenshot(sandbox),
            *(tool(sandbox) for tool in PROBE_TOOLS),
            VerdictTool(),
        ]

    def _system_prompt(self) -> str:
        start = ""
        if self.task_started_at is not None:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.task_started_at))
            start = f" The task started at {stamp} (epoch {self.task_started_at:.0f}); files the task asks for must be newer."
        template = (PROMPTS / "gate.md").read_text(encoding="utf-8")
        return template.format(
            home=self.context.sandbox.home, start_line=start, open_document_rule=OPEN_DOCUMENT_RULE
        )

    def _task_text(self, facts: list[dict], notes: list[str]) -> str:
        briefs = [_brief_fact(f) for f in facts]
        refs = cell_references(self.context.task)
        for brief, fact in zip(briefs, facts, strict=True):
            if refs and fact.get("exists") and fact.get("extension") in ("xlsx", "xlsm"):
                brief["cells_named_in_the_instruction"] = self._named_cells(fact["resolved"], refs)
        lines = [json.dumps(b, ensure_ascii=False) for b in briefs] or ["(no file paths named)"]
        template = (PROMPTS / "task.md").read_text(encoding="utf-8")
        recent, open_documents = self._home_state()
        return template.format(
            instruction=self.context.task,
            facts="\n".join(lines),
            notes="\n".join(f"- {n}" for n in notes) or "(none)",
            recent=recent,
            open_documents=open_documents,
        )

    def _named_cells(self, path: str, refs: list[str]) -> list | str:
        try:
            found = run_probe(self.context.sandbox, "named_cells", path=path, refs=refs)
        except ProbeError as exc:
            return f"(could not read: {exc})"
        return found.get("cells", found.get("error", ""))

    def _home_state(self) -> tuple[str, str]:
        """(files changed since the task started, documents open in LibreOffice) as text lines."""
        try:
            found = run_probe(self.context.sandbox, "home_state", since=self.task_started_at)
        except ProbeError as exc:
            found = {"error": str(exc)}
        if "error" in found:
            problem = f"(could not list: {found['error']})"
            return problem, problem
        recent = [f"{f['modified']}  {f['path']}" for f in found["recent"]] or ["(none)"]
        if found["more"]:
            recent.append(f"... and {found['more']} more")
        if self.task_started_at is None:
            recent = ["(unknown: no task start time)"]
        return "\n".join(recent), "\n".join(found["open_in_libreoffice"]) or "(none)"

    def _take_snapshot(self, scope: str, files: list[str]) -> Snapshot | None:
        try:
            snapshot = Snapshot.take(self.context.sandbox, files)
        except (ProbeError, RuntimeError) as exc:  # the guard still applies; the round goes on without undo
            self.context.log.emit("gate_snapshot_error", scope, error=f"{type(exc).__name__}: {exc}")
            return None
        self.context.log.emit("gate_snapshot", scope, **snapshot.summary)
        return snapshot

    def _undo_changes(self, scope: str, number: int, snapshot: Snapshot | None) -> list[str]:
        """Record and undo whatever the round changed in the task's files."""
        if snapshot is None:
            return []
        try:
            check = snapshot.check_and_restore()
        except (ProbeError, RuntimeError) as exc:
            self.context.log.emit("gate_snapshot_error", scope, error=f"{type(exc).__name__}: {exc}")
            return [f"unknown: the after-check failed ({exc})"]
        violations = check.violations()
        if violations:
            self.context.log.emit(
                "gate_violation",
                scope,
                round=number,
                changes=violations,
                restored=check.restored,
                removed=check.removed,
                not_restored=check.failed,
            )
        return violations


def sandbox_clock(sandbox: Sandbox) -> float | None:
    """The sandbox's clock in epoch seconds (a VM's clock may differ from the host's); None if unreadable."""
    result = sandbox.run("date +%s.%N")
    try:
        return float(result.stdout.strip())
    except ValueError:
        return None


def _brief_fact(fact: dict) -> dict:
    keep = ("path", "resolved", "exists", "size", "mtime_text", "modified_after_start", "format", "lock_file")
    brief = {k: fact[k] for k in keep if k in fact and fact[k] is not None}
    if brief.get("resolved") == brief.get("path"):
        del brief["resolved"]
    for key in ("same_name_elsewhere", "formula_recalc"):
        if fact.get(key):
            brief[key] = fact[key]
    return brief


def _verdict_from(outcome: LoopOutcome, number: int, violations: list[str]) -> Verdict:
    data = outcome.data if outcome.status == "finished" else {}
    if "verdict" not in data:
        return _undecided(
            number, violations, "the gate ended without a verdict", f"{outcome.status}: {outcome.text[:300]}"
        )
    if data["verdict"] == "PASS" and violations:
        return _undecided(
            number,
            violations,
            "the gate changed the task's files during its review (undone since), so its PASS judged a state "
            "that no longer exists and was discarded",
            "; ".join(violations[:10]),
        )
    return Verdict(
        passed=data["verdict"] == "PASS",
        findings=[Finding.model_validate(f) for f in data.get("findings", [])],
        round=number,
        violations=violations,
        source="model",
        checklist=[CheckItem.model_validate(c) for c in data.get("checklist", [])],
        summary=data.get("summary", ""),
    )


def _undecided(number: int, violations: list[str], problem: str, evidence: str) -> Verdict:
    return Verdict(
        passed=gate_settings.GATE_UNDECIDED_PASSES,
        findings=[Finding(problem=problem, location="finish gate", evidence=evidence)],
        round=number,
        violations=violations,
        source="undecided",
    )
