"""The GUI subagent: a fresh screenshot loop for one visual subgoal, and the main agent's `delegate_gui` tool.

    DelegateGuiTool(context)                      # give it to the main agent
    run_gui_subgoal(context, subgoal, brief, scope="gui#1") -> SubagentReport (subagents/delegation.py)

The subagent sees only the subgoal, the short brief the main agent wrote and
the screen. It ends with `done` or `fail`; when its step budget is spent it is
asked once for what it verified on screen and what remains (INCOMPLETE).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from stateact.kernel.loop import LoopOutcome
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.subagents import settings
from stateact.subagents.delegation import (
    DONE,
    ERROR,
    FAIL,
    INCOMPLETE,
    ReportForm,
    SubagentReport,
    brief_text,
    delegation_budget,
    run_delegation,
)
from stateact.subagents.events import GuiBudgetSpent, GuiScreenshotFailed
from stateact.subagents.screen_loop import ScreenLoop, build_screen_loop

GUI_FORM = ReportForm(
    "GUI",
    "GUI subagent {scope}: {status}",
    {DONE: "Achieved (seen on screen): ", FAIL: "Why: ", ERROR: "Why: ", INCOMPLETE: "Verified on screen: "},
    steps_line=True,
)


def run_gui_subgoal(
    context: RunContext,
    subgoal: str,
    brief: str = "",
    *,
    scope: str = "gui",
    budget: int = settings.GUI_MAX_STEPS,
) -> SubagentReport:
    """Run a fresh GUI subagent on one subgoal and report truthfully how it went."""
    loop = build_screen_loop(
        context,
        scope=scope,
        role="gui",
        prompt="gui",
        budget=delegation_budget(context, budget, settings.GUI_MAX_SECONDS),
    )
    try:
        return run_delegation(
            loop,
            brief_text(subgoal, brief),
            GUI_FORM,
            wrap_up=_ask_for_progress,
            evidence=lambda: {"screenshot": _final_screenshot(loop)},
        )
    finally:
        loop.close_tools()


def _ask_for_progress(loop: ScreenLoop, spent: LoopOutcome) -> LoopOutcome:
    """One last turn, with actions refused, for the subagent to say what it verified and what remains."""
    loop.log.emit(GuiBudgetSpent(scope=loop.scope, reason=spent.text))
    outcome = loop.report_progress()
    if outcome.status == "finished":
        return outcome
    return LoopOutcome("budget", f"{spent.text}; gave no progress report", loop.turns)


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
        "Hand one irreducibly visual subgoal to a GUI agent that sees the screen and uses the mouse and "
        "keyboard. It starts fresh: say everything it needs in `subgoal` and `context`. It reports DONE, FAIL "
        "with why, or INCOMPLETE with what it verified on screen and what remains."
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
        return report.tool_result()
