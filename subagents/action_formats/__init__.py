"""Native action formats of GUI models: the tools a screen loop offers and how its model is spoken to.

    tools       our `computer` function tool, with `done` and `fail` (the default)
    uitars      UI-TARS' text `Thought: ...` / `Action: click(start_box='(x,y)')` (`uitars.py`)
    qwen_computer_use  Qwen2.5-VL's `computer_use` function (`qwen.py`)

A GUI role names its format as `action_format` in its settings; the coordinates in it follow the role's
`coordinates` convention (`subagents/grounding.py`). Each format has its own prompt section
(`prompts/format_<name>.md`) and its own words for ending: `FormatWords`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stateact.kernel.models.base import ModelProvider
from stateact.kernel.prompts.loader import render_prompt
from stateact.kernel.tools.base import Tool
from stateact.subagents.action_formats.qwen import QwenComputerUseTool, QwenModel
from stateact.subagents.action_formats.uitars import UITarsModel, UITarsTool
from stateact.subagents.endings import ending_tools
from stateact.subagents.gui_tools import SCREEN_WORDS, ComputerTool
from stateact.subagents.screen_settings import ActionFormat, ScreenSettings

PROMPTS = Path(__file__).parent.parent / "prompts"


@dataclass(frozen=True)
class FormatWords:
    """How a format's model is told to end: with the goal achieved, failed, or with a progress report."""

    done: str
    fail: str
    report_progress: str


WORDS: dict[str, FormatWords] = {
    "tools": FormatWords("`done`", "`fail`", "`report_progress`"),
    "uitars": FormatWords(
        "`finished(content='...')`",
        "`call_user()`",
        "`report_progress(verified='...', remaining='...')`",
    ),
    "qwen_computer_use": FormatWords(
        "`terminate` with status `success`",
        "`terminate` with status `failure`",
        "the `report_progress` function",
    ),
}


def format_tools(action_format: ActionFormat, computer: ComputerTool) -> list[Tool]:
    """The tools of a screen loop whose model acts in `action_format`."""
    if action_format == "uitars":
        return [UITarsTool(computer)]
    if action_format == "qwen_computer_use":
        return [QwenComputerUseTool(computer)]
    return [computer, *ending_tools(SCREEN_WORDS)]


def format_model(options: ScreenSettings, model: ModelProvider) -> ModelProvider:
    """The role's provider as its format needs it spoken to."""
    if options.action_format == "uitars":
        return UITarsModel(model)
    if options.action_format == "qwen_computer_use":
        return QwenModel(model, tools_in_prompt=options.tools_in_prompt)
    return model


def format_prompt(action_format: ActionFormat) -> str:
    """The system prompt's section on how the format's model acts."""
    return render_prompt(PROMPTS / f"format_{action_format}.md").strip()


def format_words(action_format: ActionFormat) -> FormatWords:
    """The format's words for ending."""
    return WORDS[action_format]
