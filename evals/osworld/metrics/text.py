"""Text metrics: `compare_csv`, `exact_match`, `diff_text_file`, `check_include_exclude`."""

from __future__ import annotations

import difflib
import functools
from pathlib import Path
from typing import Any

from stateact.evals.osworld.metrics.explain import change, first_line_difference, note, shown


def read_lines(path: str) -> list[str]:
    """Lines as OSWorld's `_safe_read_file` reads a CSV: UTF-8 (a BOM stays part of the first line),
    else Latin-1 (which decodes any bytes, so its later fallbacks never run)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return data.decode("latin-1").splitlines()


def compare_csv(result: str | None, expected: str | list[str], **options: Any) -> float:
    """1 when the lines equal those of `expected` (or of any file in a list of them).
    `strict: false` strips each line; `ignore_case` lowers them. Line counts must match."""
    if result is None:
        note("no result file")
        return 0.0
    try:
        ours = read_lines(result)
    except OSError as exc:
        note(f"the result file cannot be read: {exc}")
        return 0.0
    for candidate in [expected] if isinstance(expected, str) else list(expected):
        try:
            theirs = read_lines(candidate)
        except OSError:
            continue
        a, b = ours, theirs
        if not options.get("strict", True):
            a, b = [line.strip() for line in a], [line.strip() for line in b]
        if options.get("ignore_case", False):
            a, b = [line.lower() for line in a], [line.lower() for line in b]
        if a == b:
            return 1.0
        note(
            f"{Path(result).name} against {Path(candidate).name}",
            functools.partial(first_line_difference, a, b),
        )
    return 0.0


def exact_match(result: Any, rules: dict[str, Any]) -> float:
    matched = result == rules["expected"]
    if not matched:
        note("the observed text is not the expected one", [change("text", result, rules["expected"])])
    return float(matched)


def diff_text_file(result: str | None, expected: str) -> float:
    """Similarity of the two files' line lists (difflib ratio); two empty files score 1. Files are
    read as strict UTF-8, so invalid bytes raise UnicodeDecodeError, as in OSWorld."""
    if result is None:
        return 0.0
    first, second = (Path(p).read_text(encoding="utf-8").splitlines() for p in (result, expected))
    ratio = difflib.SequenceMatcher(a=first, b=second).ratio()
    if ratio < 1.0:
        note(
            f"{Path(result).name} against {Path(expected).name}", lambda: first_line_difference(first, second)
        )
    return ratio


def check_include_exclude(result: str | None, rules: dict[str, Any]) -> float:
    """1 when every `include` string is in the result text and no `exclude` string is."""
    if result is None:
        return 0.0
    include, exclude = rules.get("include", []), rules.get("exclude", [])
    passed = all(s in result for s in include) and all(s not in result for s in exclude)
    if not passed:
        note(
            f"observed text: {shown(result)}",
            lambda: (
                [f"missing: {shown(s)}" for s in include if s not in result]
                + [f"present, but excluded: {shown(s)}" for s in exclude if s in result]
            ),
        )
    return float(passed)


METRICS = {
    "compare_csv": compare_csv,
    "exact_match": exact_match,
    "diff_text_file": diff_text_file,
    "check_include_exclude": check_include_exclude,
}
