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

from stateact.events import WebBrowserError, WebReportEvent
from stateact.image_policy import images_to_strip, strip_old_images
from stateact.loop import AgentLoop, Budget, LoopOutcome
from stateact.messages import Message, TextBlock, ToolResultBlock
from stateact.runtime import RunContext
from stateact.tools.base import Tool, ToolResult
from subagents import settings
from subagents.browser import BrowserSession, error_summary
from subagents.dom_markdown import OBSERVATION_MARK
from subagents.nudge import NUDGE_OPTIONS
from subagents.web_pages import WebPageLog
from subagents.web_tools import web_tools

PROMPT_PATH = Path(__file__).parent / "prompts" / "web.md"


class OlderObservationsTrimmed:
    """Context policy of the web loop: only the latest page observations are sent in full.

    An older observation keeps its header line (title and URL) and loses the
    page text, which later observations supersede. Observations are trimmed a
    chunk at a time (between `keep` and `keep + chunk - 1` stay whole), so the
    request prefix, and the provider's prompt cache, changes only every few
    steps. Old screenshots leave the view the same way. The history itself is
    untouched.
    """

    def __init__(
        self,
        keep: int = settings.WEB_FULL_OBSERVATIONS_KEPT,
        chunk: int = settings.WEB_OBSERVATION_TRIM_CHUNK,
    ) -> None:
        self.keep = keep
        self.chunk = chunk

    def before_request(self, loop: AgentLoop) -> None:
        return None

    def on_overflow(self, loop: AgentLoop) -> bool:
        return False

    def view(self, messages: list[Message]) -> list[Message]:
        total = sum(self._observations(block) for message in messages for block in message.content)
        budget = [images_to_strip(total, self.keep, self.chunk)]
        out = []
        for message in messages:
            if budget[0] > 0 and message.role == "user":
                message = Message(
                    role="user", content=[self._trim(block, budget) for block in message.content]
                )
            out.append(message)
        return strip_old_images(out)

    def _observations(self, block) -> int:
        if isinstance(block, ToolResultBlock):
            return sum(self._observations(part) for part in block.content)
        return int(isinstance(block, TextBlock) and OBSERVATION_MARK in block.text)

    def _trim(self, block, budget: list[int]):
        if isinstance(block, ToolResultBlock):
            return block.model_copy(update={"content": [self._trim(part, budget) for part in block.content]})
        if budget[0] <= 0 or not isinstance(block, TextBlock) or OBSERVATION_MARK not in block.text:
            return block
        budget[0] -= 1
        before, _, after = block.text.partition(OBSERVATION_MARK)
        header = after.split("\n", 1)[0]
        return TextBlock(text=f"{before}{OBSERVATION_MARK}{header}\n(older page view omitted)")


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
        cdp_url: str | None = None,
        max_steps: int = settings.WEB_MAX_STEPS,
        max_seconds: float = settings.WEB_MAX_SECONDS,
    ) -> None:
        self.run_context = context
        self.session = BrowserSession(context.sandbox, cdp_url=cdp_url)
        self.pages = WebPageLog(context.log)
        self.session.on_snapshot = self.pages.record
        self.budget = Budget(max_turns=max_steps, max_usd=context.dollar_budget(), max_seconds=max_seconds)

    def run(self, params: Input) -> ToolResult:
        log = self.run_context.log
        scope = log.next_scope("web")
        self.pages.scope = scope
        try:
            self.session.start()
            first_look = self.session.observe()
        except PlaywrightError as exc:
            log.emit(WebBrowserError(scope=scope, error=error_summary(exc)))
            return ToolResult.error(f"The web browser could not be started: {error_summary(exc)}")
        downloads_before = len(self.session.downloads)
        loop = AgentLoop(
            scope=scope,
            role="web",
            model=self.run_context.provider("web"),
            tools=web_tools(self.session),
            system_prompt=PROMPT_PATH.read_text(encoding="utf-8"),
            log=log,
            meter=self.run_context.meter,
            budget=self.budget,
            context=OlderObservationsTrimmed(),
            **NUDGE_OPTIONS,
        )
        outcome = loop.run(self._task(params, first_look))
        report = WebReport.from_outcome(
            outcome,
            max_steps=self.budget.max_turns,
            final_url=self._final_url(),
            downloads=self.session.downloads[downloads_before:],
            last_words=next(
                (m.text() for m in reversed(loop.messages) if m.role == "assistant" and m.text()), ""
            ),
        )
        log.emit(WebReportEvent(scope=scope, **report.data()))
        return ToolResult(text=report.text(scope), data=report.data(), is_error=report.status == "ERROR")

    def _task(self, params: Input, first_look: str) -> str:
        parts = [f"Subgoal: {params.subgoal.strip()}"]
        if params.context.strip():
            parts.append(f"Context from the main agent:\n{params.context.strip()}")
        parts.append(f"Downloads are saved in {self.session.downloads_dir}.")
        parts.append(f"The browser now shows:\n{first_look}")
        return "\n\n".join(parts)

    def _final_url(self) -> str:
        try:
            return self.session.page.url
        except PlaywrightError as exc:
            return f"(unknown: {error_summary(exc)})"

    def close(self) -> None:
        """Close the browser at the end of the run."""
        self.session.close()


class WebReport(BaseModel):
    """What one delegation achieved, as the main agent reads it."""

    status: str
    """DONE, FAIL, INCOMPLETE, or ERROR (its model call failed)."""
    summary: str
    facts: list[str] = Field(default_factory=list)
    final_url: str = ""
    downloads: list[str] = Field(default_factory=list)
    steps: int = 0
    max_steps: int = 0

    @classmethod
    def from_outcome(
        cls, outcome: LoopOutcome, max_steps: int, final_url: str, downloads: list[str], last_words: str = ""
    ) -> WebReport:
        """The report of a finished loop; `last_words` is the agent's latest text, kept when it stopped early."""
        if outcome.status == "finished" and outcome.data.get("status") in ("DONE", "FAIL"):
            status, summary = outcome.data["status"], outcome.data.get("summary", "")
            facts = list(outcome.data.get("facts", []))
        elif outcome.status == "error":
            status, facts = "ERROR", []
            summary = f"The web agent's {_clip(outcome.text)}. Nothing it did was verified; check the state."
        else:
            status, facts = "INCOMPLETE", []
            reason = {
                "budget": "it ran out of budget",
                "error": "of an error",
                "replied": "it answered without calling done or fail",
            }.get(outcome.status, outcome.status)
            summary = f"The web agent stopped before finishing because {reason}"
            summary += f": {_clip(outcome.text)}" if outcome.text.strip() else "."
            if last_words.strip() and outcome.status != "replied":
                summary += f"\nIts last note: {_clip(last_words)}"
        return cls(
            status=status,
            summary=summary,
            facts=facts,
            final_url=final_url,
            downloads=downloads,
            steps=outcome.turns,
            max_steps=max_steps,
        )

    def data(self) -> dict:
        return self.model_dump()

    def text(self, scope: str) -> str:
        lines = [
            f"Web subagent ({scope}): {self.status} after {self.steps} of {self.max_steps} steps.",
            self.summary,
        ]
        if self.facts:
            lines.append("Facts:")
            lines.extend(f"- {fact}" for fact in self.facts)
        lines.append(f"Final URL: {self.final_url}")
        if self.downloads:
            lines.append("Downloaded files:")
            lines.extend(f"- {path}" for path in self.downloads)
        return "\n".join(lines)


def _clip(text: str) -> str:
    text = text.strip()
    limit = settings.WEB_REPORT_NOTE_CHARS
    return text if len(text) <= limit else text[:limit] + "…"
