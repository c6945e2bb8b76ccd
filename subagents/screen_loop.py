"""The screenshot-driven loop shared by the GUI subagent and the pixel harness."""

from __future__ import annotations

from pathlib import Path

from stateact.kernel.context import ContextPipeline, build_context_manager
from stateact.kernel.context_processors import CapOutputs, Processor, StripImages
from stateact.kernel.loop import AgentLoop, Budget, LoopOutcome
from stateact.kernel.messages import ImageBlock, TextBlock
from stateact.kernel.models.base import ModelProvider
from stateact.kernel.runtime import RunContext
from subagents import settings
from subagents.action_formats import format_model, format_prompt, format_tools
from subagents.gui_tools import ComputerTool
from subagents.nudge import NUDGE_OPTIONS
from subagents.screen import Screen

PROMPTS = Path(__file__).parent / "prompts"

BUDGET_SPENT_NOTE = (
    "Your step budget is spent: actions are no longer carried out. Call `report_progress` now with what "
    "you verified on the screen (only what you saw) and what remains. If the latest screenshot shows the "
    "goal achieved, call `done` instead."
)


def load_prompt(name: str, addition: str = "") -> str:
    """A prompt file, with `{{screen_skills}}` replaced by the shared screen-handling advice and
    `addition` (an action format's instructions) at the end."""
    text = (PROMPTS / f"{name}.md").read_text(encoding="utf-8")
    skills = (PROMPTS / "screen_skills.md").read_text(encoding="utf-8").rstrip()
    text = text.replace("{{screen_skills}}", skills)
    return f"{text.rstrip()}\n\n{addition}\n" if addition else text


class ScreenLoop(AgentLoop):
    """An AgentLoop whose opening message carries the current screenshot and whose turns are counted aloud."""

    def __init__(self, *, screen: Screen, computer: ComputerTool, **kwargs) -> None:
        super().__init__(**kwargs)
        self.screen = screen
        self.computer = computer
        self.step_limit = self.budget.max_turns
        self.injections.append(self._step_note)

    def run(self, task: str | list[TextBlock | ImageBlock]) -> LoopOutcome:
        if isinstance(task, str):
            task = [
                TextBlock(text=f"{task}\n\n{self.screen.describe()}"),
                ImageBlock.from_bytes(self.screen.capture()),
            ]
        return super().run(task)

    def _step_note(self) -> str:
        if self.computer.spent:
            return BUDGET_SPENT_NOTE
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


def screen_context(
    context: RunContext, model: ModelProvider, max_screenshots: int | None = None
) -> ContextPipeline:
    """The context pipeline of a screenshot loop (the GUI subagent, the pixel harness): its view
    processors, compaction near the model's window, stall notes and overflow cuts."""
    return build_context_manager(
        context, model.name, screen_processors(max_screenshots), window=model.info.context_window
    )


def build_screen_loop(
    context: RunContext, *, scope: str, role: str, prompt: str, budget: Budget
) -> ScreenLoop:
    """A loop that sees the sandbox's screen and acts on it with `computer`, ending with `done` or `fail`
    (or the equivalents of the role's native action format)."""
    options = context.models.settings_for(role)
    screen = Screen(context.sandbox, options=options)
    computer = ComputerTool(screen)
    model = format_model(options.action_format, context.provider(role))
    return ScreenLoop(
        screen=screen,
        computer=computer,
        scope=scope,
        role=role,
        model=model,
        tools=format_tools(options.action_format, computer),
        system_prompt=load_prompt(prompt, format_prompt(options.action_format)),
        log=context.log,
        meter=context.meter,
        budget=budget,
        context=screen_context(context, model, options.keep_screenshots),
        **NUDGE_OPTIONS,
    )
