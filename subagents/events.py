"""The GUI and web subagents' events in a run's log (`gui_*`, `web_*` kinds), registered with the
kernel's event table when this module is imported (`stateact.kernel.events.register_event`), and every
subagent's `<role>_report` event, made and registered with its role (`register_subagent`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, create_model

from stateact.kernel.events import Event, register_event
from stateact.kernel.roles import Role, register_role


class SubagentReportEvent(Event):
    """What a delegation reported (subagents/delegation.py); older GUI logs nest it in `report`."""

    status: str = ""
    detail: str = ""
    remaining: str = ""
    steps: int = 0
    budget: int = 0
    last_note: str = ""
    facts: list[str] = Field(default_factory=list)
    final_url: str | None = None
    downloads: list[str] = Field(default_factory=list)
    screenshot: str | None = None


def report_event(role: str) -> type[SubagentReportEvent]:
    """The event kind `<role>_report` of subagent `role`'s reports."""
    kind = f"{role}_report"
    return create_model(
        f"{role.title()}ReportEvent", __base__=SubagentReportEvent, kind=(Literal[kind], kind)
    )


def register_subagent(role: Role) -> Role:
    """Register subagent `role` and its report event."""
    register_role(role)
    register_event(report_event(role.name))
    return role


@register_event
class GuiBudgetSpent(Event):
    kind: Literal["gui_budget_spent"] = "gui_budget_spent"
    reason: str


@register_event
class GuiScreenshotFailed(Event):
    kind: Literal["gui_screenshot_failed"] = "gui_screenshot_failed"
    error: str


@register_event
class WebBrowserError(Event):
    kind: Literal["web_browser_error"] = "web_browser_error"
    error: str


@register_event
class WebPageSaved(Event):
    kind: Literal["web_page_saved"] = "web_page_saved"
    number: int
    url: str
    title: str = ""
    saved_at: str = ""
    chars: int = 0
    file: str = ""


@register_event
class WebPageSaveError(Event):
    kind: Literal["web_page_save_error"] = "web_page_save_error"
    url: str
    error: str
