"""Reaching the sandbox's Chrome over DevTools, as OSWorld's getters and setup steps do.

OSWorld's Chrome tasks start `google-chrome --remote-debugging-port=1337` and forward the sandbox's port
9222 to it; Playwright attaches there with `connect_over_cdp` (`Sandbox.cdp_url` says where that is
from this machine). The active tab is the first page of DevTools' target list, which Chrome orders by
when a tab was last active.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from stateact.sandbox.base import Sandbox

CHROME_LAUNCH = "google-chrome --remote-debugging-port=1337"
"""What OSWorld starts when no browser answers (a getter that reopens Chrome)."""
CONNECT_ATTEMPTS = 15
CONNECT_RETRY_S = 5.0
"""A setup step tries this often this far apart (OSWorld's 15 times, 5 s apart)."""
RELAUNCH_WAIT_S = 5.0
"""How long a getter waits after reopening Chrome before it attaches again."""
PAGE_TIMEOUT_MS = 60_000
"""How long a page may take to load (OSWorld's 60 s)."""
TAB_TIMEOUT_MS = 30_000
"""How long an open tab may take to settle before its title is read (OSWorld's 30 s)."""
LIST_TIMEOUT_S = 10.0


class ChromeUnreachable(RuntimeError):
    """No browser answers at the sandbox's DevTools address."""


@contextmanager
def attached(
    sandbox: Sandbox, attempts: int = 1, relaunch: bool = False, launch: str = CHROME_LAUNCH
) -> Iterator[Browser]:
    """The sandbox's Chrome, attached over CDP (tried `attempts` times, `CONNECT_RETRY_S` apart); with
    `relaunch`, a Chrome that does not answer is started with `launch` (as OSWorld starts it) and
    attached once more.
    Raises ChromeUnreachable. Leaving detaches; the browser keeps running."""
    endpoint = sandbox.cdp_url()
    with sync_playwright() as playwright:
        browser = None
        for attempt in range(attempts + int(relaunch)):
            if attempt == attempts:
                sandbox.launch(launch)
                time.sleep(RELAUNCH_WAIT_S)
            elif attempt:
                time.sleep(CONNECT_RETRY_S)
            try:
                browser = playwright.chromium.connect_over_cdp(endpoint)
                break
            except PlaywrightError as exc:
                error = exc
        if browser is None:
            raise ChromeUnreachable(f"no Chrome answers DevTools at {endpoint}: {error}")
        try:
            yield browser
        finally:
            browser.close()  # for an attached browser: disconnect


def pages(browser: Browser) -> list[Page]:
    """Every tab of every context, in Chrome's order."""
    return [page for context in browser.contexts for page in context.pages]


def active_tab_url(sandbox: Sandbox) -> str | None:
    """The URL of the tab the user last had in front (None: no browser, or no tab)."""
    try:
        targets = httpx.get(f"{sandbox.cdp_url()}/json/list", timeout=LIST_TIMEOUT_S).json()
    except (httpx.HTTPError, ValueError):
        return None
    return next((target["url"] for target in targets if target.get("type") == "page"), None)


def address_bar_text(url: str) -> str:
    """The URL as Chrome's address bar shows it: no `http://` or `https://`, no leading `www.`, no lone `/`."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url
    text = url.split("://", 1)[1]
    text = text.removeprefix("www.")
    if parts.path == "/" and not parts.query and not parts.fragment:
        text = text.removesuffix("/")
    return text
