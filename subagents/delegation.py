"""What every subagent shares: the report a delegation comes back with, and the delegation.

    loop = context.loop(LoopSpec(scope, tools, prompt, delegation_budget(context, max_turns, max_seconds)))
    report = run_delegation(loop, brief_text(subgoal, context_text), GUI_FORM, evidence=...)  # its role's form
    return report.tool_result()

A delegation ends DONE or FAIL (the subagent's `done` or `fail`), INCOMPLETE (it stopped early: its
budget, a text reply, an interruption; with what it verified and what remains), or ERROR (its model
call failed). Each report is logged as a `<role>_report` event and reaches the main agent as text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from stateact.kernel import events
from stateact.kernel.loop import AgentLoop, Budget, LoopOutcome
from stateact.kernel.roles import role_of_scope
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import ToolResult
from stateact.subagents import settings
from stateact.subagents.endings import SubagentClaim
from stateact.subagents.events import SubagentReportEvent

DONE, FAIL, INCOMPLETE, ERROR = "DONE", "FAIL", "INCOMPLETE", "ERROR"
NOTHING_REPORTED = "nothing reported"
STOP_REASONS = {
    "budget": "it ran out of budget",
    "replied": "stopped without calling done or fail; its last words",
}
"""Why a loop that ended without `done` or `fail` stopped, by its outcome status (others: `stopped`)."""


@dataclass(frozen=True)
class ReportForm:
    """How one role's reports read to the main agent; the facts in them are the same for every role."""

    name: str
    """The subagent's name in the report: `GUI`, `Web`."""
    header: str
    """The first line, formatted with scope, status, steps and budget."""
    labels: dict[str, str]
    """Per status, what precedes the detail line."""
    steps_line: bool
    """Whether a closing `Steps used: N of M` line is printed (when the header does not say it)."""


@dataclass(frozen=True)
class SubagentReport:
    """What a delegation comes back with, as the main agent reads it."""

    form: ReportForm
    scope: str
    status: str
    """DONE, FAIL, INCOMPLETE or ERROR."""
    detail: str
    """DONE: what was achieved and seen; FAIL and ERROR: why; INCOMPLETE: what was verified."""
    remaining: str = ""
    """INCOMPLETE only: what is left, or why the subagent stopped."""
    steps: int = 0
    budget: int = 0
    last_note: str = ""
    """The subagent's latest text when it stopped early without a report."""
    facts: list[str] = field(default_factory=list)
    final_url: str | None = None
    """The browser's URL at the end (None: the role has no browser)."""
    downloads: list[str] = field(default_factory=list)
    screenshot: str | None = None
    """The final screenshot's path in the run folder ('': none could be taken; None: the role takes none):
    kept in the report event for the record, not in the text, as the delegating agent
    cannot open a file of the harness's run folder."""

    def text(self) -> str:
        form = self.form
        lines = [
            form.header.format(scope=self.scope, status=self.status, steps=self.steps, budget=self.budget)
        ]
        detail = self.detail or (NOTHING_REPORTED if self.status == INCOMPLETE else "")
        lines.append(form.labels[self.status] + detail)
        if self.status == INCOMPLETE:
            lines.append(f"Remaining: {self.remaining}")
        if self.last_note:
            lines.append(f"Its last note: {self.last_note}")
        if self.facts:
            lines += ["Facts:", *(f"- {fact}" for fact in self.facts)]
        if self.final_url is not None:
            lines.append(f"Final URL: {self.final_url}")
        if self.downloads:
            lines += ["Downloaded files:", *(f"- {path}" for path in self.downloads)]
        if form.steps_line:
            lines.append(f"Steps used: {self.steps} of {self.budget}")
        return "\n".join(lines)

    def event(self) -> SubagentReportEvent:
        """The report as its role's `<role>_report` event (`subagents.events.register_subagent`)."""
        fields = asdict(self)
        del fields["form"]
        kind = f"{role_of_scope(self.scope)}_report"
        event = events.EVENT_TYPES.get(kind)
        if event is None or not issubclass(event, SubagentReportEvent):
            raise ValueError(f"no report event {kind!r}: register the role with register_subagent")
        return event(**fields)

    def tool_result(self) -> ToolResult:
        return ToolResult(text=self.text(), is_error=self.status == ERROR)


def brief_text(subgoal: str, brief: str) -> str:
    """The subagent's task: the subgoal and the delegating agent's short context, nothing of its history."""
    text = f"Your subgoal: {subgoal.strip()}"
    if brief.strip():
        text += f"\n\nContext from the agent that delegated it:\n{brief.strip()}"
    return text


def delegation_budget(context: RunContext, max_turns: int, max_seconds: float) -> Budget:
    """A delegation's budget: its own turns and seconds (no more than the run has left), and what is
    left of the run's dollars."""
    return Budget(
        max_turns=max_turns, max_usd=context.dollar_budget(), max_seconds=context.seconds_left(max_seconds)
    )


def outcome_facts(outcome: LoopOutcome, name: str) -> dict:
    """Status, detail, remaining and facts of a loop's outcome (`name`: the subagent's, for an error)."""
    claim = outcome.ending_as(SubagentClaim)
    if claim is not None:
        return {
            "status": claim.status,
            "detail": claim.detail,
            "remaining": claim.remaining,
            "facts": list(claim.facts),
        }
    if outcome.status == "error":
        why = f"The {name} agent's {clip(outcome.text)}. Nothing it did was verified; check the state."
        return {"status": ERROR, "detail": why}
    reason = STOP_REASONS.get(outcome.status, "stopped")
    if outcome.text.strip():
        reason += f": {clip(outcome.text)}"
    return {"status": INCOMPLETE, "detail": "", "remaining": reason}


def run_delegation(
    loop: AgentLoop,
    task: str,
    form: ReportForm,
    *,
    wrap_up: Callable[[AgentLoop, LoopOutcome], LoopOutcome] | None = None,
    evidence: Callable[[], dict] = dict,
) -> SubagentReport:
    """Run `loop` on `task` and report truthfully how it went; the report is logged.

    wrap_up(loop, outcome): called when the turn budget is spent, for a last progress report.
    evidence(): the role's own report fields (screenshot, final URL, downloads), read at the end."""
    budget = loop.budget.max_turns
    outcome = loop.run(task)
    steps = min(loop.turns, budget)
    if outcome.status == "budget" and wrap_up is not None:
        outcome = wrap_up(loop, outcome)
    facts = outcome_facts(outcome, form.name)
    if outcome.status == "finished" and not facts.get("detail"):  # an ending that carries no text of its own
        facts["detail"] = _last_note(loop)
    report = SubagentReport(
        form,
        loop.scope,
        steps=steps,
        budget=budget,
        last_note=_last_note(loop) if outcome.status not in ("finished", "replied", "error") else "",
        **facts,
        **evidence(),
    )
    loop.log.emit(report.event())
    return report


def _last_note(loop: AgentLoop) -> str:
    """The subagent's latest text, when it left one."""
    text = next((m.text() for m in reversed(loop.messages) if m.role == "assistant" and m.text().strip()), "")
    return clip(text)


def clip(text: str) -> str:
    text = text.strip()
    limit = settings.REPORT_NOTE_CHARS
    return text if len(text) <= limit else text[:limit] + "…"
