"""`compare_docx_files`: paragraph text of two .docx files (tables are not compared).

Options (OSWorld defaults): `ignore_blanks` (True: all paragraphs joined and
whitespace collapsed, then compared exactly), `ignore_case`, `ignore_order`
(paragraphs sorted first), `delete_empty_lines`, `content_only` (returns the
similarity ratio of the collapsed texts), `fuzzy_match` (ratio instead of
equality; per paragraph when `ignore_blanks` is off) with an optional
`fuzzy_match_threshold`. With `ignore_blanks` off, paragraph counts must match
and each paragraph must match exactly.
"""

from __future__ import annotations

import re
from typing import Any

from docx import Document

from evals.metrics.rules import similarity


def _collapse(paragraphs: list[str], ignore_case: bool) -> str:
    text = re.sub(r"\s+", " ", "\n".join(paragraphs)).strip()
    return text.lower() if ignore_case else text


def compare_docx_files(result: str | None, expected: str | None, **options: Any) -> float:
    if not result or not expected:
        return 0.0
    if not (result.endswith(".docx") and expected.endswith(".docx")):
        return 0.0
    try:
        first = [p.text for p in Document(result).paragraphs]
        second = [p.text for p in Document(expected).paragraphs]
    except Exception:
        return 0.0
    ignore_case = options.get("ignore_case", False)
    if options.get("ignore_order", False):
        first, second = sorted(first), sorted(second)
    if options.get("delete_empty_lines", False):
        first, second = [p for p in first if p.strip()], [p for p in second if p.strip()]
    threshold = options.get("fuzzy_match_threshold")
    if options.get("content_only", False):
        return similarity(_collapse(first, ignore_case), _collapse(second, ignore_case))
    if options.get("ignore_blanks", True):
        text1, text2 = _collapse(first, ignore_case), _collapse(second, ignore_case)
        if options.get("fuzzy_match", False):
            ratio = similarity(text1, text2)
            return float(ratio >= threshold) if threshold is not None else ratio
        return float(text1 == text2)
    if len(first) != len(second):
        return 0.0
    pairs = [(a.lower(), b.lower()) if ignore_case else (a, b) for a, b in zip(first, second, strict=True)]
    if options.get("fuzzy_match", False):
        if not pairs:
            return 1.0
        ratios = [similarity(a, b) for a, b in pairs]
        if threshold is not None:
            ratios = [float(r >= threshold) for r in ratios]
        return sum(ratios) / len(ratios)
    return float(all(a == b for a, b in pairs))
