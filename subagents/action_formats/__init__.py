"""Native action formats of GUI models: the tools a screen loop offers and how its model is spoken to.

    tools       our `computer` function tool, with `done` and `fail` (the default)
    uitars      UI-TARS' text `Thought: ...` / `Action: click(start_box='(x,y)')` (`uitars.py`)
    qwen_computer_use  Qwen2.5-VL's `computer_use` function (`qwen.py`)

A GUI role names its format as `action_format` in its settings; the coordinates in it follow the role's
`coordinates` convention (`subagents/grounding.py`).
"""

from __future__ import annotations

from pathlib import Path

from stateact.kernel.models.base import ModelProvider
from stateact.kernel.models.role_settings import ActionFormat
from stateact.kernel.tools.base import Tool
from subagents.action_formats.qwen import QwenComputerUseTool
from subagents.action_formats.uitars import UITarsModel, UITarsTool
from subagents.gui_tools import ComputerTool, DoneTool, FailTool

PROMPTS = Path(__file__).parent.parent / "prompts"


def format_tools(action_format: ActionFormat, computer: ComputerTool) -> list[Tool]:
    """The tools of a screen loop whose model acts in `action_format`."""
    if action_format == "uitars":
        return [UITarsTool(computer)]
    if action_format == "qwen_computer_use":
        return [QwenComputerUseTool(computer)]
    return [computer, DoneTool(), FailTool()]


def format_model(action_format: ActionFormat, model: ModelProvider) -> ModelProvider:
    """The role's provider as the format needs it spoken to."""
    return UITarsModel(model) if action_format == "uitars" else model


def format_prompt(action_format: ActionFormat) -> str:
    """What the system prompt adds for the format (empty for our own tools)."""
    if action_format == "tools":
        return ""
    return (PROMPTS / f"format_{action_format}.md").read_text(encoding="utf-8").strip()
