"""PDF metrics: `compare_pdfs` (text similarity), `compare_pdf_images` (perceptual hashes of the
embedded images) and `check_pdf_pages` (page count against a rule).

OSWorld reads text with MuPDF, which cuts a page into lines by the glyphs' positions; here
pdfplumber gives each glyph's origin, advance and size in content order, and `page_text` cuts
lines the same way: a glyph starts a new line when its baseline is more than 0.8 font sizes away
from the previous one's, or it starts more than 0.8 font sizes after the previous glyph's end (a
tab stop, a table cell) or more than 0.15 before it; a gap of 0.15 to 0.8 font sizes between two
non-space glyphs reads as a space. Each line ends with a newline.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable
from typing import Any

import imagehash
import pdfplumber
from pypdf import PdfReader

from stateact.evals.osworld.metrics.rules import similarity

_SPACE_GAP, _LINE_GAP, _BASELINE_GAP = 0.15, 0.8, 0.8
"""In font sizes: the gap that reads as a space, and the gaps that start a new line."""


def page_text(page: pdfplumber.page.Page) -> str:
    """The page's text, one line per run of glyphs MuPDF would keep together, each line ended."""
    lines: list[str] = []
    line: list[str] = []
    pen: tuple[float, float] | None = None
    for char in page.chars:
        x, y, size = char["matrix"][4], char["matrix"][5], char["size"] or 1.0
        if pen is not None:
            gap = x - pen[0]
            if abs(y - pen[1]) > _BASELINE_GAP * size or gap > _LINE_GAP * size or gap < -_SPACE_GAP * size:
                lines.append("".join(line))
                line = []
            elif gap > _SPACE_GAP * size and line and line[-1] != " " and char["text"] != " ":
                line.append(" ")
        line.append(char["text"])
        pen = (x + (char["x1"] - char["x0"]), y)
    if line:
        lines.append("".join(line))
    return "".join(f"{text}\n" for text in lines)


def pdf_text(path: str) -> str:
    """Every page's text, concatenated and stripped."""
    with pdfplumber.open(path) as pdf:
        return "".join(page_text(page) for page in pdf.pages).strip()


def compare_pdfs(result: str | list[str] | None, expected: str | list[str] | None) -> float:
    """The mean text similarity of the PDFs paired in order (a list of each, or one of each); a
    pair that does not read (a missing file) adds 0."""
    if not isinstance(expected, list):
        result, expected = [result], [expected]
    total = 0.0
    for first, second in zip(result, expected, strict=False):
        try:
            total += similarity(pdf_text(first), pdf_text(second))
        except Exception:
            continue
    return total / len(expected)


_HASH_DISTANCE = 5


def pdf_images(path: str) -> list:
    """The images placed on each page, in page order, decoded (PIL images)."""
    return [image.image for page in PdfReader(path).pages for image in page.images]


def compare_pdf_images(result: str | None, expected: str | None, **_options: Any) -> float:
    """The share of the expected PDF's images whose perceptual hash (pHash) is within 5 bits of
    the result's image at the same position: 0 when the counts differ or a file is missing or
    does not read, 1 when neither has an image. Options are accepted and ignored, as in OSWorld."""
    if not result or not expected or not (os.path.exists(result) and os.path.exists(expected)):
        return 0.0
    try:
        images1, images2 = pdf_images(result), pdf_images(expected)
    except Exception:
        return 0.0
    if len(images1) != len(images2):
        return 0.0
    if not images1:
        return 1.0
    close = sum(
        imagehash.phash(a) - imagehash.phash(b) <= _HASH_DISTANCE
        for a, b in zip(images1, images2, strict=True)
    )
    return close / len(images1)


def check_pdf_pages(result: str | None, rules: dict[str, Any]) -> float:
    """1 when the PDF's page count stands in relation `rules["relation"]` (an `operator` function
    name: eq, ne, lt, le, gt, ge) to `rules["ref_value"]`; a file that does not read raises."""
    if result is None:
        return 0.0
    pages = len(PdfReader(result).pages)
    return float(getattr(operator, rules["relation"])(pages, rules["ref_value"]))


METRICS: dict[str, Callable[..., float]] = {
    "compare_pdfs": compare_pdfs,
    "compare_pdf_images": compare_pdf_images,
    "check_pdf_pages": check_pdf_pages,
}
"""The PDF metrics by the name task files give them."""
