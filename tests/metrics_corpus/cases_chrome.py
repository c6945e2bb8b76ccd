"""The differential corpus of Chrome's metrics: each case is a getter's value and a rule, no files.

Runs under our environment and under the throwaway one holding OSWorld's evaluator
(`osworld_scores.py cases_chrome ...`), so it needs only the standard library.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Case = dict[str, Any]


def _case(func: str, result: Any, rule: Any) -> Case:
    return {"func": func, "result": result, "rule": rule}


def _tab(url: str) -> dict[str, str]:
    return {"title": "t", "url": url, "content": "<html></html>"}


def _bookmarks(bar: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "bookmark_bar": {"children": bar, "name": "Bookmarks bar", "type": "folder"},
        "other": {"children": [], "name": "Other bookmarks", "type": "folder"},
    }


def _site(url: str, name: str = "site") -> dict[str, Any]:
    return {"name": name, "type": "url", "url": url}


def _folder(name: str, children: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "type": "folder", "children": children}


_ACTIVE = "is_expected_active_tab"
_PATTERN = "is_expected_url_pattern_match"
_TABS = "is_expected_tabs"
_MARKS = "is_expected_bookmarks"
_COOKIE = "is_cookie_deleted"
_HISTORY = "check_history_deleted"
_AUTHORS = ["https://a.example.org/x", ["https://b.example.org/y", "https://b.example.org/z"]]
_COOKIES = [
    (13300000000000000, ".airbnb.com", "", "sid", "v"),
    (13300000000000001, "www.example.org", "", "a", "b"),
]
_VISITS = [
    ("https://www.youtube.com/watch?v=1", "Video", 13300000000000000),
    ("https://bbc.co.uk/", "BBC", 1),
]

CASES: dict[str, Case] = {
    # is_expected_active_tab: URL equality (suffix, www, trailing slash, scheme, port, query)
    "active-same": _case(
        _ACTIVE, _tab("https://www.airbnb.com/"), {"type": "url", "url": "https://airbnb.com"}
    ),
    "active-suffix": _case(
        _ACTIVE, _tab("https://airbnb.com.sg"), {"type": "url", "url": "https://www.airbnb.com"}
    ),
    "active-string": _case(_ACTIVE, "https://example.org/a", {"type": "url", "url": "https://example.org/a"}),
    "active-no-scheme": _case(_ACTIVE, _tab("http://example.org/a"), {"type": "url", "url": "example.org/a"}),
    "active-https-vs-http": _case(
        _ACTIVE, _tab("http://example.org/a"), {"type": "url", "url": "https://example.org/a"}
    ),
    "active-path-slash": _case(
        _ACTIVE, _tab("https://example.org/a/"), {"type": "url", "url": "https://example.org/a"}
    ),
    "active-query": _case(
        _ACTIVE, _tab("https://example.org/a?q=1"), {"type": "url", "url": "https://example.org/a?q=2"}
    ),
    "active-subdomain": _case(
        _ACTIVE, _tab("https://docs.example.org/"), {"type": "url", "url": "https://example.org/"}
    ),
    "active-port": _case(
        _ACTIVE, _tab("http://127.0.0.1:8000/p"), {"type": "url", "url": "http://127.0.0.1:9000/p"}
    ),
    "active-case-host": _case(
        _ACTIVE, _tab("https://EXAMPLE.org/a"), {"type": "url", "url": "https://example.org/a"}
    ),
    "active-case-path": _case(
        _ACTIVE, _tab("https://example.org/A"), {"type": "url", "url": "https://example.org/a"}
    ),
    "active-none": _case(_ACTIVE, None, {"type": "url", "url": "https://example.org"}),
    "active-other-rule": _case(
        _ACTIVE, _tab("https://example.org"), {"type": "title", "url": "https://example.org"}
    ),
    "active-url-none": _case(
        _ACTIVE, {"title": "t", "url": None}, {"type": "url", "url": "https://example.org"}
    ),
    # is_expected_url_pattern_match
    "pattern-all": _case(_PATTERN, "https://www.x.com/s?q=cat&p=2", {"expected": [r"q=cat", r"p=\d"]}),
    "pattern-one-missing": _case(_PATTERN, "https://www.x.com/s?q=cat", {"expected": [r"q=cat", r"p=\d"]}),
    "pattern-dict": _case(_PATTERN, _tab("https://www.x.com/s?q=dog"), {"expected": ["dog"]}),
    "pattern-empty-list": _case(_PATTERN, "https://www.x.com/", {"expected": []}),
    "pattern-none": _case(_PATTERN, None, {"expected": ["x"]}),
    "pattern-dict-no-url": _case(_PATTERN, {"title": "t"}, {"expected": ["x"]}),
    "pattern-list-result": _case(_PATTERN, ["https://x.com"], {"expected": ["x"]}),
    "pattern-string-rule": _case(_PATTERN, "https://abc.com", {"expected": "abz"}),
    "pattern-dict-url-none": _case(_PATTERN, {"url": None}, {"expected": ["x"]}),
    # is_expected_tabs
    "tabs-same-order": _case(
        _TABS,
        [_tab("https://www.a.com/"), _tab("https://b.org")],
        {"type": "url", "urls": ["https://a.com", "https://b.org"]},
    ),
    "tabs-other-order": _case(
        _TABS,
        [_tab("https://b.org"), _tab("https://a.com")],
        {"type": "url", "urls": ["https://a.com", "https://b.org"]},
    ),
    "tabs-one-more": _case(
        _TABS,
        [_tab("https://a.com"), _tab("https://b.org"), _tab("chrome://newtab/")],
        {"type": "url", "urls": ["https://a.com", "https://b.org"]},
    ),
    "tabs-duplicate": _case(
        _TABS,
        [_tab("https://a.com"), _tab("https://a.com")],
        {"type": "url", "urls": ["https://a.com", "https://b.org"]},
    ),
    "tabs-empty": _case(_TABS, [], {"type": "url", "urls": []}),
    "tabs-other-rule": _case(_TABS, [_tab("https://a.com")], {"type": "title", "urls": ["https://a.com"]}),
    # is_expected_bookmarks
    "marks-folders": _case(
        _MARKS,
        _bookmarks([_folder("Work", []), _folder("Fun", []), _site("https://x.org")]),
        {"type": "bookmark_bar_folders_names", "names": ["Fun", "Work"]},
    ),
    "marks-folders-missing": _case(
        _MARKS,
        _bookmarks([_folder("Work", [])]),
        {"type": "bookmark_bar_folders_names", "names": ["Fun", "Work"]},
    ),
    "marks-sites": _case(
        _MARKS,
        _bookmarks([_site("https://x.org/"), _folder("F", [_site("https://y.org")])]),
        {"type": "bookmark_bar_websites_urls", "urls": ["https://x.org/"]},
    ),
    "marks-sites-slash": _case(
        _MARKS,
        _bookmarks([_site("https://x.org/")]),
        {"type": "bookmark_bar_websites_urls", "urls": ["https://x.org"]},
    ),
    "marks-authors": _case(
        _MARKS,
        _bookmarks(
            [_folder("Liked Authors", [_site("https://a.example.org/x"), _site("https://b.example.org/z")])]
        ),
        {"type": "liked_authors_websites_urls", "urls": _AUTHORS},
    ),
    "marks-authors-extra": _case(
        _MARKS,
        _bookmarks(
            [
                _folder(
                    "Liked Authors",
                    [
                        _site("https://a.example.org/x"),
                        _site("https://b.example.org/z"),
                        _site("https://c.org"),
                    ],
                )
            ]
        ),
        {"type": "liked_authors_websites_urls", "urls": _AUTHORS},
    ),
    "marks-authors-no-folder": _case(
        _MARKS,
        _bookmarks([_folder("Authors", [])]),
        {"type": "liked_authors_websites_urls", "urls": _AUTHORS},
    ),
    "marks-empty": _case(_MARKS, {}, {"type": "bookmark_bar_folders_names", "names": []}),
    "marks-unknown-rule": _case(_MARKS, _bookmarks([]), {"type": "other_bar"}),
    # is_expected_search_query, is_expected_installed_extensions, is_added_to_steam_cart
    "search-match": _case(
        "is_expected_search_query", _tab("https://g.com/search?q=tea"), {"expect": {"pattern": "q=tea"}}
    ),
    "search-no-match": _case(
        "is_expected_search_query", _tab("https://g.com/search?q=te"), {"expect": {"pattern": "q=tea"}}
    ),
    "search-none": _case("is_expected_search_query", None, {"expect": {"pattern": "q"}}),
    "extensions-subset": _case("is_expected_installed_extensions", ["A", "B", "C"], {"expected": ["A", "C"]}),
    "extensions-missing": _case("is_expected_installed_extensions", ["A"], {"expected": ["A", "C"]}),
    "extensions-empty": _case("is_expected_installed_extensions", [], {"expected": []}),
    "cart-all": _case(
        "is_added_to_steam_cart", {"content": "<b>Dota</b><b>Portal 2</b>"}, {"items": ["Dota", "Portal 2"]}
    ),
    "cart-missing": _case(
        "is_added_to_steam_cart", {"content": "<b>Dota</b>"}, {"items": ["Dota", "Portal 2"]}
    ),
    # is_cookie_deleted, check_history_deleted
    "cookie-present": _case(_COOKIE, _COOKIES, {"type": "domains", "domains": ["airbnb.com"]}),
    "cookie-www": _case(_COOKIE, _COOKIES, {"type": "domains", "domains": [".example.org"]}),
    "cookie-gone": _case(_COOKIE, _COOKIES, {"type": "domains", "domains": ["tripadvisor.com"]}),
    "cookie-none-left": _case(_COOKIE, [], {"type": "domains", "domains": ["airbnb.com"]}),
    "cookie-other-rule": _case(_COOKIE, _COOKIES, {"type": "names", "domains": []}),
    "cookie-no-data": _case(_COOKIE, None, {"type": "domains", "domains": ["a.com"]}),
    "history-present": _case(_HISTORY, _VISITS, {"type": "keywords", "keywords": ["youtube"]}),
    "history-gone": _case(_HISTORY, _VISITS, {"type": "keywords", "keywords": ["cnn"]}),
    "history-case": _case(_HISTORY, _VISITS, {"type": "keywords", "keywords": ["YouTube"]}),
    "history-other-rule": _case(_HISTORY, _VISITS, {"type": "domains", "keywords": []}),
    # check_enabled_experiments, check_font_size
    "flags-same": _case("check_enabled_experiments", ["a@1", "b@2"], {"type": "names", "names": ["a", "b"]}),
    "flags-order": _case("check_enabled_experiments", ["b@2", "a@1"], {"type": "names", "names": ["a", "b"]}),
    "flags-none": _case("check_enabled_experiments", [], {"type": "names", "names": []}),
    "flags-other-rule": _case("check_enabled_experiments", [], {"type": "ids", "names": []}),
    "font-value": _case("check_font_size", {"default_font_size": 20}, {"type": "value", "value": 20}),
    "font-value-off": _case("check_font_size", {"default_font_size": 16}, {"type": "value", "value": 20}),
    "font-range": _case(
        "check_font_size", {"default_font_size": 20}, {"type": "range", "min": 16, "max": 24}
    ),
    "font-range-edge": _case(
        "check_font_size", {"default_font_size": 24}, {"type": "range", "min": 16, "max": 24}
    ),
    "font-other-rule": _case("check_font_size", {"default_font_size": 24}, {"type": "exact"}),
}


def build(folder: Path) -> dict[str, Case]:
    """The cases (they need no files; `folder` is unused)."""
    return CASES


def call(metrics: dict[str, Callable[..., float]], case: Case) -> float:
    """Run one case through `metrics` (a name -> function table)."""
    return metrics[case["func"]](case["result"], case["rule"])
