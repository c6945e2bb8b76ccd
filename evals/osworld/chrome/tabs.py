"""Getters that read Chrome's tabs and pages over DevTools, with OSWorld's parameters and values.

- `open_tabs_info`: `[{title, url}]` of every tab.
- `active_url_from_accessTree` (`goto_prefix`, default `https://`): the prefix plus the active tab's
  address-bar text. On an OSWorld VM the text is read from the accessibility tree, as OSWorld reads it;
  elsewhere it is the active tab's URL as the address bar shows it (evals/osworld/chrome/devtools.py).
- `active_tab_info`: that URL opened in a new tab: `{title, url, content}` (its HTML).
- `active_tab_url_parse` (`parse_keys`, `replace`, `split_list`), `url_dashPart` (`partIndex`,
  `needDeleteId`, `returnType`, `key`): parts of that URL.
- `active_tab_html_parse` (`category` with its objects): texts of elements of the open tab at that URL.
- `page_info` (`url`): `{title, url, content}` of the URL opened in a new tab.
- `pdf_from_url` (`path` is the URL, `dest`): the page printed to PDF in the scoring folder.

A browser that cannot be reached gives what OSWorld's getter gives (None, [] or an error record).
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from lxml import etree
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError

from stateact.evals.osworld.chrome.devtools import (
    PAGE_TIMEOUT_MS,
    TAB_TIMEOUT_MS,
    ChromeUnreachable,
    active_tab_url,
    address_bar_text,
    attached,
    pages,
)
from stateact.evals.osworld.task import TaskError
from stateact.sandbox.base import SandboxUnsupported

ADDRESS_BAR = "//application[@name='Google Chrome']//entry[@name='Address and search bar']"
"""Chrome's address bar in an AT-SPI tree."""


def _address_bar(context: Any) -> str | None:
    """The active tab's address-bar text, from the accessibility tree when the sandbox has one."""
    try:
        tree = context.sandbox.accessibility_tree()
    except SandboxUnsupported:
        url = active_tab_url(context.sandbox)
        return address_bar_text(url) if url else None
    entries = etree.fromstring(tree.encode()).xpath(ADDRESS_BAR)
    return entries[0].text if entries and entries[-1].text else None


def active_url_from_access_tree(params: dict, context: Any) -> str | None:
    text = _address_bar(context)
    return None if text is None else params.get("goto_prefix", "https://") + text


def _page_record(page: Page, url: str) -> dict[str, str]:
    """Open `url` in `page` and read `{title, url, content}` once the network is idle."""
    try:
        page.goto(url, wait_until="networkidle", timeout=PAGE_TIMEOUT_MS)
        return {"title": page.title(), "url": page.url, "content": page.content()}
    except PlaywrightError as exc:
        if "Timeout" not in type(exc).__name__:
            raise
        return {"title": "Load timeout", "url": page.url, "content": page.content()}


def active_tab_info(params: dict, context: Any) -> dict[str, str] | None:
    url = active_url_from_access_tree(params, context)
    if url is None:
        return None
    try:
        with attached(context.sandbox) as browser:
            return _page_record(browser.new_page(), url)
    except (ChromeUnreachable, PlaywrightError):
        return None


def page_info(params: dict, context: Any) -> dict[str, str]:
    url = params["url"]
    try:
        with attached(context.sandbox, relaunch=True) as browser:
            return _page_record(browser.new_page(), url)
    except (ChromeUnreachable, PlaywrightError):
        return {"title": "Connection failed", "url": url, "content": ""}


def open_tabs_info(params: dict, context: Any) -> list[dict[str, str]]:
    try:
        with attached(context.sandbox, relaunch=True) as browser:
            return [_tab_record(page) for page in pages(browser)]
    except ChromeUnreachable:
        return []


def _tab_record(page: Page) -> dict[str, str]:
    try:
        page.wait_for_load_state("networkidle", timeout=TAB_TIMEOUT_MS)
        return {"title": page.title(), "url": page.url}
    except PlaywrightError as exc:
        title = "Load timeout" if "Timeout" in type(exc).__name__ else "Error encountered"
        return {"title": title, "url": page.url}


def pdf_from_url(params: dict, context: Any) -> str:
    target = context.work_dir / params["dest"]
    target.parent.mkdir(parents=True, exist_ok=True)
    with attached(context.sandbox, relaunch=True) as browser:
        page = browser.new_page()
        page.goto(params["path"], wait_until="networkidle", timeout=PAGE_TIMEOUT_MS)
        page.pdf(path=str(target))
    return str(target)


def active_tab_url_parse(params: dict, context: Any) -> dict[str, Any] | None:
    url = active_url_from_access_tree(params, context)
    if url is None:
        return None
    query = parse_qs(urlparse(url).query)
    values: dict[str, Any] = {key: query.get(key, [""])[0] for key in params["parse_keys"]}
    for old, new in params.get("replace", {}).items():
        values[new] = values.pop(old)
    if params.get("split_list", False):
        values = {key: value.split(",") for key, value in values.items()}
    return values


def url_dash_part(params: dict, context: Any) -> Any:
    url = active_url_from_access_tree(params, context)
    if url is None:
        return None
    parts = url.split("/")
    index = int(params["partIndex"])
    if index >= len(parts):
        return None
    part = parts[index]
    if params.get("needDeleteId", False):
        part = part.split("?")[0]
    kind = params["returnType"]
    if kind not in ("string", "json"):
        raise TaskError(f"url_dashPart: returnType must be 'string' or 'json', not {kind!r}")
    return part if kind == "string" else {params["key"]: part}


def active_tab_html_parse(params: dict, context: Any) -> dict[str, Any] | None:
    url = active_url_from_access_tree(params, context)
    if url is None:
        return None
    category = params["category"]
    if category not in _EXTRACTORS:
        raise TaskError(
            f"active_tab_html_parse: category {category!r} is not supported; supported: {', '.join(_EXTRACTORS)}"
        )
    unknown = set(params) - {"type", "category", "goto_prefix", *_EXTRACTORS[category][1]}
    if unknown:
        raise TaskError(f"active_tab_html_parse: {category} does not support {', '.join(sorted(unknown))}")
    with attached(context.sandbox, relaunch=True) as browser:
        page = _tab_at(browser, url)
        return {} if page is None else _EXTRACTORS[category][0](page, params)


def _tab_at(browser: Browser, url: str) -> Page | None:
    """The open tab at `url` (percent-decoded, trailing `/` ignored), once its network is idle."""

    def normal(address: str) -> str:
        return unquote(address).rstrip("/")

    for page in pages(browser):
        with contextlib.suppress(PlaywrightError):
            page.wait_for_load_state("networkidle", timeout=PAGE_TIMEOUT_MS)
        if not page.is_closed() and normal(page.url) == normal(url):
            return page
    return None


def _texts(page: Page, selector: str) -> list[str]:
    return [(element.text_content() or "").strip() for element in page.query_selector_all(selector)]


def _by_class(page: Page, params: dict) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, ranks in params.get("class_multiObject", {}).items():
        texts = _texts(page, "." + name)
        for rank, key in ranks.items():
            found[key] = texts[int(rank)] if len(texts) > int(rank) else ""
    for name, key in params.get("class_singleObject", {}).items():
        texts = _texts(page, "." + name)
        found[key] = texts[0] if texts else ""
    return found


def _by_xpath(page: Page, params: dict) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for xpath, key in params.get("xpathObject", {}).items():
        elements = page.locator(f"xpath={xpath}")
        found[key] = (elements.first.text_content() or "").strip() if elements.count() else ""
    return found


def _by_input(page: Page, params: dict) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for xpath, key in params.get("inputObject", {}).items():
        inputs = page.locator(f"xpath={xpath}")
        found[key] = inputs.first.input_value().strip() if inputs.count() else ""
    return found


def _by_label(page: Page, params: dict) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for label, key in params.get("labelObject", {}).items():
        with contextlib.suppress(PlaywrightError):
            found[key] = (
                page.locator(f"text={label}").first.text_content(timeout=TAB_TIMEOUT_MS) or ""
            ).strip()
        found.setdefault(key, "")
    return found


_EXTRACTORS = {
    "class": (_by_class, ("class_multiObject", "class_singleObject")),
    "xpath": (_by_xpath, ("xpathObject",)),
    "input": (_by_input, ("inputObject",)),
    "label": (_by_label, ("labelObject",)),
}
"""Per category: the function that reads the elements, and the parameters it reads."""
