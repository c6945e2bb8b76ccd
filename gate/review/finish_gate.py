"""FinishGate: a fresh, narration-blind, read-only reviewer that the finish tool consults.

    prepare_gate(context)            # at a run's fresh start: the baseline of the task's files
    gate = FinishGate(context)
    FinishTool(context, gate=gate)   # each finish call is one gate.review() round

Each round: a deterministic pre-gate (no model call; a failure is a FAIL verdict), then a
fingerprint and snapshot of the task's files, then a fresh AgentLoop (scope `gate#N`, N the round
whether or not its pre-gate passed, logged as `gate_pregate`; role `gate`) whose only input is the
round's number and how earlier rounds ended, the verbatim instruction (`context.task`) plus file
facts and the pre-gate's notes, with
read-only tools, ending in a `verdict` call. Afterwards any change to the task's files is
recorded as a `gate_violation` event and undone from the snapshot. After `max_rounds`
FAIL rounds the gate is exhausted and the run ends with the last verdict.

A claim that the task is infeasible (`review(infeasible_claim=...)`) is judged the same way,
without the pre-gate's findings: the gate model checks that what the claim says is missing is.

A round that ends without a valid verdict (no verdict within budget, a model error, too many
rejected verdict calls, a PASS voided by the gate's own changes) is undecided: the gate's failure,
not the agent's. It uses none of the agent's rounds; a fresh round starts at once (up to
`GATE_UNDECIDED_RETRIES`), and if that is undecided too the verdict has `passed=None` and the finish
is accepted unreviewed (a `gate_undecided` event). A round spends from the run's dollar budget (with
its own smaller cap, `GATE_MAX_USD`); once that budget is spent no fresh round starts and the finish
tool hands the run back to the main loop, which stops on its budget.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from stateact.gate import settings as gate_settings
from stateact.gate.events import (
    GatePregate,
    GateSnapshot,
    GateSnapshotError,
    GateStart,
    GateUndecided,
    GateVerdict,
    GateViolation,
)
from stateact.gate.inspect.changes import describe_changes, take_baseline
from stateact.gate.inspect.deliverables import MentionedPath, mentioned_paths
from stateact.gate.inspect.facts import fact_briefs
from stateact.gate.inspect.pregate import OPEN_DOCUMENT_RULE, run_pregate
from stateact.gate.inspect.probes import ProbeError, run_probe
from stateact.gate.inspect.snapshot import Snapshot
from stateact.gate.inspect.verdict import Finding, Verdict
from stateact.gate.review.tools import (
    PROBE_TOOLS,
    RejectedVerdicts,
    ReviewVerdict,
    Screenshot,
    VerdictTool,
    gate_shell,
)
from stateact.gate.review.web_read import web_tools_for_gate
from stateact.kernel.events import Event
from stateact.kernel.loop import Budget, LoopOutcome, LoopSpec
from stateact.kernel.models import ProviderError
from stateact.kernel.prompts.loader import render_prompt
from stateact.kernel.roles import numbered_scope
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.ask_user import clarifications, logged_exchanges
from stateact.kernel.tools.base import Tool
from stateact.kernel.tools.edit import EditTool

ROLE = "gate"
PROMPTS = Path(__file__).parent / "prompts"


def prepare_gate(context: RunContext) -> None:
    """The gate's part of a run's fresh start (the `gate` role's `prepare`): the baseline its rounds
    compare the task's files with, timed by the run's start (`context.task_started_at`)."""
    take_baseline(context.sandbox, context.run_dir, context.task, context.log, context.task_started_at)


class FinishGate:
    """Bounded review rounds over the deliverable the task instruction names."""

    def __init__(
        self,
        context: RunContext,
        max_rounds: int = gate_settings.GATE_MAX_ROUNDS,
        task_started_at: float | None = None,
        deliverables: Sequence[str] | None = None,
    ) -> None:
        """`task_started_at`: epoch seconds on the sandbox's clock when the task began (enables the
        "changed since the task started" check; default: the run's, `context.task_started_at`). `deliverables`: the output paths when the harness knows
        them; by default they are read from the instruction."""
        self.context = context
        self.max_rounds = max_rounds
        self.task_started_at = context.task_started_at if task_started_at is None else task_started_at
        self.paths = (
            [MentionedPath(p, True) for p in deliverables]
            if deliverables is not None
            else mentioned_paths(context.task)
        )
        self.verdicts: list[Verdict] = []

    def resume_from(self, events: Iterable[Event]) -> None:
        """Take back the rounds of a resumed run from its logged `gate_verdict` events."""
        self.verdicts = [Verdict.from_dict(e.model_dump()) for e in events if isinstance(e, GateVerdict)]

    @property
    def rounds_used(self) -> int:
        """Rounds that reached a verdict (undecided rounds use none of the agent's rounds)."""
        return sum(v.passed is not None for v in self.verdicts)

    @property
    def last_verdict(self) -> Verdict | None:
        return self.verdicts[-1] if self.verdicts else None

    @property
    def exhausted(self) -> bool:
        """True once `max_rounds` rounds ended in FAIL: the run ends with the last verdict."""
        decided = [v for v in self.verdicts if v.passed is not None]
        return len(decided) >= self.max_rounds and not decided[-1].passed

    def review(self, infeasible_claim: str | None = None) -> Verdict:
        """Judge the deliverable, or the claim that the task is infeasible (the agent's stated reason).

        Runs a round, and fresh ones after an undecided round (see the module docstring); once the
        rounds are used up, returns the last decided verdict again."""
        if self.rounds_used >= self.max_rounds:
            return [v for v in self.verdicts if v.passed is not None][-1]
        for _ in range(gate_settings.GATE_UNDECIDED_RETRIES + 1):
            verdict = self._round(infeasible_claim)
            if verdict.passed is not None or self.context.dollars_spent:
                return verdict  # no fresh round on a spent budget: the run stops on it
        self.context.log.emit(
            GateUndecided(
                scope=numbered_scope(ROLE, verdict.round),
                attempts=gate_settings.GATE_UNDECIDED_RETRIES + 1,
                problem=verdict.findings[0].problem if verdict.findings else "",
            )
        )
        return verdict

    def _round(self, infeasible_claim: str | None) -> Verdict:
        number = len(self.verdicts) + 1
        scope = numbered_scope(ROLE, number)
        log = self.context.log
        log.emit(
            GateStart(
                scope=scope,
                round=number,
                max_rounds=self.max_rounds,
                paths=[{"path": p.path, "output": p.output} for p in self.paths],
                task_started_at=self.task_started_at,
                infeasible_claim=infeasible_claim,
            )
        )
        pregate = run_pregate(self.context.sandbox, self.paths, self.task_started_at)
        log.emit(GatePregate(scope=scope, round=number, failed=bool(pregate.findings), notes=pregate.notes))
        if pregate.findings and infeasible_claim is None:
            verdict = Verdict(
                passed=False,
                findings=pregate.findings,
                round=number,
                source="pregate",
                summary="The deterministic file check failed before any review.",
            )
        else:
            verdict = self._model_round(number, scope, pregate.facts, pregate.notes, infeasible_claim)
        self.verdicts.append(verdict)
        log.emit(
            GateVerdict(
                scope=scope, **verdict.to_dict(), rounds_used=self.rounds_used, exhausted=self.exhausted
            )
        )
        return verdict

    # -- one model round ------------------------------------------------------------
    def _model_round(
        self, number: int, scope: str, facts: list[dict], notes: list[str], claim: str | None
    ) -> Verdict:
        try:
            model = self.context.provider(ROLE)
        except (ProviderError, ValueError) as exc:
            return _undecided(
                number, [], "the gate's model could not be set up", f"{type(exc).__name__}: {exc}"
            )
        snapshot = self._take_snapshot(scope, [p.path for p in self.paths])
        budget = Budget(
            max_turns=gate_settings.GATE_MAX_TURNS,
            max_usd=self.context.dollar_budget(gate_settings.GATE_MAX_USD),
            max_seconds=gate_settings.GATE_MAX_SECONDS,
        )
        tools = self._tools()
        system = self._system_prompt({tool.name for tool in tools})
        spec = LoopSpec(scope, tools, system, budget, role=ROLE, opening=self._opening())
        loop = self.context.loop(spec, model=model)
        try:
            outcome = loop.run(self._round_line(number) + self._task_text(facts, scope, notes, claim))
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
            gate_shell(sandbox),
            EditTool(self.context, read_only=True),
            Screenshot(sandbox),
            *(tool(sandbox) for tool in PROBE_TOOLS),
            *web_tools_for_gate(self.context),
            VerdictTool(),
        ]

    def _system_prompt(self, tools: set[str]) -> str:
        """The gate's prompt: the same for every round, run and task (so its prefix is read from the
        cache); its web part names only the web tools this round has."""
        return render_prompt(
            PROMPTS / "gate.md", open_document_rule=OPEN_DOCUMENT_RULE, web_values=web_values_section(tools)
        )

    def _opening(self) -> str:
        """What the round's first message says before the task: the home folder and the task's start."""
        line = f"The machine's home folder is `{self.context.sandbox.home}`."
        if self.task_started_at is None:
            return line
        millis = round(self.task_started_at * 1000)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(millis // 1000))
        return (
            f"{line} The task started at {stamp}.{millis % 1000:03d} (epoch {millis / 1000:.3f}); files the "
            "task asks for must be newer."
        )

    def _task_text(self, facts: list[dict], scope: str, notes: list[str], claim: str | None = None) -> str:
        briefs = fact_briefs(self.context.sandbox, self.context.task, facts)
        lines = [json.dumps(b, ensure_ascii=False) for b in briefs] or ["(no file paths named)"]
        recent, open_documents = self._home_state()
        answers = clarifications(logged_exchanges(self.context.log.events_path))
        return render_prompt(
            PROMPTS / ("infeasible.md" if claim is not None else "task.md"),
            {"clarifications"} if answers else set(),
            instruction=self.context.task,
            clarifications=answers,
            claim=claim or "",
            facts="\n".join(lines),
            notes="\n".join(f"- {n}" for n in notes) or "(none)",
            recent=recent,
            open_documents=open_documents,
            changes=describe_changes(
                self.context.sandbox, self.context.run_dir, self.context.log, scope, self.context.task
            ),
        )

    def _home_state(self) -> tuple[str, str]:
        """(files changed since the task started, documents open in LibreOffice) as text lines."""
        try:
            found = run_probe(
                self.context.sandbox,
                "home_state",
                since=self.task_started_at,
                skip=list(gate_settings.GATE_CHANGED_FILES_SKIP),
            )
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
            self.context.log.emit(GateSnapshotError(scope=scope, error=f"{type(exc).__name__}: {exc}"))
            return None
        self.context.log.emit(GateSnapshot(scope=scope, **snapshot.summary))
        return snapshot

    def _undo_changes(self, scope: str, number: int, snapshot: Snapshot | None) -> list[str]:
        """Record and undo whatever the round changed in the task's files."""
        if snapshot is None:
            return []
        try:
            check = snapshot.check_and_restore()
        except (ProbeError, RuntimeError) as exc:
            self.context.log.emit(GateSnapshotError(scope=scope, error=f"{type(exc).__name__}: {exc}"))
            return [f"unknown: the after-check failed ({exc})"]
        violations = check.violations()
        if violations:
            self.context.log.emit(
                GateViolation(
                    scope=scope,
                    round=number,
                    changes=violations,
                    restored=check.restored,
                    removed=check.removed,
                    not_restored=check.failed,
                )
            )
        return violations


def web_values_section(tools: set[str]) -> str:
    """The prompt's "Web values" part for a round with these tools ("" when it has no web tool)."""
    reads = []
    if "read_page" in tools:
        reads.append(
            "`read_page(url)` reads a page of the task's sites (GET only; other sites are refused), and "
            "`read_page(url, render=true)` reads it after its JavaScript ran, for pages whose content is built "
            "by scripts (read_page says when a page looks script-built); follow the page's own links to its "
            "other pages (next page, page 2 of 3) the same way"
        )
    if "web_pages" in tools:
        reads.append(
            "`web_pages` lists and shows the pages the web subagent's browser saw, JavaScript-rendered content "
            "included (only those it visited)"
        )
    if not reads:
        return ""
    return (
        "## Web values\nWhen the task is about a web page, compare the deliverable with the page itself. "
        + "; ".join(reads)
        + ". In the shell, `curl -sL URL` (to stdout only) works too.\n"
    )


def _verdict_from(outcome: LoopOutcome, number: int, violations: list[str]) -> Verdict:
    if rejected := outcome.ending_as(RejectedVerdicts):
        return _undecided(
            number,
            violations,
            f"the gate's verdict calls were rejected {len(rejected.reasons)} times",
            rejected.reasons[-1][:300],
        )
    ended = outcome.ending_as(ReviewVerdict)
    if ended is None:
        return _undecided(
            number, violations, "the gate ended without a verdict", f"{outcome.status}: {outcome.text[:300]}"
        )
    if ended.verdict == "PASS" and violations:
        return _undecided(
            number,
            violations,
            "the gate changed the task's files during its review (undone since), so its PASS judged a state "
            "that no longer exists and was discarded",
            "; ".join(violations[:10]),
        )
    return Verdict(
        passed=ended.verdict == "PASS",
        findings=list(ended.findings),
        round=number,
        violations=violations,
        source="model",
        checklist=list(ended.checklist),
        summary=ended.summary,
    )


def _undecided(number: int, violations: list[str], problem: str, evidence: str) -> Verdict:
    return Verdict(
        passed=None,
        findings=[Finding(problem=problem, location="finish gate", evidence=evidence)],
        round=number,
        violations=violations,
        source="undecided",
    )
