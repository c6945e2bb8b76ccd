"""The web subagent: the main agent's `delegate_web` tool.

Each delegation runs a fresh AgentLoop (scope `web#N`, role `web`) whose tools
drive one BrowserSession shared by every delegation of the run, so tabs and
cookies persist between them. The loop ends with `done` or `fail`, or stops at
its step budget; the main agent receives a short report either way:
DONE / FAIL / INCOMPLETE, the facts found, the final URL and the downloaded files.
Every distinct page it observes is saved in the run folder (`subagents.web_pages`).
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from pydantic import BaseModel, Field

from stateact.kernel.context.processors import CollapseObservations, Processor, StripImages
from stateact.kernel.loop import LoopSpec
from stateact.kernel.prompts.loader import render_prompt
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.sandbox.base import SandboxError
from stateact.subagents import settings
from stateact.subagents.browser import BrowserSession, error_summary
from stateact.subagents.delegation import (
    DONE,
    ERROR,
    FAIL,
    INCOMPLETE,
    ReportForm,
    brief_text,
    delegation_budget,
    run_delegation,
)
from stateact.subagents.dom_markdown import OBSERVATION_MARK
from stateact.subagents.events import WebBrowserError
from stateact.subagents.nudge import SUBAGENT_NUDGE
from stateact.subagents.web_pages import WebPageLog
from stateact.subagents.web_tools import WebLoop, web_tools

PROMPT_PATH = Path(__file__).parent / "prompts" / "web.md"
WEB_FORM = ReportForm(
    "Web",
    "Web subagent ({scope}): {status} after {steps} of {budget} steps.",
    {DONE: "", FAIL: "", ERROR: "", INCOMPLETE: "Verified: "},
    steps_line=False,
)


def web_processors(
    keep: int = settings.WEB_FULL_OBSERVATIONS_KEPT, chunk: int = settings.WEB_OBSERVATION_TRIM_CHUNK
) -> list[Processor]:
    """The view processors of the web loop: only the latest page observations are sent in full.

    An older observation keeps its header line (title and URL) and loses the page text, which later
    observations supersede; observations go a chunk at a time (between `keep` and `keep + chunk - 1`
    stay whole), so the request prefix, and the provider's prompt cache, changes only every few
    steps. Old screenshots leave the view the same way. (The web tools cap their own outputs.)
    """
    return [CollapseObservations(OBSERVATION_MARK, keep, chunk), StripImages()]


class DelegateWebTool(Tool):
    """`delegate_web(subgoal, context)`: hand a web subgoal to the browser subagent."""

    name = "delegate_web"
    description = (
        "Hand a web subgoal to a browser agent that reads pages as text and clicks, fills, downloads and "
        "runs JavaScript in a real Chromium. The browser keeps its tabs and cookies between delegations. "
        "Say exactly what to achieve and which facts to bring back; downloads land in ~/Downloads. "
        "Returns DONE / FAIL / INCOMPLETE, the facts found, the final URL and downloaded files."
    )

    class Input(BaseModel):
        subgoal: str = Field(min_length=1, description="What to achieve on the web, and what to report back.")
        context: str = Field(
            "",
            description="What the browser agent needs to know: URLs, credentials, values to enter, formats.",
        )

    def __init__(
        self,
        context: RunContext,
        max_steps: int = settings.WEB_MAX_STEPS,
        max_seconds: float = settings.WEB_MAX_SECONDS,
    ) -> None:
        self.run_context = context
        self.session = BrowserSession(context.sandbox)
        self.pages = WebPageLog(context.log)
        self.session.on_snapshot = self.pages.record
        self.max_steps = max_steps
        self.max_seconds = max_seconds

    def run(self, params: Input) -> ToolResult:
        log = self.run_context.log
        scope = log.next_scope("web")
        self.pages.scope = scope
        try:
            self.session.start()
            first_look = self.session.observe()
        except (PlaywrightError, SandboxError) as exc:
            log.emit(WebBrowserError(scope=scope, error=error_summary(exc)))
            return ToolResult.error(f"The web browser could not be started: {error_summary(exc)}")
        downloads_before = len(self.session.downloads)
        spec = LoopSpec(
            scope,
            web_tools(self.session),
            render_prompt(PROMPT_PATH),
            delegation_budget(self.run_context, self.max_steps, self.max_seconds),
            role="web",
            nudge=SUBAGENT_NUDGE,
        )
        loop = self.run_context.loop(spec, processors=web_processors(), kind=WebLoop)
        task = "\n\n".join(
            [
                brief_text(params.subgoal, params.context),
                f"Downloads are saved in {self.session.downloads_dir}.",
                f"The browser now shows:\n{first_look}",
            ]
        )

        def evidence() -> dict:
            return {"final_url": self._final_url(), "downloads": self.session.downloads[downloads_before:]}

        return run_delegation(loop, task, WEB_FORM, evidence=evidence).tool_result()

    def _final_url(self) -> str:
        try:
            return self.session.page.url
        except PlaywrightError as exc:
            return f"(unknown: {error_summary(exc)})"

    def close(self) -> None:
        """Close the browser at the end of the run."""
        self.session.close()
