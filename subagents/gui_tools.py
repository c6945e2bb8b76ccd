"""The tools of a screenshot-driven loop: `computer` acts and looks; `done`, `fail` and `report_progress`
(`subagents.endings`) end it, in the words of `SCREEN_WORDS`."""

from __future__ import annotations

import time
from dataclasses import replace

from stateact.kernel.messages import ToolSpec, ToolUseBlock
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.subagents import settings
from stateact.subagents.endings import EndingWords
from stateact.subagents.gui_actions import ActionError, ComputerAction, action_code
from stateact.subagents.scaler import CoordinateError
from stateact.subagents.screen import Screen

ERROR_TAIL_CHARS = 1500


COORDINATES = "Coordinates are pixels of the latest screenshot: [x, y] with (0, 0) at the top-left corner."
LAST_LOOKS = (
    "Act on the screen with the mouse and keyboard, or look at it. "
    + COORDINATES
    + " The calls of one reply "
    "are a batch, run in order: only the last answers with a screenshot (the others answer `Done.` or what "
    "went wrong), so end the batch where you need to see a result before going on. `screenshot` and `zoom` "
    "always answer with their image."
)
EVERY_LOOKS = (
    "Act on the screen with the mouse and keyboard, or look at it. Every call returns a new screenshot. "
    + COORDINATES
)
DONE = "Done."
"""The whole text of an action carried out."""


class ComputerTool(Tool[ComputerAction]):
    """Runs one action on the sandbox's display; it answers with a fresh screenshot when `look_after` is set
    (the screen loop clears it for all but the last action of a batch unless `every_action_looks`)."""

    name = "computer"
    description = LAST_LOOKS
    Input = ComputerAction

    def __init__(
        self, screen: Screen, settle_s: float = settings.GUI_SETTLE_S, *, every_action_looks: bool = False
    ) -> None:
        self.screen = screen
        self.settle_s = settle_s
        self.every_action_looks = every_action_looks
        self.description = EVERY_LOOKS if every_action_looks else LAST_LOOKS
        self.spent = False
        """Set when the step budget is spent: actions are then refused."""
        self.look_after = True
        """Whether the next action answers with a screenshot (`screenshot` and `zoom` always do)."""

    def spec(self) -> ToolSpec:
        """The function schema, plus a request for the provider's native computer tool at the screenshot size."""
        width, height = self.screen.scaler.model
        return (
            super()
            .spec()
            .model_copy(update={"native": {"kind": "computer", "width": width, "height": height}})
        )

    def invoke(self, call: ToolUseBlock) -> ToolResult:
        """Run a call; one that looks answers with the screen even when it was refused (a batch's earlier
        actions may have changed it)."""
        result = super().invoke(call)
        if self.look_after and not self.spent and not result.images:
            return replace(result, images=(self.screen.capture(),))
        return result

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
                return self._answer(
                    f"{params.summary()} failed (exit {outcome.returncode}): "
                    f"{outcome.stderr[-ERROR_TAIL_CHARS:].strip()}",
                    is_error=True,
                )
        if params.action == "wait":
            time.sleep(params.duration if params.duration is not None else settings.GUI_WAIT_DEFAULT_S)
        elif code is not None:
            time.sleep(self.settle_s)
        return self._answer(DONE, look=params.action == "screenshot")

    def _answer(self, text: str, *, is_error: bool = False, look: bool = False) -> ToolResult:
        """The result of an action: `text`, and the screen after it if this action looks."""
        images = (self.screen.capture(),) if look or self.look_after else ()
        return ToolResult(text=text, images=images, is_error=is_error)

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
