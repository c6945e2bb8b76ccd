"""Whole-file comparisons: text files (`compare_text_file`, `compare_config`), Python sources
(`compare_python_pure_text`), a numeric or text answer (`compare_result_files`) and zip archives
(`compare_zip_files`). Text is read as UTF-8 with universal newlines."""

from __future__ import annotations

import difflib
import io
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pypdf import PdfReader

PDF_SIMILARITY = 0.95
"""How alike (difflib ratio) the text of two PDFs inside compared archives must be."""


def _text(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


def _collapse_blanks(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip())


def compare_text_file(result: str | None, expected: str, **options: Any) -> float:
    """1 when the two files' texts are equal; `ignore_blanks` collapses every whitespace run to
    one space and strips the ends, `ignore_case` lowers them. A missing expected file raises."""
    if not result:
        return 0.0
    ours, theirs = _text(result), _text(expected)
    if options.get("ignore_blanks", False):
        ours, theirs = _collapse_blanks(ours), _collapse_blanks(theirs)
    if options.get("ignore_case", False):
        ours, theirs = ours.lower(), theirs.lower()
    return float(ours == theirs)


def compare_config(result: str | None, rules: dict[str, Any], **options: Any) -> float:
    """1 when the file's text is exactly `rules["expected"]`."""
    if not result:
        return 0.0
    return float(_text(result) == rules["expected"])


_METADATA_PREFIXES = ("#!", "# -*- coding:", "# coding:", "# coding=")


def _python_lines(text: str) -> list[str]:
    """The source without a shebang or coding line among its first three lines, without blank
    lines, with tabs expanded to 4 columns and trailing spaces removed."""
    lines = text.splitlines()
    start = 0
    while start < min(len(lines), 3) and lines[start].strip().startswith(_METADATA_PREFIXES):
        start += 1
    return [line.expandtabs(4).rstrip() for line in lines[start:] if line.strip()]


def compare_python_pure_text(result: str | None, expected: str | None) -> float:
    """1 when the two sources are equal after `_python_lines`; an unreadable file scores 0."""
    if not result or not expected:
        return 0.0
    try:
        return float(_python_lines(_text(result)) == _python_lines(_text(expected)))
    except (OSError, UnicodeDecodeError):
        return 0.0


def compare_result_files(result: str | None, expected: str | None) -> float:
    """1 when the stripped texts are equal; when the expected text is a number, also when it is
    a substring of the result or the result is a number within 1e-4 of it."""
    if not result or not expected:
        return 0.0
    ours, theirs = _text(result).strip(), _text(expected).strip()
    try:
        wanted = float(theirs)
        if theirs in ours:
            return 1.0
        return float(abs(float(ours) - wanted) < 1e-4)
    except ValueError:
        return float(ours == theirs)


def compare_zip_files(result: str | None, expected: str, **options: Any) -> float:
    """1 when both archives hold the same member names with equal bytes; a PDF member needs only
    text (pypdf) at least PDF_SIMILARITY alike. A file that is not a zip raises."""
    if not result:
        return 0.0
    with zipfile.ZipFile(result) as ours, zipfile.ZipFile(expected) as theirs:
        names = set(ours.namelist())
        if names != set(theirs.namelist()):
            return 0.0
        for name in names:
            mine, gold = ours.read(name), theirs.read(name)
            if name.lower().endswith(".pdf"):
                ratio = difflib.SequenceMatcher(None, _pdf_text(mine), _pdf_text(gold)).ratio()
                if ratio < PDF_SIMILARITY:
                    return 0.0
            elif mine != gold:
                return 0.0
    return 1.0


def _pdf_text(data: bytes) -> str:
    return "".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


METRICS: dict[str, Callable[..., float]] = {
    "compare_text_file": compare_text_file,
    "compare_config": compare_config,
    "compare_python_pure_text": compare_python_pure_text,
    "compare_result_files": compare_result_files,
    "compare_zip_files": compare_zip_files,
}
