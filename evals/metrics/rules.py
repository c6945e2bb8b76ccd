"""OSWorld's `{method, ref}` value rules, used by `check_cell` and friends."""

from __future__ import annotations

import functools
import operator
import re
from typing import Any

_COMPARISONS = {"eq", "ne", "le", "lt", "ge", "gt"}


class MetricError(ValueError):
    """A metric was given something it cannot score (e.g. a missing expected sheet)."""


class MetricUnsupported(MetricError):
    """The task names a rule or option this implementation does not have: the task cannot be scored
    here, which is not the agent's failure (the task is an error, not a 0; see evals/scoring.py)."""


def match_value_to_rule(value: Any, rule: dict[str, Any]) -> bool:
    """`re[.FLAG...]` searches `ref` in str(value); `eq`..`gt` compare; `approx:T` is |value-ref| <= T;
    `str_list_eq` / `str_set_eq` compare a `\\n`-separated text with a list."""
    method, ref = rule["method"], rule.get("ref")
    if method.startswith("re"):
        flags = functools.reduce(
            operator.or_, (getattr(re, f) for f in method.split(".")[1:]), re.RegexFlag(0)
        )
        return re.search(ref, str(value), flags) is not None
    if method in _COMPARISONS:
        return bool(getattr(operator, method)(value, ref))
    if method.startswith("approx:"):
        try:
            return abs(float(value) - ref) <= float(method.split(":", 1)[1])
        except (TypeError, ValueError):
            return False
    if method == "str_list_eq":
        return str(value).split("\n") == list(ref)
    if method == "str_set_eq":
        return set(str(value).split("\n")) == set(ref)
    raise MetricUnsupported(f"unsupported rule method {method!r}")


def similarity(a: str, b: str) -> float:
    """Similarity in [0, 1] of two texts: 2 * matches / total length (rapidfuzz's `ratio` / 100)."""
    from difflib import SequenceMatcher

    if not a and not b:
        return 1.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()
