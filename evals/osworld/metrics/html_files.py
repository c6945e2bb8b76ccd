"""`compare_htmls`: two HTML files, element by element in document order (BeautifulSoup on lxml).

The documents are walked together (every tag and string, depth first; the
shorter walk ends the comparison). Two strings must be equal; two tags must have
the same name, the same stripped text and the same attributes (with
`ignore_sdnum`, those other than LibreOffice's `sdnum` number formats). A tag
against a string fails.
"""

from __future__ import annotations

from typing import Any

from bs4 import BeautifulSoup, Tag


def _parse(path: str) -> BeautifulSoup:
    with open(path, encoding="utf-8") as page:
        return BeautifulSoup(page, "lxml")


def _same(first: Any, second: Any, ignore_sdnum: bool) -> bool:
    if not (isinstance(first, Tag) and isinstance(second, Tag)):
        return first == second
    if first.name != second.name or first.text.strip() != second.text.strip():
        return False
    if first.attrs == second.attrs:
        return True
    if not ignore_sdnum:
        return False
    return _without_sdnum(first.attrs) == _without_sdnum(second.attrs)


def _without_sdnum(attributes: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in attributes.items() if key != "sdnum"}


def compare_htmls(result: str, expected: str, **options: Any) -> float:
    first, second = _parse(result), _parse(expected)
    ignore_sdnum = bool(options.get("ignore_sdnum"))
    pairs = zip(first.descendants, second.descendants, strict=False)
    return float(all(_same(a, b, ignore_sdnum) for a, b in pairs))


METRICS = {"compare_htmls": compare_htmls}
