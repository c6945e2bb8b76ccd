"""Getters that read live websites in the sandbox's Chrome, as OSWorld's task files name them.

- `info_from_website` (`url`, `infos`, `backups`): the URL opened in a new tab of the first context, then
  per info (the tab taken back to `url` first when it left it) an `action` on a CSS `selector`:
  `inner_text`, `attribute` (`attribute`), and `click_and_inner_text` / `click_and_attribute`, whose
  selectors are clicked in turn, the last one read. Any failure (no browser, a site that does not
  load, a selector not found within 10 s) gives `backups` instead.
- `gotoRecreationPage_and_get_html_content` (`selector`: `class`, `class`, `order`): recreation.gov
  searched for "Diamond", the highlighted result opened (a new tab), its `next-available` button
  clicked when there is one, and the text of the `order`-th element of that class read:
  `{"expected": {CLASS: text}}`, or `__EVALUATION_FAILED__` for it when there is no such element.
  Three attempts, 5 s apart; after the last `{"expected": {"error": "__EVALUATION_FAILED__", ...}}`.

Both need the live site when a task is scored (`WEB_ADDRESSES` says which, for `stateact eval check`).
"""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from stateact.evals.osworld.chrome.devtools import (
    CHROME_LAUNCH,
    PAGE_TIMEOUT_MS,
    TAB_TIMEOUT_MS,
    ChromeUnreachable,
    attached,
)
from stateact.evals.osworld.task import TaskError

SELECTOR_TIMEOUT_MS = 10_000
"""How long `info_from_website` waits for an element (OSWorld's 10 s)."""
FAILED = "__EVALUATION_FAILED__"
"""The value OSWorld's metrics read as a getter that could not read the site."""
_INFO_ACTIONS = ("inner_text", "attribute", "click_and_inner_text", "click_and_attribute")


def info_from_website(params: dict, context: Any) -> Any:
    url = params["url"]
    infos = params.get("infos", [])
    unknown = {info.get("action", "inner_text") for info in infos} - set(_INFO_ACTIONS)
    if unknown:
        raise TaskError(
            f"info_from_website: actions {', '.join(sorted(unknown))} are not supported; supported: "
            + ", ".join(_INFO_ACTIONS)
        )
    try:
        with attached(context.sandbox, relaunch=True) as browser:
            page = browser.contexts[0].new_page()
            try:
                page.goto(url)
                page.wait_for_load_state("load")
                return [_read_info(page, url, info) for info in infos]
            finally:
                page.close()
    except (ChromeUnreachable, PlaywrightError):
        return params.get("backups")


def _read_info(page: Page, url: str, info: dict) -> str | None:
    """One info's value: its selectors but the last clicked in turn (each click's page loaded), then
    the last one's inner text or attribute."""
    if page.url != url:
        page.goto(url)
        page.wait_for_load_state("load")
    action = info.get("action", "inner_text")
    selectors = info["selector"] if action.startswith("click_and_") else [info["selector"]]
    for selector in selectors[:-1]:
        page.wait_for_selector(selector, state="attached", timeout=SELECTOR_TIMEOUT_MS).click()
        page.wait_for_load_state("load")
    # OSWorld waits its default 30 s (not 10 s) for the element the clicks of `click_and_attribute` lead to
    timeout = TAB_TIMEOUT_MS if action == "click_and_attribute" else SELECTOR_TIMEOUT_MS
    element = page.wait_for_selector(selectors[-1], state="attached", timeout=timeout)
    if action.endswith("attribute"):
        return element.get_attribute(info["attribute"])
    return element.inner_text()


@dataclass(frozen=True)
class RecreationSite:
    """Where `gotoRecreationPage_and_get_html_content` starts, and how long it lets the site settle."""

    start_urls: tuple[str, ...] = (
        "https://www.recreation.gov/",
        "http://www.recreation.gov/",
        "https://recreation.gov/",
    )
    """Tried in turn until one loads."""
    search_settle_s: float = 10.0
    """The pause after the search is sent (OSWorld's 10 s)."""
    result_settle_s: float = 30.0
    """The pause after the search result's tab opens (OSWorld's 30 s)."""
    button_settle_s: float = 2.0
    """The pause before the `next-available` button is looked for (OSWorld's 2 s)."""
    retry_s: float = 5.0
    """The pause before the next of `ATTEMPTS` attempts (OSWorld's 5 s)."""


RECREATION = RecreationSite()
SEARCH_TEXT = "Diamond"
ATTEMPTS = 3
IDLE_TIMEOUT_MS = 30_000
NEXT_AVAILABLE = (
    "button.next-available",
    "button[class*='next-available']",
    "button[class*='next']",
    ".next-available",
    "[data-testid*='next']",
)
"""The selectors of the `next-available` button, tried in turn (each for up to `IDLE_TIMEOUT_MS`)."""
RECREATION_LAUNCH = shlex.join(
    [
        *shlex.split(CHROME_LAUNCH),
        "--no-sandbox",
        "--disable-web-security",
        "--disable-features=VizDisplayCompositor",
        "--disable-dev-shm-usage",
        "--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/120.0.0.0 Safari/537.36",
    ]
)
"""What OSWorld starts for this getter when no browser answers."""
BROWSER_HEADERS = {
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,image/webp,image/apng,*/*;q=0.8",
    "Accept-Language": "en-US,en;q=0.9",
    "Accept-Encoding": "gzip, deflate, br",
    "DNT": "1",
    "Connection": "keep-alive",
    "Upgrade-Insecure-Requests": "1",
}
"""The headers OSWorld sends so that the site serves it as a person's browser."""


class RecreationSiteError(RuntimeError):
    """None of the site's start addresses loads."""


def recreation_page(params: dict, context: Any, site: RecreationSite = RECREATION) -> dict[str, dict]:
    error: Exception | None = None
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(site.retry_s)
        try:
            return {"expected": _next_available(params, context, site)}
        except (ChromeUnreachable, PlaywrightError, RecreationSiteError) as exc:
            error = exc
    return {"expected": {"error": FAILED, "error_message": f"Failed after {ATTEMPTS} attempts: {error}"}}


def _next_available(params: dict, context: Any, site: RecreationSite) -> dict[str, Any]:
    """One attempt: the search, the result's tab, its next-available dates, and the element read."""
    with attached(context.sandbox, relaunch=True, launch=RECREATION_LAUNCH) as browser:
        page = browser.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        page.set_extra_http_headers(BROWSER_HEADERS)
        _open_first(page, site.start_urls)
        with contextlib.suppress(PlaywrightError):
            page.wait_for_load_state("networkidle", timeout=IDLE_TIMEOUT_MS)
        page.wait_for_selector("input#hero-search-input", state="visible")
        page.fill("input#hero-search-input", SEARCH_TEXT)
        page.wait_for_selector("button.nav-search-button", state="visible")
        page.click("button.nav-search-button")
        time.sleep(site.search_settle_s)
        page.wait_for_selector(".search-result-highlight--success", state="visible")
        with page.expect_popup() as popup:
            page.click(".search-result-highlight--success")
        time.sleep(site.result_settle_s)
        result = popup.value
        result.set_default_timeout(PAGE_TIMEOUT_MS)
        result.wait_for_load_state("networkidle")
        time.sleep(site.button_settle_s)
        _click_first(result, NEXT_AVAILABLE)
        return _element_text(result, params)


def _open_first(page: Page, urls: tuple[str, ...]) -> None:
    """Go to the first of `urls` that loads, by DOM, then full load, then network idle."""
    for url in urls:
        for wait_until in ("domcontentloaded", "load", "networkidle"):
            with contextlib.suppress(PlaywrightError):
                page.goto(url, wait_until=wait_until, timeout=PAGE_TIMEOUT_MS)
                return
    raise RecreationSiteError(f"none of {', '.join(urls)} loads")


def _click_first(page: Page, selectors: tuple[str, ...]) -> None:
    """Click the first of `selectors` that is visible; none is not an error."""
    for selector in selectors:
        with contextlib.suppress(PlaywrightError):
            page.wait_for_selector(selector, state="visible", timeout=IDLE_TIMEOUT_MS)
            page.click(selector, timeout=IDLE_TIMEOUT_MS)
            return


def _element_text(page: Page, params: dict) -> dict[str, Any]:
    """`{CLASS: text}` of the `order`-th (or first) element of the class (`__EVALUATION_FAILED__` for
    none); a `selector` other than `class` gives `{}`, a missing one `{"extraction_error": ...}`."""
    if "selector" not in params or (params["selector"] == "class" and "class" not in params):
        return {"extraction_error": FAILED}
    if params["selector"] != "class":
        return {}
    name = params["class"]
    try:
        elements = page.query_selector_all("." + name)
        index = int(params.get("order", 0))
        if index >= len(elements):
            return {name: FAILED}
        text = elements[index].text_content()
        return {name: text.strip() if text else text}
    except (PlaywrightError, ValueError, IndexError):
        return {name: FAILED}


WEB_ADDRESSES: dict[str, Callable[[dict], list[str]]] = {
    "info_from_website": lambda params: [str(params.get("url", ""))],
    "gotoRecreationPage_and_get_html_content": lambda params: [RECREATION.start_urls[0]],
}
"""Per getter: the addresses off this machine that it opens when the task is scored."""
