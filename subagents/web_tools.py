"""The web subagent's actions, one small tool each, all acting on a shared BrowserSession.

Every page-changing action answers with what happened (plus notes on new tabs,
dialogs and downloads); the last one of a batch (one reply's calls, `WebLoop`)
adds a fresh observation of the active tab, so a batch of fills and a click
returns one page state. A failed action (stale index, timeout, bad option) is
an error result, and the batch's page state follows it, so the model can recover
in the next step.
"""

from __future__ import annotations

import json
import mimetypes
import posixpath
import re
from abc import abstractmethod
from typing import ClassVar, Literal

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from pydantic import BaseModel, Field

from stateact.kernel.loop import AgentLoop, LoopSpec, batch_lookers
from stateact.kernel.messages import ToolUseBlock
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.sandbox.base import SandboxError
from stateact.subagents import settings
from stateact.subagents.browser import BrowserSession, WebActionError, error_summary
from stateact.subagents.dom_markdown import find_lines
from stateact.subagents.endings import EndingWords, ending_tools

BATCH_PAGE_NOTE = "(The page follows the batch's last action.)"


class WebAction(Tool):
    """Base of the browser actions: runs `act`, turns browser errors into error results, observes."""

    observes: ClassVar[bool] = True
    """Whether the result ends with a fresh observation of the page."""
    watches_popups: ClassVar[bool] = False
    """Whether to watch for new tabs and downloads for a moment after acting."""

    def __init__(self, session: BrowserSession) -> None:
        self.session = session
        self.look_after = True
        """Whether this call observes: False for all but the last observing call of a batch (`WebLoop`)."""

    @abstractmethod
    def act(self, params) -> str | ToolResult:
        """Do the action; return a short account of it, or a whole result."""

    def run(self, params) -> ToolResult:
        is_error = False
        try:
            outcome = self.act(params)
        except WebActionError as exc:
            outcome, is_error = str(exc), True
        except PlaywrightTimeoutError as exc:
            outcome, is_error = f"Timed out: {error_summary(exc)}", True
            if "intercepts pointer events" in str(exc):
                outcome += "\nAnother element covers it (a dialog, banner or overlay): close that first."
        except PlaywrightError as exc:
            outcome, is_error = f"The browser refused: {error_summary(exc)}", True
        if isinstance(outcome, ToolResult):
            return outcome
        try:
            notes = self.session.settle(self.watches_popups) if self.observes else self.session.drain_notes()
        except PlaywrightError as exc:
            notes = [f"(Could not wait for the page: {error_summary(exc)})"]
        parts = [outcome, *notes]
        if self.observes and self.look_after:
            parts.append("\n" + self.session.observe())
        elif self.observes:
            parts.append(BATCH_PAGE_NOTE)
        return ToolResult(text="\n".join(p for p in parts if p), is_error=is_error)


class _NoInput(BaseModel):
    pass


class _IndexInput(BaseModel):
    index: int = Field(description="The element's number, as in [12].")


class Navigate(WebAction):
    name = "navigate"
    description = "Open a URL in the active tab (or, with new_tab, in a new tab)."

    class Input(BaseModel):
        url: str = Field(description="Absolute URL; a bare host like example.com gets https://.")
        new_tab: bool = False

    def act(self, params: Input) -> str:
        url = params.url.strip()
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url):
            url = "https://" + url
        page = self.session.new_tab() if params.new_tab else self.session.page
        try:
            page.goto(url, wait_until="domcontentloaded", timeout=settings.WEB_NAVIGATION_TIMEOUT_MS)
        except PlaywrightTimeoutError as exc:
            raise WebActionError(
                f"{url} did not finish loading within {settings.WEB_NAVIGATION_TIMEOUT_MS // 1000} s; "
                "below is what loaded so far."
            ) from exc
        except PlaywrightError as exc:
            if "Download is starting" in str(exc) and self.session.wait_for_download(
                settings.WEB_NAVIGATION_TIMEOUT_MS
            ):
                return f"{url} is a file: it was downloaded instead of shown."
            raise WebActionError(f"Could not open {url}: {error_summary(exc)}") from exc
        return f"Opened {page.url}."


class _HistoryAction(WebAction):
    Input = _NoInput
    method: ClassVar[str]
    """The Page method: go_back, go_forward or reload."""
    done: ClassVar[str]
    """What was done, e.g. 'Went back to'."""

    def act(self, params: _NoInput) -> str:
        page = self.session.page
        before = page.url
        response = getattr(page, self.method)(wait_until="domcontentloaded")
        if response is None and page.url == before and self.method != "reload":
            return f"There is no page to go to in that direction; stayed on {before}."
        return f"{self.done} {page.url}."


class Back(_HistoryAction):
    name = "back"
    description = "Go back one page in the active tab's history."
    method = "go_back"
    done = "Went back to"


class Forward(_HistoryAction):
    name = "forward"
    description = "Go forward one page in the active tab's history."
    method = "go_forward"
    done = "Went forward to"


class Reload(_HistoryAction):
    name = "reload"
    description = "Reload the active tab."
    method = "reload"
    done = "Reloaded"


class Click(WebAction):
    name = "click"
    description = (
        "Click an element by its index. New tabs, popups, dialogs and downloads it causes are reported."
    )
    Input = _IndexInput
    watches_popups = True

    def act(self, params: _IndexInput) -> str:
        element = self.session.element(params.index)
        if not element.evaluate("e => e.closest('a[href]')?.target.toLowerCase() === '_blank'"):
            element.click()
            return f"Clicked [{params.index}]."
        # A link to a new tab: wait for that tab rather than hope it opens within the short poll.
        clicked = False
        try:
            with self.session.page.context.expect_page(timeout=settings.WEB_SETTLE_TIMEOUT_MS):
                element.click()
                clicked = True
        except PlaywrightTimeoutError:
            if not clicked:
                raise
            return f"Clicked [{params.index}]; the link did not open a new tab."
        return f"Clicked [{params.index}]."


class Hover(WebAction):
    name = "hover"
    description = "Move the mouse over an element, e.g. to open a menu that shows on hover."
    Input = _IndexInput

    def act(self, params: _IndexInput) -> str:
        self.session.element(params.index).hover()
        self.session.page.wait_for_timeout(200)
        return f"Hovering over [{params.index}]."


class Fill(WebAction):
    name = "fill"
    description = "Replace the text of an input, textarea or editable element; optionally press Enter after."

    class Input(BaseModel):
        index: int
        text: str
        press_enter: bool = False

    watches_popups = True

    def act(self, params: Input) -> str:
        element = self.session.element(params.index)
        element.fill(params.text)
        if params.press_enter:
            element.press("Enter")
        return f"Filled [{params.index}]{' and pressed Enter' if params.press_enter else ''}."


class Select(WebAction):
    name = "select"
    description = (
        "Choose an option of a <select> by its label or value. For a custom dropdown, click it and then "
        "click the option instead."
    )

    class Input(BaseModel):
        index: int
        option: str = Field(description="The option's visible label, or its value.")

    def act(self, params: Input) -> str:
        element = self.session.element(params.index)
        tag = element.evaluate("e => e.tagName.toLowerCase()")
        if tag != "select":
            raise WebActionError(
                f"[{params.index}] is a <{tag}>, not a <select>: click it to open it, then click the option."
            )
        options: list[list[str]] = element.evaluate(
            "e => Array.from(e.options).map(o => [o.label || o.text, o.value])"
        )
        value = _match_option(params.option, options)
        if value is None:
            labels = ", ".join(json.dumps(label) for label, _ in options[: settings.WEB_MAX_SELECT_OPTIONS])
            raise WebActionError(f"[{params.index}] has no option {params.option!r}. Its options: {labels}.")
        element.select_option(value=value)
        return f"Selected {params.option!r} in [{params.index}]."


def _match_option(wanted: str, options: list[list[str]]) -> str | None:
    """The value of the option whose label or value matches: exactly, then ignoring case, then a unique part."""
    folded = wanted.strip().casefold()
    for test in (
        lambda label, value: wanted in (label, value),
        lambda label, value: folded in (label.strip().casefold(), value.strip().casefold()),
    ):
        for label, value in options:
            if test(label, value):
                return value
    partial = [value for label, value in options if folded in label.casefold()]
    return partial[0] if len(partial) == 1 else None


class Check(WebAction):
    name = "check"
    description = "Tick or untick a checkbox, radio button or switch."

    class Input(BaseModel):
        index: int
        checked: bool = True

    def act(self, params: Input) -> str:
        self.session.element(params.index).set_checked(params.checked)
        return f"{'Checked' if params.checked else 'Unchecked'} [{params.index}]."


class Press(WebAction):
    name = "press"
    description = (
        "Press keys, space-separated, each a Playwright key name or chord: 'Enter', 'Tab Tab', 'Control+a', "
        "'ArrowDown'. With an index, that element is focused first."
    )

    class Input(BaseModel):
        keys: str
        index: int | None = None

    watches_popups = True

    def act(self, params: Input) -> str:
        if params.index is not None:
            self.session.element(params.index).focus()
        for key in params.keys.split():
            self.session.page.keyboard.press(key)
        return f"Pressed {params.keys}."


class Scroll(WebAction):
    name = "scroll"
    description = (
        "Scroll the page (or the scrollable area under its centre) by pages, or bring an element into view."
    )

    class Input(BaseModel):
        direction: Literal["down", "up"] = "down"
        pages: float = Field(1.0, gt=0, le=20)
        index: int | None = Field(None, description="Scroll this element into view instead.")

    def act(self, params: Input) -> str:
        page = self.session.page
        if params.index is not None:
            self.session.element(params.index).scroll_into_view_if_needed()
            return f"Scrolled [{params.index}] into view."
        size = page.viewport_size or page.evaluate("() => ({width: innerWidth, height: innerHeight})")
        page.mouse.move(size["width"] / 2, size["height"] / 2)
        delta = size["height"] * 0.9 * params.pages * (1 if params.direction == "down" else -1)
        page.mouse.wheel(0, delta)
        page.wait_for_timeout(200)
        return f"Scrolled {params.direction} {params.pages:g} page(s)."


class Wait(WebAction):
    name = "wait"
    description = (
        "Wait for some seconds, or until a text appears; then look at the page again (seconds=0 just looks)."
    )

    class Input(BaseModel):
        seconds: float = Field(1.0, ge=0, le=settings.WEB_MAX_WAIT_S)
        text: str | None = Field(None, description="Wait until this text is visible (at most `seconds`).")

    def act(self, params: Input) -> str:
        page = self.session.page
        if params.text:
            try:
                page.get_by_text(params.text).first.wait_for(timeout=max(params.seconds, 0.1) * 1000)
            except PlaywrightTimeoutError as exc:
                raise WebActionError(f"{params.text!r} did not appear within {params.seconds:g} s.") from exc
            return f"{params.text!r} is on the page."
        page.wait_for_timeout(params.seconds * 1000)
        return f"Waited {params.seconds:g} s."


class Find(WebAction):
    name = "find"
    description = (
        "Search the whole page text (not only the part shown) for a phrase or a regular expression; "
        "returns the matching lines with their element indices, without the rest of the page."
    )
    observes = False

    class Input(BaseModel):
        query: str = Field(min_length=1)
        regex: bool = False

    def act(self, params: Input) -> str:
        try:
            return find_lines(self.session.snapshot().markdown, params.query, params.regex)
        except re.error as exc:
            raise WebActionError(f"Bad regular expression {params.query!r}: {exc}.") from exc


class RunJavaScript(WebAction):
    name = "run_js"
    description = (
        "Run JavaScript in the active tab and get its result as JSON. Give an expression, or a function "
        "like `() => {...}`; promises are awaited. Good for extracting structured data."
    )
    observes = False

    class Input(BaseModel):
        script: str = Field(min_length=1)

    def act(self, params: Input) -> str:
        try:
            value = self.session.page.evaluate(params.script)
        except PlaywrightError as exc:
            if isinstance(exc, PlaywrightTimeoutError):
                raise
            raise WebActionError(f"The script failed: {error_summary(exc)}") from exc
        text = json.dumps(value, ensure_ascii=False, default=str)
        cap = settings.WEB_JS_RESULT_CAP_CHARS
        if len(text) > cap:
            text = text[:cap] + f"… [{len(text) - cap} more characters cut; return less]"
        return f"Result: {text}"


class ListTabs(WebAction):
    name = "list_tabs"
    description = "List the open tabs."
    Input = _NoInput
    observes = False

    def act(self, params: _NoInput) -> str:
        active = self.session.page
        return "\n".join(
            f"tab {tab}{' (active)' if page is active else ''}: {self.session.tab_title(page)} — {page.url}"
            for tab, page in self.session.tabs()
        )


class _TabInput(BaseModel):
    tab: int = Field(description="The tab number from list_tabs or the page header.")


class SwitchTab(WebAction):
    name = "switch_tab"
    description = "Make another tab the active one."
    Input = _TabInput

    def act(self, params: _TabInput) -> str:
        self.session.switch_to(self.session.tab(params.tab))
        return f"Switched to tab {params.tab}."


class CloseTab(WebAction):
    name = "close_tab"
    description = "Close a tab; if it was active, the last remaining tab becomes active."
    Input = _TabInput

    def act(self, params: _TabInput) -> str:
        self.session.tab(params.tab).close()
        return f"Closed tab {params.tab}."


class DownloadFile(WebAction):
    name = "download"
    description = (
        "Download a file by clicking a link or button (index), or from a URL (fetched with the browser's "
        "cookies). The file is saved in ~/Downloads and its path reported."
    )

    class Input(BaseModel):
        index: int | None = None
        url: str | None = None

    def act(self, params: Input) -> str:
        if (params.index is None) == (params.url is None):
            raise WebActionError("Give exactly one of `index` (a link or button to click) or `url`.")
        if params.url is not None:
            return self.session.download_url(params.url)
        self.session.element(params.index).click()
        if not self.session.wait_for_download(settings.WEB_NAVIGATION_TIMEOUT_MS):
            raise WebActionError(
                f"Clicking [{params.index}] started no download. If it is a link to a file, "
                "try download with its URL."
            )
        return f"Clicked [{params.index}]; a download started."


class Upload(WebAction):
    name = "upload"
    description = (
        "Attach files (paths on the machine) to a file input, or to the file chooser a button opens."
    )

    class Input(BaseModel):
        index: int
        paths: list[str] = Field(min_length=1)

    def act(self, params: Input) -> str:
        files = []
        for path in params.paths:
            try:
                data = self.session.sandbox.read_file(path)
            except (OSError, SandboxError) as exc:
                raise WebActionError(f"Cannot read {path}: {exc}.") from exc
            mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
            files.append({"name": posixpath.basename(path), "mimeType": mime, "buffer": data})
        element = self.session.element(params.index, visible=False)
        if element.evaluate("e => e.tagName === 'INPUT' && e.type === 'file'"):
            element.set_input_files(files)
        else:
            with self.session.page.expect_file_chooser(timeout=settings.WEB_ACTION_TIMEOUT_MS) as chooser:
                element.click()
            chooser.value.set_files(files)
        return f"Attached {', '.join(f['name'] for f in files)} to [{params.index}]."


class Screenshot(WebAction):
    name = "screenshot"
    description = "Take a screenshot of the active tab (only when the look of the page matters)."
    observes = False

    class Input(BaseModel):
        full_page: bool = False

    def act(self, params: Input) -> ToolResult:
        png = self.session.page.screenshot(full_page=params.full_page)
        return ToolResult(text=f"Screenshot of {self.session.page.url}.", images=(png,))


WEB_WORDS = EndingWords(
    done="Finish: the subgoal is achieved. Report the facts the main agent asked for.",
    fail="Stop: the subgoal cannot be achieved (say why). Report any facts found on the way.",
    fields={
        "summary": "What was done, in one to three sentences.",
        "reason": "Why the subgoal cannot be achieved.",
        "facts": "Each fact found, exactly as the page shows it, e.g. 'Total: 1,204'.",
    },
)
"""The wording of the web subagent."""


ACTIONS: tuple[type[WebAction], ...] = (
    Navigate,
    Back,
    Forward,
    Reload,
    Click,
    Hover,
    Fill,
    Select,
    Check,
    Press,
    Scroll,
    Wait,
    Find,
    RunJavaScript,
    ListTabs,
    SwitchTab,
    CloseTab,
    DownloadFile,
    Upload,
    Screenshot,
)


class WebLoop(AgentLoop):
    """The web subagent's loop: a batch of actions (one reply's calls) returns one page state, after
    its last observing action, instead of a page dump after each."""

    def __init__(self, spec: LoopSpec, **kwargs) -> None:
        super().__init__(spec, **kwargs)
        self._looks: set[str] = set()

    def before_tools(self, calls: list[ToolUseBlock], cut_off: ToolUseBlock | None) -> None:
        self._looks = batch_lookers(calls, cut_off, self._observes)

    def before_tool(self, call: ToolUseBlock) -> None:
        tool = self.tools.get(call.name)
        if isinstance(tool, WebAction):
            tool.look_after = call.id in self._looks

    def _observes(self, call: ToolUseBlock) -> bool:
        tool = self.tools.get(call.name)
        return isinstance(tool, WebAction) and tool.observes


def web_tools(session: BrowserSession) -> list[Tool]:
    """Every action of the web subagent, bound to `session`, then done and fail."""
    return [*(action(session) for action in ACTIONS), *ending_tools(WEB_WORDS)]
