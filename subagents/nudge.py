"""The reminder a subagent gets when it replies in words instead of acting through a tool."""

from __future__ import annotations

from pathlib import Path

from subagents import settings

SUBAGENT_TEXT_REPLY_NUDGE = (
    (Path(__file__).parent / "prompts" / "text_reply_nudge.md").read_text(encoding="utf-8").strip()
)

NUDGE_OPTIONS = {
    "nudge_text_replies": True,
    "nudge_text": SUBAGENT_TEXT_REPLY_NUDGE,
    "max_nudges": settings.SUBAGENT_TEXT_REPLY_NUDGES,
}
"""AgentLoop keyword arguments of every subagent loop: a bounded number of reminders, then INCOMPLETE."""
