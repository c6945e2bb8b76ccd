"""The gate's read-only view of the web: `read_page` (HTTP GET of the task's sites) and `web_pages`.

    tools = web_tools_for_gate(context)   # [] when the task names no URL and the web subagent saw no page

`read_page` runs on the harness's host (not in the sandbox, so nothing is written into its home):
GET only, `GATE_READ_PAGE_TIMEOUT_S`, at most `GATE_READ_PAGE_MAX_BYTES` read, redirects followed
only to allowed sites. A site served inside a sandbox with a loopback of its own is reached through
the sandbox's relay (`Sandbox.harness_url`), with the Host header the sandbox's processes would send.
Allowed sites (host and port) are those of the URLs in the task instruction
plus those of the pages the web subagent saved; nothing else, so loopback is reachable only when the
task or the subagent used it. HTML becomes markdown through the web subagent's converter. A static
fetch runs no JavaScript: `render` shows the page after its scripts ran (gate/review/page_render.py, where
only GETs of the allowed sites go out), and `web_pages` offers what the subagent's browser saw.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
from bs4 import BeautifulSoup
from pydantic import BaseModel, Field

from stateact.gate import settings
from stateact.gate.review.browser_cookies import Cookie, cookie_header, sandbox_cookies
from stateact.gate.review.page_render import RenderError, rendered_html
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.sandbox.netns import URL_PATTERN
from stateact.subagents.dom_markdown import html_to_markdown
from stateact.subagents.web_pages import read_saved_page, saved_pages

_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml", "application/csv")
_DROPPED_TAGS = ("script", "style", "noscript", "template", "svg", "head")


def site_of(url: str) -> str | None:
    """`host:port` of an http(s) URL (default ports filled in), or None for other URLs."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return f"{parts.hostname.lower()}:{port or (443 if parts.scheme.lower() == 'https' else 80)}"


def allowed_sites(task: str, run_dir: Path) -> set[str]:
    """The sites of the URLs in the instruction and of the pages the web subagent saved."""
    urls = [m.group(0).rstrip(".,;:!?") for m in URL_PATTERN.finditer(task)]
    urls += [page.url for page in saved_pages(run_dir)]
    return {site for site in map(site_of, urls) if site}


def window(text: str, offset: int, size: int = settings.GATE_OUTPUT_CAP_CHARS) -> str:
    """`size` characters of `text` from `offset`, with a note on what comes before and after."""
    part = text[offset : offset + size]
    notes = []
    if offset:
        notes.append(f"[{offset} characters before this point not shown]")
    notes.append(part if part else "(nothing at this offset)")
    if offset + size < len(text):
        notes.append(f"[{len(text) - offset - size} more characters: call again with offset={offset + size}]")
    return "\n".join(notes)


def page_markdown(html: str) -> str:
    """Markdown of a fetched HTML page, scripts and styles dropped, by the web subagent's converter."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(list(_DROPPED_TAGS)):
        tag.decompose()
    return html_to_markdown(str(soup.body or soup))


class ReadPage(Tool):
    name = "read_page"
    description = (
        "Read a web page of the task's sites with one HTTP GET (no JavaScript, nothing saved), signed in as the "
        "machine's browser is: it sends the cookies of the sandbox's Chromium profiles (the session the agent and "
        "the web subagent logged in with; read, never changed; Chromium stores a new login within 30 s). "
        "HTML comes back as markdown, text, CSV and JSON as they are. Only the sites of the URLs in the task "
        "instruction and the sites the web subagent visited are allowed. A page whose content is built by "
        "JavaScript reads empty here: pass `render: true` to read it as a browser shows it (its scripts run, "
        "but only GETs of the task's sites go out). `web_pages` has the pages the web subagent saw. "
        "Long pages come in parts: pass `offset` to read on."
    )

    class Input(BaseModel):
        url: str = Field(description="An http(s) URL on one of the task's sites.")
        offset: int = Field(default=0, ge=0, description="Character offset into the page text.")
        render: bool = Field(
            default=False, description="Run the page's scripts in a headless browser before reading it."
        )

    def __init__(
        self, sites: set[str], reach: Callable[[str], str] = str, cookies: Callable[[], list[Cookie]] = list
    ) -> None:
        self.sites = sites
        self.reach = reach
        """A URL -> the URL this machine reaches its server at (`Sandbox.harness_url`)."""
        self.cookies = cookies
        """The sandbox browser's cookies, read anew for each call (`browser_cookies.sandbox_cookies`)."""

    def run(self, params: Input) -> ToolResult:
        url = params.url.strip()
        cookies = self.cookies()
        if params.render:
            return self._rendered(url, params.offset, cookies)
        with httpx.Client(timeout=settings.GATE_READ_PAGE_TIMEOUT_S, follow_redirects=False) as client:
            for _ in range(settings.GATE_READ_PAGE_MAX_REDIRECTS + 1):
                refusal = self._refusal(url)
                if refusal:
                    return ToolResult.error(refusal)
                try:
                    status, headers, body, cut = _get(
                        client, self.reach(url), urlsplit(url).netloc, cookie_header(cookies, url)
                    )
                except httpx.HTTPError as exc:
                    return ToolResult.error(f"GET {url} failed: {type(exc).__name__}: {exc}")
                if status in (301, 302, 303, 307, 308) and headers.get("location"):
                    url = urljoin(url, headers["location"])
                    continue
                return self._result(url, status, headers, body, cut, params.offset)
        return ToolResult.error(
            f"More than {settings.GATE_READ_PAGE_MAX_REDIRECTS} redirects from {params.url}."
        )

    def _rendered(self, url: str, offset: int, cookies: list[Cookie]) -> ToolResult:
        refusal = self._refusal(url)
        if refusal:
            return ToolResult.error(refusal)
        try:
            html, refused = rendered_html(
                url, allowed=lambda other: site_of(other) in self.sites, reach=self.reach, cookies=cookies
            )
        except RenderError as exc:
            return ToolResult.error(f"Rendering {url} failed: {exc}")
        head = f"{url} rendered by a headless browser"
        if refused:
            head += f" ({len(refused)} requests refused: {', '.join(refused[:3])})"
        return ToolResult(text=f"{head}\n\n{window(page_markdown(html), offset)}")

    def _refusal(self, url: str) -> str | None:
        site = site_of(url)
        if site is None:
            return f"Refused: {url!r} is not an http(s) URL."
        if site not in self.sites:
            allowed = ", ".join(sorted(self.sites)) or "none"
            return f"Refused: {site} is not a site of this task (allowed: {allowed})."
        return None

    def _result(
        self, url: str, status: int, headers: httpx.Headers, body: bytes, cut: bool, offset: int
    ) -> ToolResult:
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        head = f"GET {url} -> HTTP {status} ({kind or 'no content type'}, {len(body)} bytes"
        head += f", cut at {settings.GATE_READ_PAGE_MAX_BYTES})" if cut else ")"
        if kind and not kind.startswith(_TEXT_TYPES) and not kind.endswith(("+json", "+xml")):
            return ToolResult(text=f"{head}\nNot a text page; its body is not shown.", is_error=status >= 400)
        text = body.decode(_charset(headers), errors="replace")
        if kind in ("text/html", "application/xhtml+xml") or (not kind and "<html" in text[:1000].lower()):
            scripts = len(BeautifulSoup(text, "html.parser").find_all("script"))
            text = page_markdown(text)
            if scripts:
                head += (
                    f"\nThe page runs scripts ({scripts} script elements): what they build (tables, lists, later "
                    "pages) is missing from this static read, so an empty table here does not mean no items. "
                    "Read it again with `render: true` to see it as a browser shows it."
                )
        return ToolResult(text=f"{head}\n\n{window(text, offset)}", is_error=status >= 400)


def _get(client: httpx.Client, url: str, host: str, cookie: str) -> tuple[int, httpx.Headers, bytes, bool]:
    """(status, headers, body up to the byte cap, whether the body was cut) of a GET of `url` that
    names `host` in its Host header and sends `cookie` (none when empty; what the response sets is dropped)."""
    headers = {"Host": host, **({"Cookie": cookie} if cookie else {})}
    with client.stream("GET", url, headers=headers) as response:
        body = b""
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > settings.GATE_READ_PAGE_MAX_BYTES:
                return response.status_code, response.headers, body[: settings.GATE_READ_PAGE_MAX_BYTES], True
        return response.status_code, response.headers, body, False


def _charset(headers: httpx.Headers) -> str:
    found = re.search(r"charset=([\w-]+)", headers.get("content-type", ""), re.IGNORECASE)
    return found.group(1) if found else "utf-8"


class WebPages(Tool):
    name = "web_pages"
    description = (
        "The web pages the web subagent saw during the task (saved by the harness, read-only): without "
        "`number`, the list (number, time, URL, title); with `number`, that page's text as the subagent's "
        "browser rendered it, JavaScript included. Long pages come in parts: pass `offset` to read on."
    )

    class Input(BaseModel):
        number: int | None = Field(default=None, ge=1, description="The page's number in the list.")
        offset: int = Field(default=0, ge=0, description="Character offset into the page text.")

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir

    def run(self, params: Input) -> ToolResult:
        pages = saved_pages(self.run_dir)
        if params.number is None:
            if not pages:
                return ToolResult(text="The web subagent saved no pages in this run.")
            lines = [f"{len(pages)} saved pages:"]
            lines += [f"{p.number:03d}  {p.saved_at}  {p.url}  {p.title!r} ({p.chars} chars)" for p in pages]
            return ToolResult(text="\n".join(lines))
        try:
            text = read_saved_page(self.run_dir, params.number)
        except KeyError:
            return ToolResult.error(
                f"There is no saved page {params.number}; call without `number` for the list."
            )
        return ToolResult(text=window(text, params.offset))


def web_tools_for_gate(context: RunContext) -> list[Tool]:
    """`read_page` when the task or the web subagent used any site, `web_pages` when pages were saved."""
    tools: list[Tool] = []
    sites = allowed_sites(context.task, context.run_dir)
    if sites:
        sandbox = context.sandbox
        tools.append(ReadPage(sites, sandbox.harness_url, cookies=lambda: sandbox_cookies(sandbox)))
    if saved_pages(context.run_dir):
        tools.append(WebPages(context.run_dir))
    return tools
