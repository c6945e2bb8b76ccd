"""Text metrics: `compare_csv`, `exact_match`, `diff_text_file`, `check_include_exclude`."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any


def _lines(path: str) -> list[str]:
    """Lines as Python's text mode reads UTF-8: a BOM stays part of the first line."""
    return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()


def compare_csv(result: str | None, expected: str | list[str], **options: Any) -> float:
    """1 when the lines equal those of `expected` (or of any file in a list of them).
    `strict: false` strips each line; `ignore_case` lowers them. Line counts must match."""
    if result is None:
        return 0.0
    try:
        ours = _lines(result)
    except OSError:
        return 0.0
    for candidate in [expected] if isinstance(expected, str) else list(expected):
        try:
            theirs = _lines(candidate)
        except OSError:
            continue
        a, b = ours, theirs
        if not options.get("strict", True):
            a, b = [line.strip() for line in a], [line.strip() for line in b]
        if options.get("ignore_case", False):
            a, b = [line.lower() for line in a], [line.lower() for line in b]
        if a == b:
            return 1.0
    return 0.0


def exact_match(result: Any, rules: dict[str, Any]) -> float:
    return float(result == rules["expected"])


def diff_text_file(result: str | None, expected: str) -> float:
    """Similarity of the two files' line lists (difflib ratio); two empty files score 1."""
    if result is None:
        return 0.0
    return difflib.SequenceMatcher(a=_lines(result), b=_lines(expected)).ratio()


def check_include_exclude(result: str | None, rules: dict[str, Any]) -> float:
    """1 when every `include` string is in the result text and no `exclude` string is."""
    if result is None:
        return 0.0
    include, exclude = rules.get("include", []), rules.get("exclude", [])
    return float(all(s in result for s in include) and all(s not in result for s in exclude))
