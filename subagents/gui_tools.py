"""The tools of a screenshot-driven loop: `computer` acts and looks; `done`, `fail` and `report_progress`
(`subagents.endings`) end it, in the words of `SCREEN_WORDS`."""

from __future__ import annotations

import time

from stateact.kernel.messages import ToolSpec
from stateact.kernel.tools.base import Tool, ToolResult
from subagents import settings
from subagents.endings import EndingWords
from subagents.gui_actions import ActionError, ComputerAction, action_code
from subagents.scaler import CoordinateError
from subagents.screen import Screen

ERROR_TAIL_CHARS = 1500


class ComputerTool(Tool[ComputerAction]):
    """Runs one action on the sandbox's display and answers with a fresh screenshot."""

    name = "computer"
    description = (
        "Act on the screen with the mouse and keyboard, or look at it. Every call returns a new screenshot. "
        "Coordinates are pixels of the latest screenshot: [x, y] with (0, 0) at the top-left corner."
    )
    Input = ComputerAction

    def __init__(self, screen: Screen, settle_s: float = settings.GUI_SETTLE_S) -> None:
        self.screen = screen
        self.settle_s = settle_s
        self.spent = False
        """Set when the step budget is spent: actions are then refused."""

    def spec(self) -> ToolSpec:
        """The function schema, plus a request for the provider's native computer tool at the screenshot size."""
        width, height = self.screen.scaler.model
        return (
            super()
            .spec()
            .model_copy(update={"native": {"kind": "computer", "width": width, "height": height}})
        )

    def run(self, params: ComputerAction) -> ToolResult:
        if self.spent:
            return ToolResult.error("The step budget is spent: no more actions. Call `report_progress`.")
        if params.action == "zoom":
            return self._zoom(params)
        try:
            code = action_code(params, self.screen.scaler)
        except (CoordinateError, ActionError) as exc:
            return ToolResult.error(f"{params.action} not done: {exc}")
        if code is not None:
            outcome = self.screen.sandbox.run_python(code, timeout=settings.GUI_ACTION_TIMEOUT_S)
            if not outcome.ok:
                return ToolResult(
                    text=f"{params.summary()} failed (exit {outcome.returncode}): "
                    f"{outcome.stderr[-ERROR_TAIL_CHARS:].strip()}\nThe screen now:",
                    images=(self.screen.capture(),),
                    is_error=True,
                )
        if params.action == "wait":
            time.sleep(params.duration if params.duration is not None else settings.GUI_WAIT_DEFAULT_S)
        elif code is not None:
            time.sleep(self.settle_s)
        return ToolResult(
            text=f"Done: {params.summary()}. The screen now:",
            images=(self.screen.capture(),),
        )

    def _zoom(self, params: ComputerAction) -> ToolResult:
        try:
            image, size = self.screen.scaler.zoom_png(self.screen.sandbox.screenshot(), params.region)
        except CoordinateError as exc:
            return ToolResult.error(f"zoom not done: {exc}")
        return ToolResult(
            text=f"Zoomed view of the region, shown at {size[0]}x{size[1]}. Its pixels are NOT screen "
            "coordinates: keep using the coordinates of the full screenshot.",
            images=(image,),
        )


SCREEN_WORDS = EndingWords(
    done="The goal is achieved and you have seen the result on the screen. Ends your work.",
    fail="The goal cannot be achieved (it is impossible, or the screen blocks it in a way you cannot get "
    "past). Ends your work.",
    fields={
        "summary": "What was achieved, and what you saw on the screen that shows it (only what you saw).",
        "reason": "Why the goal cannot be achieved, and what you saw that shows it.",
        "verified": "What you saw on the screen that is done. Nothing you did not see.",
        "facts": "Each fact you were asked to bring back, exactly as the screen shows it.",
    },
)
"""The wording of the screenshot loops (the GUI subagent and the pixel harness)."""
