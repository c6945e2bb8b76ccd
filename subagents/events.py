"""The GUI and web subagents' events in a run's log (`gui_*`, `web_*` kinds), registered with the
kernel's event table when this module is imported (`stateact.kernel.events.register_event`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from stateact.kernel.events import Event, register_event


class SubagentReportEvent(Event):
    """What a GUI or web delegation reported (subagents/delegation.py); older GUI logs nest it in `report`."""

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


@register_event
class GuiReportEvent(SubagentReportEvent):
    kind: Literal["gui_report"] = "gui_report"


@register_event
class GuiBudgetSpent(Event):
    kind: Literal["gui_budget_spent"] = "gui_budget_spent"
    reason: str


@register_event
class GuiScreenshotFailed(Event):
    kind: Literal["gui_screenshot_failed"] = "gui_screenshot_failed"
    error: str


@register_event
class WebReportEvent(SubagentReportEvent):
    kind: Literal["web_report"] = "web_report"


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
