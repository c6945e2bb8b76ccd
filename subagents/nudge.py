"""The reminder a subagent gets when it replies in words instead of acting through a tool."""

from __future__ import annotations

from pathlib import Path

from stateact.kernel.loop import ReplyNudge
from stateact.kernel.prompts.loader import render_prompt
from stateact.subagents import settings

SUBAGENT_TEXT_REPLY_NUDGE = render_prompt(Path(__file__).parent / "prompts" / "text_reply_nudge.md").strip()

SUBAGENT_NUDGE = ReplyNudge(SUBAGENT_TEXT_REPLY_NUDGE, settings.SUBAGENT_TEXT_REPLY_NUDGES)
"""The nudge of every subagent loop: a bounded number of reminders, then INCOMPLETE."""
