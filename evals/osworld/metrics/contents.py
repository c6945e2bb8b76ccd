"""Checks that a text, a file or a value holds what is expected: regex lines (`check_list`),
substrings (`is_in_list`, `file_contains`, `is_extension_installed`), a count of time-stamped lines
(`check_line_number`), literal values (`literal_match`), fuzzy words of a .docx
(`fuzzy_place_math`), a column of cities (`compare_conference_city_in_order`) and a time stamp
near the present (`compare_time_in_speedtest_results`)."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openpyxl
from docx import Document

from stateact.evals.osworld.metrics.rules import MetricUnsupported, similarity


def check_list(result: str | None, rules: dict[str, list[str]]) -> float:
    """1 when every `expect` regex is found in some line of the file and no `unexpect` regex in
    any line. A missing file raises, as in OSWorld."""
    if result is None:
        return 0.0
    expect = [re.compile(pattern) for pattern in rules.get("expect", [])]
    unexpect = [re.compile(pattern) for pattern in rules.get("unexpect", [])]
    with Path(result).open(encoding="utf-8") as handle:
        lines = list(handle)
    found = all(any(pattern.search(line) for line in lines) for pattern in expect)
    avoided = not any(pattern.search(line) for pattern in unexpect for line in lines)
    return float(found and avoided)


def is_in_list(result: Any, rules: dict[str, Any]) -> float:
    """1 when `rules["expected"]` is in `result` (an item of a list, a substring of a text)."""
    return float(rules["expected"] in result)


def file_contains(result: str | None, rules: dict[str, list[str]]) -> float:
    """1 when the file's text contains every `expected` string; an unreadable file scores 0."""
    if not result:
        return 0.0
    try:
        text = Path(result).read_text(encoding="utf-8")
        return float(all(wanted in text for wanted in rules["expected"]))
    except Exception:  # OSWorld scores any failure here 0
        return 0.0


_TIME_OF_DAY = re.compile(r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)")


def check_line_number(result: str | None, rules: dict[str, Any]) -> float:
    """1 when the number of lines holding a time of day (HH:MM:SS) is `int(rules["expected"])`."""
    if result is None or not Path(result).is_file():
        return 0.0
    try:
        with Path(result).open(encoding="utf-8") as handle:
            count = sum(1 for line in handle if _TIME_OF_DAY.search(line))
        return float(count == int(rules["expected"]))
    except Exception:  # OSWorld scores any failure here 0
        return 0.0


_LITERAL_TYPES = ("str", "list")


def check_literal_options(options: dict[str, Any]) -> None:
    if options.get("type", "str") not in _LITERAL_TYPES:
        raise MetricUnsupported(f"unsupported literal_match type {options['type']!r} (str, list)")


def literal_match(result: Any, expected: Any, **options: Any) -> float:
    """`type: str` (default): 1 when the two values' texts are equal; `type: list`: both lists
    (or tuples) of the same length whose items' texts are equal. `ignore_case` lowers the texts."""
    check_literal_options(options)

    def text(value: Any) -> str:
        return str(value).lower() if options.get("ignore_case", False) else str(value)

    if options.get("type", "str") == "str":
        return float(text(result) == text(expected))
    if not {type(result), type(expected)} <= {list, tuple} or len(result) != len(expected):
        return 0.0
    return float([text(item) for item in result] == [text(item) for item in expected])


def check_extension_rules(rules: dict[str, Any]) -> None:
    if rules.get("type") not in ("contain", "not_contain"):
        raise MetricUnsupported(f"unsupported is_extension_installed type {rules.get('type')!r}")


def is_extension_installed(result: str, rules: dict[str, Any]) -> float:
    """Whether the command output contains (`type: contain`) or lacks (`not_contain`)
    `rules["expected"]`. None (no output) raises, as in OSWorld."""
    check_extension_rules(rules)
    present = rules["expected"] in result
    return float(present if rules["type"] == "contain" else not present)


def fuzzy_place_math(result: str | None, rules: dict[str, list[str]]) -> float:
    """The .docx must hold exactly three words (whitespace-separated, over all paragraphs); the
    score is the mean of each word's best similarity ratio to an `expected` answer, else 0."""
    if result is None:
        return 0.0
    answers = rules["expected"]
    words = [word for paragraph in Document(result).paragraphs for word in paragraph.text.split()]
    if len(words) != 3:
        return 0.0
    return sum(max((similarity(word, answer) for answer in answers), default=0.0) for word in words) / 3


def compare_conference_city_in_order(result: str, rules: dict[str, list[Any]]) -> float:
    """Cells C2:C22 of the active sheet, in order: each must contain its `expected` city (a
    text, or a list of alternatives). A cell or expected entry that cannot be compared (empty
    cell, number, too few entries) scores 0; a file openpyxl cannot open raises, as in OSWorld."""
    expected = rules["expected"]
    sheet = openpyxl.load_workbook(result).active
    cells = [cell.value for row in sheet["C2:C22"] for cell in row]
    try:
        for index, value in enumerate(cells):
            wanted = expected[index]
            if isinstance(wanted, str):
                wanted = [wanted]
            elif not isinstance(wanted, list):
                return 0.0
            if not any(city in value for city in wanted):
                return 0.0
    except (IndexError, TypeError):
        return 0.0
    return 1.0


def compare_time_in_speedtest_results(result: str | None, minutes: Any) -> float:
    """1 when the time (the last five characters, HH:MM, of the second field of the file's
    second line) is less than `minutes` from the present clock time (both taken as times of one
    day, so the distance across midnight is not wrapped); anything unreadable scores 0."""
    if not result:
        return 0.0
    try:
        with Path(result).open(encoding="utf-8") as handle:
            handle.readline()
            stamp = handle.readline().split(",")[1][-5:]
        now = datetime.datetime.now().strftime("%H:%M")
        parse = datetime.datetime.strptime
        distance = abs((parse(stamp, "%H:%M") - parse(now, "%H:%M")).total_seconds()) / 60
        return float(distance < int(minutes))
    except Exception:  # OSWorld scores any failure here 0
        return 0.0


METRICS: dict[str, Callable[..., float]] = {
    "check_list": check_list,
    "is_in_list": is_in_list,
    "file_contains": file_contains,
    "check_line_number": check_line_number,
    "literal_match": literal_match,
    "is_extension_installed": is_extension_installed,
    "fuzzy_place_math": fuzzy_place_math,
    "compare_conference_city_in_order": compare_conference_city_in_order,
    "compare_time_in_speedtest_results": compare_time_in_speedtest_results,
}

OPTION_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {"literal_match": check_literal_options}
