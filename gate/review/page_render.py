"""A page as a browser renders it, for the gate: headless Chromium on the harness's host, with every
request that is not a GET of one of the task's sites refused, so the page's scripts can read but not
change anything.

    html, refused = rendered_html("http://127.0.0.1:18431/rates/", allowed=is_task_site)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Route, sync_playwright

from stateact.gate import settings
from stateact.gate.review.browser_cookies import Cookie
from stateact.subagents import settings as browser_settings


class RenderError(Exception):
    """The page could not be rendered (Chromium did not start, the page did not load)."""


def rendered_html(
    url: str,
    allowed: Callable[[str], bool],
    reach: Callable[[str], str] = str,
    cookies: Sequence[Cookie] = (),
) -> tuple[str, list[str]]:
    """The page's HTML after its scripts ran, and the requests refused on the way (method and URL):
    only GETs of URLs that `allowed` accepts go out, each to where `reach` says its server is.

    Playwright's sync API runs in a thread of its own, so a browser the web subagent holds in this
    thread is not disturbed. The page's context starts with `cookies` (the sandbox browser's session)."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="gate-render") as pool:
        return pool.submit(_render, url, allowed, reach, cookies).result()


def _render(
    url: str, allowed: Callable[[str], bool], reach: Callable[[str], str], cookies: Sequence[Cookie]
) -> tuple[str, list[str]]:
    refused: list[str] = []

    def only_reads(route: Route) -> None:
        request = route.request
        if request.method == "GET" and allowed(request.url):
            route.continue_(url=reach(request.url))
        else:
            refused.append(f"{request.method} {request.url}")
            route.abort()

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=browser_settings.WEB_CHROMIUM_PATH,
                headless=True,
                args=list(browser_settings.WEB_CHROMIUM_ARGS),
            )
            try:
                context = browser.new_context()
                context.add_cookies([_playwright_cookie(c) for c in cookies if c.host.lstrip(".")])
                page = context.new_page()
                page.route("**/*", only_reads)
                page.goto(url, wait_until="networkidle", timeout=settings.GATE_RENDER_TIMEOUT_MS)
                return page.content(), refused
            finally:
                browser.close()
    except PlaywrightError as exc:
        raise RenderError(str(exc).splitlines()[0]) from exc


def _playwright_cookie(cookie: Cookie) -> dict:
    return {
        "name": cookie.name,
        "value": cookie.value,
        "domain": cookie.host,
        "path": cookie.path,
        "secure": cookie.secure,
        "httpOnly": cookie.http_only,
        **({"expires": cookie.expires} if cookie.expires is not None else {}),
    }
