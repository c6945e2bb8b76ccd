"""Chrome's metrics: tabs, URLs, bookmarks, cookies, history and settings, as OSWorld scores them.

Their inputs come from the Chrome getters (evals/osworld/chrome/): URLs and tab lists read over DevTools,
profile files (Bookmarks, History, Cookies, Preferences, Local State). URL equality is OSWorld's:
a URL without a scheme gets `http://`; the host loses its public suffix and a lone `www` subdomain
(`www.airbnb.com.sg` and `airbnb.com` are the same site) and its port; a path of `/` is empty.
The public suffixes are tldextract's bundled list (never fetched).
"""

from __future__ import annotations

import re
from itertools import product
from typing import Any
from urllib.parse import ParseResult, urlparse, urlunparse

import tldextract

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+\-.]*://")
_SUFFIXES = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
"""Public suffixes from the list tldextract ships: scoring never reaches the network."""


def normalize_url(url: str) -> str:
    """The form in which two URLs of one page are equal (see the module's docstring)."""
    parsed = urlparse(url if _SCHEME.match(url) else f"http://{url}")
    parts = _SUFFIXES(parsed.netloc.lower())
    subdomain = "" if parts.subdomain == "www" else parts.subdomain
    host = f"{subdomain}.{parts.domain}" if subdomain else parts.domain
    path = "" if parsed.path == "/" else parsed.path
    return urlunparse(
        ParseResult(parsed.scheme.lower(), host, path, parsed.params, parsed.query, parsed.fragment)
    )


def same_url(first: str | None, second: str | None) -> bool:
    """Whether two URLs name the same page; None equals only None."""
    if first is None or second is None:
        return first == second
    return normalize_url(first) == normalize_url(second)


def _url_of(tab: Any) -> Any:
    return tab.get("url") if isinstance(tab, dict) else tab


def is_expected_active_tab(active_tab: Any, rule: dict[str, Any]) -> float:
    """The active tab (a URL, or a tab's dict) is `rule["url"]` (rule type `url`)."""
    if not active_tab or rule["type"] != "url":
        return 0.0
    return float(same_url(rule["url"], _url_of(active_tab)))


def is_expected_url_pattern_match(result: Any, rules: dict[str, Any]) -> float:
    """Every regular expression of `rules["expected"]` is found in the URL (a string, or a dict's `url`)."""
    if not result:
        return 0.0
    if isinstance(result, dict) and "url" in result:
        url = result["url"]
    elif isinstance(result, str):
        url = result
    else:
        return 0.0
    return float(all(re.search(pattern, url) for pattern in rules["expected"]))


def is_expected_tabs(open_tabs: list[dict[str, str]] | None, rule: dict[str, Any]) -> float:
    """The open tabs are as many as `rule["urls"]` and each of those URLs is among them."""
    if not open_tabs or rule["type"] != "url":
        return 0.0
    actual = [tab["url"] for tab in open_tabs]
    expected = rule["urls"]
    return float(
        len(expected) == len(actual) and all(any(same_url(url, tab) for tab in actual) for url in expected)
    )


def _bar_items(bookmarks: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [item for item in bookmarks["bookmark_bar"]["children"] if item["type"] == kind]


def is_expected_bookmarks(bookmarks: dict[str, Any] | None, rule: dict[str, Any]) -> float:
    """The bookmark bar (the Bookmarks file's `roots`) holds the folders or sites the rule names:
    `bookmark_bar_folders_names`, `bookmark_bar_websites_urls` (as sets), or `liked_authors_websites_urls`
    (the URLs of its `Liked Authors` folder are one pick of each of `urls`' alternatives)."""
    if not bookmarks:
        return 0.0
    kind = rule["type"]
    if kind == "bookmark_bar_folders_names":
        return float({item["name"] for item in _bar_items(bookmarks, "folder")} == set(rule["names"]))
    if kind == "bookmark_bar_websites_urls":
        return float({item["url"] for item in _bar_items(bookmarks, "url")} == set(rule["urls"]))
    if kind == "liked_authors_websites_urls":
        folder = next((f for f in _bar_items(bookmarks, "folder") if f["name"] == "Liked Authors"), None)
        if folder is None:
            return 0.0
        urls = {item["url"] for item in folder["children"] if item["type"] == "url"}
        choices = [[url] if isinstance(url, str) else url for url in rule["urls"]]
        return float(any(set(pick) == urls for pick in product(*choices)))
    raise TypeError(f"bookmark rule type {kind!r} is not supported")


def is_expected_search_query(active_tab: dict[str, Any] | None, rules: dict[str, Any]) -> float:
    """The active tab's URL matches `rules["expect"]["pattern"]`."""
    if not active_tab:
        return 0.0
    return float(re.search(rules["expect"]["pattern"], active_tab["url"]) is not None)


def is_expected_installed_extensions(installed: list[str] | None, expected: dict[str, Any]) -> float:
    """Every extension of `expected["expected"]` is among the installed ones."""
    if not installed:
        return 0.0
    return float(set(expected["expected"]) <= set(installed))


def _rule_type(rule: dict[str, Any], supported: str) -> None:
    if rule["type"] != supported:
        raise TypeError(f"rule type {rule['type']!r} is not supported (only {supported!r})")


def is_cookie_deleted(cookies: list[tuple], rule: dict[str, Any]) -> float:
    """No cookie (a row of Chrome's `cookies` table: its second column is the host) is of the rule's
    `domains`."""
    _rule_type(rule, "domains")
    hosts = [cookie[1] for cookie in cookies]
    return float(not any(same_url(domain, host) for domain in rule["domains"] for host in hosts))


def check_history_deleted(history: list[tuple], rule: dict[str, Any]) -> float:
    """No history URL (a row's first column) contains one of the rule's `keywords`."""
    _rule_type(rule, "keywords")
    urls = [row[0] for row in history]
    return float(not any(keyword in url for keyword in rule["keywords"] for url in urls))


def check_enabled_experiments(experiments: list[str], rule: dict[str, Any]) -> float:
    """The enabled chrome://flags experiments (`name@choice`) are the rule's `names`, in order."""
    names = [experiment.split("@")[0] for experiment in experiments]
    _rule_type(rule, "names")
    return float(names == rule["names"])


def check_font_size(font_size: dict[str, Any], rule: dict[str, Any]) -> float:
    """The default font size is the rule's `value`, or strictly between its `min` and `max`."""
    size = font_size["default_font_size"]
    if rule["type"] == "value":
        return float(size == rule["value"])
    if rule["type"] == "range":
        return float(rule["min"] < size < rule["max"])
    raise TypeError(f"font size rule type {rule['type']!r} is not supported")


def is_added_to_steam_cart(page: dict[str, Any], rule: dict[str, Any]) -> float:
    """Every item name of the rule is in the page's HTML (the Steam cart's)."""
    return float(all(item in page["content"] for item in rule["items"]))


METRICS = {
    function.__name__: function
    for function in (
        is_expected_active_tab,
        is_expected_url_pattern_match,
        is_expected_tabs,
        is_expected_bookmarks,
        is_expected_search_query,
        is_expected_installed_extensions,
        is_cookie_deleted,
        check_history_deleted,
        check_enabled_experiments,
        check_font_size,
        is_added_to_steam_cart,
    )
}
