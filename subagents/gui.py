"""The GUI subagent: a fresh screenshot loop for one visual subgoal, and the main agent's `delegate_gui` tool.

    DelegateGuiTool(context)                      # give it to the main agent
    run_gui_subgoal(context, subgoal, brief, scope="gui#1") -> GuiReport

The subagent sees only the subgoal, the short brief the main agent wrote and
the screen. It ends with `done` or `fail`; when its step budget is spent it is
asked once for what it verified on screen and what remains (INCOMPLETE).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from pydantic import BaseModel, Field

from stateact.events import GuiBudgetSpent, GuiReportEvent, GuiScreenshotFailed
from stateact.loop import Budget, LoopOutcome
from stateact.runtime import RunContext
from stateact.tools.base import Tool, ToolResult
from subagents import settings
from subagents.gui_tools import ReportProgressTool
from subagents.screen_loop import ScreenLoop, build_screen_loop


@dataclass(frozen=True)
class GuiReport:
    """What a delegation comes back with. status: DONE | FAIL | INCOMPLETE | ERROR (its model call failed)."""

    scope: str
    status: str
    detail: str
    """DONE: what was achieved and seen; FAIL: why; INCOMPLETE: what was verified on screen."""
    remaining: str
    """INCOMPLETE only: what is left, or why the subagent stopped."""
    steps: int
    budget: int
    screenshot: str
    """Path of the final screenshot in the run folder (empty if none could be taken)."""

    def text(self) -> str:
        lines = [f"GUI subagent {self.scope}: {self.status}"]
        if self.status == "DONE":
            lines.append(f"Achieved (seen on screen): {self.detail}")
        elif self.status in ("FAIL", "ERROR"):
            lines.append(f"Why: {self.detail}")
        else:
            lines.append(f"Verified on screen: {self.detail or 'nothing reported'}")
            lines.append(f"Remaining: {self.remaining}")
        lines.append(f"Steps used: {self.steps} of {self.budget}")
        lines.append(f"Final screenshot: {self.screenshot or '(none)'}")
        return "\n".join(lines)


def brief_text(subgoal: str, brief: str) -> str:
    """The subagent's whole task: the subgoal and the main agent's short context, nothing else."""
    text = f"Your subgoal: {subgoal.strip()}"
    if brief.strip():
        text += f"\n\nContext from the agent that delegated it:\n{brief.strip()}"
    return text


def run_gui_subgoal(
    context: RunContext,
    subgoal: str,
    brief: str = "",
    *,
    scope: str = "gui",
    budget: int = settings.GUI_MAX_STEPS,
) -> GuiReport:
    """Run a fresh GUI subagent on one subgoal and report truthfully how it went."""
    loop = build_screen_loop(
        context,
        scope=scope,
        role="gui",
        prompt="gui",
        budget=Budget(
            max_turns=budget, max_usd=context.dollar_budget(), max_seconds=settings.GUI_MAX_SECONDS
        ),
    )
    outcome = loop.run(brief_text(subgoal, brief))
    steps = loop.turns
    if outcome.status == "budget":
        outcome = _ask_for_progress(loop, outcome)
    report = GuiReport(
        scope=scope,
        steps=min(steps, budget),
        budget=budget,
        screenshot=_final_screenshot(loop),
        **_status(outcome),
    )
    context.log.emit(GuiReportEvent(scope=scope, report=asdict(report)))
    loop.close_tools()
    return report


def _ask_for_progress(loop: ScreenLoop, spent: LoopOutcome) -> LoopOutcome:
    """One last turn, with actions refused, for the subagent to say what it verified and what remains."""
    loop.computer.spent = True
    progress = ReportProgressTool()
    loop.tools[progress.name] = progress
    loop.budget = replace(loop.budget, max_turns=loop.turns + 1, max_seconds=None)
    loop.log.emit(GuiBudgetSpent(scope=loop.scope, reason=spent.text))
    outcome = loop.resume()
    if outcome.status == "finished":
        return outcome
    return LoopOutcome("budget", spent.text, loop.turns, {"why": "gave no progress report"})


def _status(outcome: LoopOutcome) -> dict:
    data = outcome.data
    if outcome.status == "finished" and data.get("status") == "DONE":
        return {"status": "DONE", "detail": data["summary"], "remaining": ""}
    if outcome.status == "finished" and data.get("status") == "FAIL":
        return {"status": "FAIL", "detail": data["reason"], "remaining": ""}
    if outcome.status == "finished":
        return {"status": "INCOMPLETE", "detail": data["verified"], "remaining": data["remaining"]}
    if outcome.status == "budget":
        return {"status": "INCOMPLETE", "detail": "", "remaining": f"{outcome.text}; {data.get('why', '')}"}
    if outcome.status == "replied":
        return {
            "status": "INCOMPLETE",
            "detail": "",
            "remaining": f"stopped without calling done or fail; its last words: {outcome.text[:1000]}",
        }
    if outcome.status == "error":
        return {"status": "ERROR", "detail": f"the GUI agent's {outcome.text}", "remaining": ""}
    return {"status": "INCOMPLETE", "detail": "", "remaining": f"stopped: {outcome.text}"}


def _final_screenshot(loop: ScreenLoop) -> str:
    try:
        png = loop.screen.sandbox.screenshot()
    except Exception as exc:  # the report must come back even if the display is gone
        loop.log.emit(GuiScreenshotFailed(scope=loop.scope, error=f"{type(exc).__name__}: {exc}"))
        return ""
    return str(loop.log.save_image(png, loop.scope.replace("#", "-") + "_final"))


class DelegateInput(BaseModel):
    subgoal: str = Field(
        description="One visual subgoal with a result that can be seen on the screen, e.g. 'In the open "
        "Calc window, drag the chart so its top-left corner is at cell H2'."
    )
    context: str = Field(
        "",
        description="Short facts the GUI agent needs (which app and window, file names, exact values, what "
        "you already tried). It sees nothing of your history.",
    )


class DelegateGuiTool(Tool[DelegateInput]):
    """The main agent's way to get an irreducibly visual subgoal done by the GUI subagent."""

    name = "delegate_gui"
    description = (
        "Hand one irreducibly visual subgoal (drag on a canvas, a dialog or setting no script reaches, a modal "
        "blocking an app) to a GUI agent that sees the screen and uses the mouse and keyboard. It starts "
        "fresh: say everything it needs in `subgoal` and `context`. It returns a report: DONE, FAIL with "
        "why, or INCOMPLETE with what it verified on screen and what remains. Check the resulting program "
        "state yourself afterwards."
    )
    Input = DelegateInput

    def __init__(self, context: RunContext, budget: int = settings.GUI_MAX_STEPS) -> None:
        self.context = context
        self.budget = budget

    def run(self, params: DelegateInput) -> ToolResult:
        report = run_gui_subgoal(
            self.context,
            params.subgoal,
            params.context,
            scope=self.context.log.next_scope("gui"),
            budget=self.budget,
        )
        return ToolResult(text=report.text(), data=asdict(report), is_error=report.status == "ERROR")
