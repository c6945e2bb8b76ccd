"""A browser that lives for a whole run: tabs, cookies, dialogs, downloads, element lookup.

The sandbox says where the browser is (`Sandbox.browser_place`): `BrowserSession`
attaches to a running Chromium over CDP (OSWorld's Chrome on port 9222, the
sandbox's `web_browser_url`); in an isolated local sandbox it starts Debian's
Chromium headless inside the sandbox and attaches to that
(subagents/sandbox_browser.py); otherwise it launches Chromium on this machine
through Playwright's sync API.
It starts on first use and keeps its state across delegations until `close()`.
Events that happen between actions (JavaScript dialogs, new tabs and popups,
downloads) are collected as notes the next action result reports. Downloads
are written into the sandbox's `~/Downloads` through `Sandbox.write_file`, so a
local and a remote sandbox are served by the same code.

Playwright's sync API is bound to the thread that started it: use one session
from one thread.
"""

from __future__ import annotations

import contextlib
import mimetypes
import posixpath
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlparse

from playwright.sync_api import (
    Browser,
    BrowserContext,
    Dialog,
    Download,
    Locator,
    Page,
    Playwright,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from stateact.sandbox.base import BrowserPlace, Sandbox
from stateact.subagents import settings
from stateact.subagents.dom_markdown import ELEMENT_ATTRIBUTE, PageSnapshot, render_page, snapshot_page
from stateact.subagents.sandbox_browser import SandboxChromium


class WebActionError(RuntimeError):
    """An action could not be done; the message tells the model why and what to do instead."""


class BrowserSession:
    """One browser for the run. `page` is the active tab."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.downloads: list[str] = []
        """Sandbox paths of every file downloaded in this session, in order."""
        self.next_id = 1
        self.on_snapshot: Callable[[PageSnapshot], object] | None = None
        """Called with every page serialization (the run's web page log)."""
        self._playwright: Playwright | None = None
        self._profile: tempfile.TemporaryDirectory | None = None
        self._inside: SandboxChromium | None = None
        """The Chromium started inside the sandbox (None: attached to the sandbox's `web_browser_url`, or
        launched by Playwright on the host)."""
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._tab_ids: dict[Page, int] = {}
        self._tab_counter = 0
        self._opened: list[Page] = []
        self._pending_downloads: list[Download] = []
        self._notes: list[str] = []

    # -- lifecycle -----------------------------------------------------------
    @property
    def started(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    def start(self) -> None:
        """Launch or attach, once; a browser that went away is started again."""
        if self.started:
            return
        if self._playwright is not None:
            self._notes.append(
                "The browser had gone away; a new one was started (tabs and cookies are lost)."
            )
            self._stop_playwright()
        self._playwright = sync_playwright().start()
        try:
            place = self.sandbox.browser_place()
            if place is BrowserPlace.ATTACHED:
                self._attach(self.sandbox.web_browser_url)
            elif place is BrowserPlace.INSIDE:
                self._inside = SandboxChromium(self.sandbox)
                self._attach(self._inside.start())
                self._inside.stage_downloads(self._browser)
            else:
                # A persistent profile, as a user's browser has: chrome:// pages work in it.
                self._profile = tempfile.TemporaryDirectory(
                    prefix="stateact-web-profile-", ignore_cleanup_errors=True
                )
                width, height = settings.WEB_VIEWPORT
                self._context = self._playwright.chromium.launch_persistent_context(
                    self._profile.name,
                    executable_path=settings.WEB_CHROMIUM_PATH,
                    headless=True,
                    args=list(settings.WEB_CHROMIUM_ARGS),
                    viewport={"width": width, "height": height},
                    accept_downloads=True,
                )
                self._browser = self._context.browser
        except BaseException:
            self._stop_playwright()
            raise
        self._context.on("page", self._on_new_page)
        for page in self._context.pages:
            self._adopt(page)
        self._page = self._context.pages[-1] if self._context.pages else self._context.new_page()
        self._opened.clear()

    def _attach(self, endpoint: str) -> None:
        self._browser = self._playwright.chromium.connect_over_cdp(
            endpoint, timeout=settings.WEB_NAVIGATION_TIMEOUT_MS
        )
        contexts = self._browser.contexts
        self._context = contexts[0] if contexts else self._browser.new_context(accept_downloads=True)

    def close(self) -> None:
        """Close the browser it started (an attached one is only disconnected); safe to call twice."""
        with contextlib.suppress(PlaywrightError):
            if self._profile is not None and self._context is not None:
                self._context.close()
            elif self._browser is not None:
                self._browser.close()
        self._stop_playwright()

    def _stop_playwright(self) -> None:
        if self._playwright is not None:
            with contextlib.suppress(PlaywrightError):
                self._playwright.stop()
        if self._inside is not None:
            self._inside.stop()
            self._inside = None
        self._playwright = self._browser = self._context = self._page = None
        if self._profile is not None:
            self._profile.cleanup()
            self._profile = None
        self._tab_ids.clear()
        self._opened.clear()
        self._pending_downloads.clear()

    # -- tabs ------------------------------------------------------------------
    def _adopt(self, page: Page) -> None:
        if page in self._tab_ids:
            return
        self._tab_counter += 1
        self._tab_ids[page] = self._tab_counter
        if self._inside is not None:  # as Playwright's own launch does; an attached one is left alone
            width, height = settings.WEB_VIEWPORT
            with contextlib.suppress(PlaywrightError):
                page.set_viewport_size({"width": width, "height": height})
        page.set_default_timeout(settings.WEB_ACTION_TIMEOUT_MS)
        page.set_default_navigation_timeout(settings.WEB_NAVIGATION_TIMEOUT_MS)
        page.on("dialog", self._on_dialog)
        page.on("download", self._on_download)
        page.on("close", self._on_close)

    def _on_new_page(self, page: Page) -> None:
        self._adopt(page)
        self._opened.append(page)

    def _on_download(self, download: Download) -> None:
        self._pending_downloads.append(download)

    def _on_close(self, page: Page) -> None:
        closed = self._tab_ids.pop(page, None)
        if page is self._page:
            remaining = self.tabs()
            self._page = remaining[-1][1] if remaining else None
            if remaining:
                self._notes.append(f"The active tab {closed} closed; tab {remaining[-1][0]} is active now.")

    def _on_dialog(self, dialog: Dialog) -> None:
        kind = dialog.type
        text = f"A JavaScript {kind} said {dialog.message!r}; it was accepted"
        if kind == "prompt":
            text += f" with {dialog.default_value!r}"
        self._notes.append(text + ".")
        with contextlib.suppress(PlaywrightError):
            dialog.accept(dialog.default_value if kind == "prompt" else None)

    @property
    def page(self) -> Page:
        """The active tab; a new blank one when every tab was closed."""
        self.start()
        if self._page is None or self._page.is_closed():
            self._page = self._context.new_page()
            self._opened.clear()
        return self._page

    def tabs(self) -> list[tuple[int, Page]]:
        return sorted(((tab, page) for page, tab in self._tab_ids.items() if not page.is_closed()))

    def tab(self, tab_id: int) -> Page:
        for tab, page in self.tabs():
            if tab == tab_id:
                return page
        raise WebActionError(f"There is no tab {tab_id}. Open tabs: {self.tabs_line() or 'none'}.")

    def new_tab(self) -> Page:
        """Open a blank tab and make it active."""
        page = self.page.context.new_page()
        self._adopt(page)
        if page in self._opened:
            self._opened.remove(page)
        self.switch_to(page)
        return page

    def switch_to(self, page: Page) -> None:
        self._page = page
        page.bring_to_front()

    def tab_title(self, page: Page) -> str:
        try:
            return page.title() or page.url
        except PlaywrightError:
            return page.url

    def tabs_line(self) -> str:
        """One line naming every tab, marking the active one."""
        return " · ".join(
            f"tab {tab}{' (active)' if page is self._page else ''}: {self.tab_title(page)[:60]}"
            for tab, page in self.tabs()
        )

    # -- elements ------------------------------------------------------------------
    def element(self, index: int, visible: bool = True) -> Locator:
        """The element stamped `[index]` on the active tab, searched in every frame."""
        selector = f'[{ELEMENT_ATTRIBUTE}="{index}"]'
        for frame in self.page.frames:
            try:
                found = frame.locator(selector)
                if not found.count():
                    continue
            except PlaywrightError:
                continue
            if visible and not found.first.is_visible():
                raise WebActionError(
                    f"Element [{index}] is on the page but hidden now (a closed menu, a collapsed section). "
                    "Use an element that the page below shows."
                )
            return found.first
        if index >= self.next_id or index < 1:
            raise WebActionError(f"There is no element [{index}]: use an index shown in the page below.")
        raise WebActionError(
            f"Element [{index}] is no longer on this page (it was removed, or the page changed). "
            "Use an index from the fresh page below."
        )

    # -- observing -------------------------------------------------------------------
    def snapshot(self) -> PageSnapshot:
        """Serialize the active tab, retrying when a navigation replaced the document meanwhile."""
        page = self.page
        for attempt in range(3):
            try:
                snap = snapshot_page(page, self.next_id)
                self.next_id = snap.next_id
                if self.on_snapshot is not None:
                    self.on_snapshot(snap)
                return snap
            except PlaywrightError as exc:
                if attempt == 2 or "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                    raise
                self._wait_loaded(page)
        raise AssertionError("unreachable")

    def observe(self) -> str:
        """The active tab as markdown with its header; a clear note when the page cannot be read."""
        try:
            snap = self.snapshot()
        except PlaywrightError as exc:
            return f"(The page at {self.page.url} could not be read: {error_summary(exc)})"
        tabs = self.tabs()
        return render_page(snap, f"Tabs: {self.tabs_line()}" if len(tabs) > 1 else "")

    # -- after an action ---------------------------------------------------------------
    def settle(self, watch_for_popups: bool = False) -> list[str]:
        """Wait for the action's effects; return notes on new tabs, dialogs, loading and downloads."""
        page = self.page
        if watch_for_popups:
            waited = 0.0
            while waited < settings.WEB_NEW_TAB_POLL_S and not self._opened and not self._pending_downloads:
                page.wait_for_timeout(settings.WEB_NEW_TAB_POLL_INTERVAL_S * 1000)
                waited += settings.WEB_NEW_TAB_POLL_INTERVAL_S
        notes: list[str] = []
        opened = [p for p in self._opened if not p.is_closed()]
        self._opened.clear()
        if opened:
            newest = opened[-1]
            self._wait_loaded(newest)
            self.switch_to(newest)
            notes.append(
                f"A new tab opened (tab {self._tab_ids.get(newest)}: {newest.url}); it is now the active tab."
            )
        if not self._wait_loaded(self.page):
            notes.append("The page is still loading; what has loaded so far is shown.")
        notes.extend(self.save_downloads())
        notes.extend(self.drain_notes())
        return notes

    def _wait_loaded(self, page: Page) -> bool:
        try:
            page.wait_for_load_state("domcontentloaded", timeout=settings.WEB_SETTLE_TIMEOUT_MS)
            return True
        except PlaywrightTimeoutError:
            return False
        except PlaywrightError:
            return True

    def drain_notes(self) -> list[str]:
        notes, self._notes = self._notes, []
        return notes

    def wait_for_download(self, timeout_ms: int) -> bool:
        """Let events arrive until a download starts or the time is up."""
        waited = 0.0
        step = settings.WEB_NEW_TAB_POLL_INTERVAL_S * 1000
        while not self._pending_downloads and waited < timeout_ms:
            self.page.wait_for_timeout(step)
            waited += step
        return bool(self._pending_downloads)

    # -- downloads -------------------------------------------------------------------
    @property
    def downloads_dir(self) -> str:
        return posixpath.join(self.sandbox.home, "Downloads")

    def save_downloads(self) -> list[str]:
        """Write finished downloads into the sandbox; one note per file."""
        notes = []
        while self._pending_downloads:
            download = self._pending_downloads.pop(0)
            try:
                data = self._inside.take(download) if self._inside else _saved_bytes(download)
            except (PlaywrightError, OSError) as exc:
                notes.append(f"A download of {download.url} failed: {error_summary(exc)}.")
                continue
            path = self.store_download(download.suggested_filename, data)
            notes.append(f"Downloaded {download.url} to {path}.")
        return notes

    def download_url(self, url: str) -> str:
        """Fetch a URL with the browser's cookies and save it as a download; returns the note."""
        reached = self.sandbox.harness_url(url)  # the request is made from this machine, not the sandbox
        headers = {"Host": urlparse(url).netloc} if reached != url else None
        response = self.page.context.request.get(
            reached, headers=headers, timeout=settings.WEB_NAVIGATION_TIMEOUT_MS
        )
        if not response.ok:
            raise WebActionError(f"Downloading {url} failed: HTTP {response.status} {response.status_text}.")
        final = url if response.url == reached else response.url
        name = _filename_from_disposition(response.headers.get("content-disposition", ""))
        name = name or posixpath.basename(unquote(urlparse(final).path)) or "download"
        if "." not in name:
            name += mimetypes.guess_extension(response.headers.get("content-type", "").split(";")[0]) or ""
        path = self.store_download(name, response.body())
        kind = response.headers.get("content-type", "unknown type").split(";")[0]
        return f"Downloaded {final} ({kind}) to {path}."

    def store_download(self, name: str, data: bytes) -> str:
        """Write bytes under ~/Downloads with a free name; returns the sandbox path."""
        safe = re.sub(r"[/\\\x00]", "_", name).strip(". ") or "download"
        stem, ext = posixpath.splitext(safe)
        path = posixpath.join(self.downloads_dir, safe)
        copy = 1
        while path in self.downloads or self.sandbox.exists(path):
            path = posixpath.join(self.downloads_dir, f"{stem} ({copy}){ext}")
            copy += 1
        self.sandbox.write_file(path, data)
        self.downloads.append(path)
        return path


def _saved_bytes(download: Download) -> bytes:
    """The bytes of a download of a browser on this machine, or one attached over CDP."""
    with tempfile.TemporaryDirectory() as scratch:
        local = Path(scratch) / "file"
        download.save_as(local)
        return local.read_bytes()


def _filename_from_disposition(header: str) -> str:
    match = re.search(r"filename\*=(?:UTF-8'')?([^;]+)", header, re.IGNORECASE)
    if match:
        return unquote(match.group(1).strip().strip('"'))
    match = re.search(r'filename="?([^";]+)"?', header, re.IGNORECASE)
    return match.group(1).strip() if match else ""


def error_summary(exc: BaseException) -> str:
    """The meaning of a Playwright error: its first line, plus the telling steps of its call log."""
    lines = [line.strip().lstrip("- ") for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    head, log = lines[0], lines[lines.index("Call log:") + 1 :] if "Call log:" in lines else []
    telling = [step for step in log if not _ROUTINE_STEP.match(step)]
    steps = list(dict.fromkeys(telling))[-2:]
    return head + (f" ({'; '.join(steps)})" if steps else "")


_ROUTINE_STEP = re.compile(
    r"^(retrying|waiting \d+ ?ms|\d+ × |attempting|scrolling into view|done scrolling)"
)
