"""`compare_docx_files`: paragraph text of two .docx (or two .odt) files.

A .docx gives its body paragraphs (tables are not compared). An .odt gives every
`text:p` of content.xml and then of styles.xml (headers, footers), in document
order, as OSWorld reads them with odfpy: only the paragraph's own text and the
text directly inside its `text:span` children (no `text:s` spaces, tabs, line
breaks, links or nested spans).

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
import zipfile
from typing import Any
from xml.etree import ElementTree

from docx import Document

from stateact.evals.osworld.metrics.explain import first_line_difference, note
from stateact.evals.osworld.metrics.rules import similarity


def _collapse(paragraphs: list[str], ignore_case: bool) -> str:
    text = re.sub(r"\s+", " ", "\n".join(paragraphs)).strip()
    return text.lower() if ignore_case else text


_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"


def _odt_paragraphs(path: str) -> list[str]:
    paragraphs = []
    with zipfile.ZipFile(path) as archive:
        parts = [name for name in ("content.xml", "styles.xml") if name in archive.namelist()]
        for part in parts:
            for paragraph in ElementTree.fromstring(archive.read(part)).iter(f"{_TEXT}p"):
                texts = [paragraph.text or ""]
                for child in paragraph:
                    if child.tag == f"{_TEXT}span":
                        texts += [child.text or "", *(grandchild.tail or "" for grandchild in child)]
                    texts.append(child.tail or "")
                paragraphs.append("".join(texts))
    return paragraphs


def _paragraphs(path: str) -> list[str]:
    if path.endswith(".odt"):
        return _odt_paragraphs(path)
    return [p.text for p in Document(path).paragraphs]


def compare_docx_files(result: str | None, expected: str | None, **options: Any) -> float:
    if not result or not expected:
        note(f"no {'result' if not result else 'expected'} document")
        return 0.0
    kinds = {result.rsplit(".", 1)[-1], expected.rsplit(".", 1)[-1]}
    if kinds not in ({"docx"}, {"odt"}):
        note(f"the documents are not both .docx or both .odt: {', '.join(sorted(kinds))}")
        return 0.0
    try:
        first, second = _paragraphs(result), _paragraphs(expected)
    except Exception as exc:
        note(f"a document cannot be read: {type(exc).__name__}: {exc}")
        return 0.0
    score = _compare_paragraphs(first, second, options)
    if score < 1.0:
        note(
            "the paragraphs of the result against the expected document",
            lambda: first_line_difference(*_as_compared(first, second, options), unit="paragraph"),
        )
    return score


def _as_compared(first: list[str], second: list[str], options: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The paragraphs as the options compare them (sorted, without empty ones or runs of blanks,
    lower-cased)."""
    if options.get("ignore_order", False):
        first, second = sorted(first), sorted(second)
    if options.get("ignore_blanks", True):
        first, second = ([" ".join(p.split()) for p in paragraphs] for paragraphs in (first, second))
    if options.get("delete_empty_lines", False) or options.get("ignore_blanks", True):
        first, second = [p for p in first if p.strip()], [p for p in second if p.strip()]
    if options.get("ignore_case", False):
        first, second = [p.lower() for p in first], [p.lower() for p in second]
    return first, second


def _compare_paragraphs(first: list[str], second: list[str], options: dict[str, Any]) -> float:
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


METRICS = {"compare_docx_files": compare_docx_files}
