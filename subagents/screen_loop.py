"""The screenshot-driven loop shared by the GUI subagent and the pixel harness."""

from __future__ import annotations

from pathlib import Path

from stateact.kernel.context.processors import CapOutputs, Processor, StripImages
from stateact.kernel.loop import AgentLoop, Budget, LoopOutcome, LoopSpec, batch_lookers
from stateact.kernel.messages import ImageBlock, TextBlock, ToolUseBlock
from stateact.kernel.prompts.loader import render_prompt
from stateact.kernel.runtime import RunContext
from stateact.subagents import settings
from stateact.subagents.action_formats import (
    WORDS,
    FormatWords,
    format_model,
    format_prompt,
    format_tools,
    format_words,
)
from stateact.subagents.endings import ReportProgressTool
from stateact.subagents.gui_tools import SCREEN_WORDS, ComputerTool
from stateact.subagents.nudge import SUBAGENT_NUDGE
from stateact.subagents.screen import Screen
from stateact.subagents.screen_settings import ActionFormat, ScreenSettings

PROMPTS = Path(__file__).parent / "prompts"


def budget_spent_note(words: FormatWords) -> str:
    """What the model is told once its step budget is spent, in its format's words."""
    return (
        "Your step budget is spent: actions are no longer carried out. Call "
        f"{words.report_progress} now with what you verified on the screen (only what you saw) and what "
        f"remains. If the latest screenshot shows the goal achieved, end with {words.done} instead."
    )


def load_prompt(name: str, action_format: ActionFormat = "tools") -> str:
    """A prompt file with its placeholders filled in for `action_format`: `{{screen_skills}}` (the shared
    screen-handling advice), `{{format}}` (how the format's model acts) and the format's words for
    ending, `{{done}}`, `{{fail}}` and `{{report_progress}}`."""
    words = format_words(action_format)
    return render_prompt(
        PROMPTS / f"{name}.md",
        screen_skills=render_prompt(PROMPTS / "screen_skills.md").rstrip(),
        format=format_prompt(action_format),
        done=words.done,
        fail=words.fail,
        report_progress=words.report_progress,
    )


class ScreenLoop(AgentLoop):
    """An AgentLoop whose opening message carries the current screenshot and whose turns are counted aloud."""

    def __init__(
        self,
        spec: LoopSpec,
        *,
        screen: Screen,
        computer: ComputerTool,
        words: FormatWords = WORDS["tools"],
        **kwargs,
    ) -> None:
        super().__init__(spec, **kwargs)
        self.screen = screen
        self.computer = computer
        self.words = words
        self.step_limit = self.budget.max_turns
        self._looks: set[str] = set()
        """The ids of the calls of the running batch that answer with a screenshot."""
        self.injections.append(self._step_note)

    def run(self, task: str | list[TextBlock | ImageBlock]) -> LoopOutcome:
        if isinstance(task, str):
            task = [
                TextBlock(text=f"{task}\n\n{self.screen.describe()}"),
                ImageBlock.from_bytes(self.screen.capture()),
            ]
        return super().run(task)

    def before_tools(self, calls: list[ToolUseBlock], cut_off: ToolUseBlock | None) -> None:
        """A batch: only its last `computer` call looks at the screen, unless every action does."""
        self._looks = batch_lookers(
            calls, cut_off, lambda call: call.name == self.computer.name, self.computer.every_action_looks
        )

    def before_tool(self, call: ToolUseBlock) -> None:
        self.computer.look_after = call.id in self._looks

    def report_progress(self) -> LoopOutcome:
        """Once the step budget is spent: one last turn, with actions refused, for the model to call
        `report_progress` (what it verified on screen and what remains) or `done`."""
        self.computer.spent = True
        self.allow_final_turn([ReportProgressTool(SCREEN_WORDS)])
        return self.resume()

    def _step_note(self) -> str:
        if self.computer.spent:
            return budget_spent_note(self.words)
        return f"Step {self.turns + 1} of {self.step_limit}."


def screen_processors(max_screenshots: int | None = None) -> list[Processor]:
    """The view of a screenshot loop: capped outputs and the newest screenshots, older ones stripped a
    chunk at a time (so the cached prompt prefix survives between chunks). With `max_screenshots` (a
    role's `keep_screenshots`) no request carries more, whatever the batching, and the chunks shrink
    to fit under it."""
    chunk = settings.GUI_SCREENSHOT_STRIP_CHUNK
    if max_screenshots is None:
        return [CapOutputs(), StripImages(keep=settings.GUI_KEEP_SCREENSHOTS, chunk=chunk)]
    return [CapOutputs(), StripImages.capped(max_screenshots, chunk)]


def build_screen_loop(
    context: RunContext, *, scope: str, role: str, prompt: str, budget: Budget
) -> ScreenLoop:
    """A loop that sees the sandbox's screen and acts on it with `computer`, ending with `done` or `fail`
    (or the equivalents of the role's native action format)."""
    options = ScreenSettings.of(context.models.settings_for(role))
    screen = Screen(context.sandbox, options=options)
    computer = ComputerTool(screen, every_action_looks=options.batch_screenshots == "every")
    model = format_model(options, context.provider(role))
    spec = LoopSpec(
        scope,
        format_tools(options.action_format, computer),
        load_prompt(prompt, options.action_format),
        budget,
        role=role,
        nudge=SUBAGENT_NUDGE,
    )
    return context.loop(
        spec,
        model=model,
        processors=screen_processors(options.keep_screenshots),
        kind=ScreenLoop,
        screen=screen,
        computer=computer,
        words=format_words(options.action_format),
    )
