"""OSWorld's `{method, ref}` value rules, used by `check_cell`, `zoom` and friends."""

from __future__ import annotations

import functools
import operator
import re
from typing import Any

from openpyxl.worksheet.cell_range import MultiCellRange

_COMPARISONS = {"eq", "ne", "le", "lt", "ge", "gt"}
_RANGE_ENDS = {"t", "e"}


class MetricError(ValueError):
    """A metric was given something it cannot score (e.g. a missing expected sheet)."""


class MetricUnsupported(MetricError):
    """The task names a rule or option this implementation does not have: the task cannot be scored
    here, which is not the agent's failure (the task is an error, not a 0; see evals/osworld/scoring.py)."""


def check_method(method: Any) -> None:
    """Raise MetricUnsupported unless `method` is a value-rule method `match_value_to_rule` knows."""
    known = isinstance(method, str) and (
        method.startswith("re")
        or method in _COMPARISONS
        or method in ("str_list_eq", "str_set_eq", "spreadsheet_range")
        or (method.startswith("approx:") and _is_float(method.split(":", 1)[1]))
        or (len(method) == 8 and method.startswith("range.") and set(method[6:]) <= _RANGE_ENDS)
    )
    if not known:
        raise MetricUnsupported(
            f"unsupported rule method {method!r} (re[.FLAG], eq, ne, le, lt, ge, gt, approx:T, "
            "range.XY with X, Y in t/e, str_list_eq, str_set_eq, spreadsheet_range)"
        )


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def match_value_to_rule(value: Any, rule: dict[str, Any]) -> bool:
    """OSWorld's value rules, with its failure modes (a TypeError propagates as there):
    `re[.FLAG...]` searches `ref` in `value` (a string); `eq`..`gt` compare; `approx:T` is
    |value-ref| <= T; `range.XY` is ref[0] <X value <Y ref[1] (t: <, e: <=); `str_list_eq` /
    `str_set_eq` split the text on commas (after stripping quotes) and compare with `ref`;
    `spreadsheet_range` is ref[0] within `value` (a MultiCellRange) within ref[1]."""
    method = rule["method"]
    check_method(method)
    ref = rule["ref"]  # a rule without one raises KeyError, as in OSWorld
    if method.startswith("re"):
        flags = functools.reduce(
            operator.or_, (getattr(re, f) for f in method.split(".")[1:]), re.RegexFlag(0)
        )
        return re.search(ref, value, flags) is not None
    if method in _COMPARISONS:
        return bool(getattr(operator, method)(value, ref))
    if method.startswith("approx:"):
        try:
            return abs(float(value) - ref) <= float(method.split(":", 1)[1])
        except (TypeError, ValueError):
            return False
    if method.startswith("range."):
        low = operator.lt if method[6] == "t" else operator.le
        high = operator.lt if method[7] == "t" else operator.le
        return bool(low(ref[0], value) and high(value, ref[1]))
    if method == "spreadsheet_range":
        inner, outer = MultiCellRange(ref[0]), MultiCellRange(ref[1])
        return all(r in value for r in inner) and all(r in outer for r in value)
    items = value.strip("\"'").split(",")
    if method == "str_list_eq":
        return items == list(ref)
    return set(items) == set(ref)


def similarity(a: str, b: str) -> float:
    """rapidfuzz's `fuzz.ratio(a, b) / 100`: 2 * LCS / total length, 1 for two empty texts."""
    if not a and not b:
        return 1.0
    return 2 * _lcs_length(a, b) / (len(a) + len(b))


def _lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence, bit-parallel over the characters of `b`."""
    masks: dict[str, int] = {}
    for position, char in enumerate(b):
        masks[char] = masks.get(char, 0) | (1 << position)
    full = (1 << len(b)) - 1
    row = full
    for char in a:
        matches = row & masks.get(char, 0)
        row = ((row + matches) | (row - matches)) & full
    return len(b) - row.bit_count()
