"""What the editor's `view` shows of a PDF: the text of its pages with their layout, and pages rendered as
pictures: the pages without text (a scan has none to read), and on request any one page.

    text = pdf_text(data, first=1, last=None)          # "--- page 1 of 3 ---\n..." up to the view cap
    look = pdf_look(data, 2, 2)                         # page 2's text, and the page as a picture
    look.pictures                                       # [(page number, ModelImage at the model's size)]
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pdfplumber
from pdfminer.pdfparser import PDFSyntaxError
from pdfplumber.pdf import PDF

from stateact.kernel import settings
from stateact.kernel.images import ModelImage, encode_picture, fit_size

PDF_MAGIC = b"%PDF-"
POINTS_PER_INCH = 72
BLANK_RUNS = re.compile(r"\n{3,}")
NO_TEXT = "(no text on this page: a scan or a picture)"


@dataclass(frozen=True)
class PdfLook:
    """What a view shows of a PDF's pages: their text, pages as pictures, and pages without text not shown."""

    text: str
    pictures: list[tuple[int, ModelImage]] = field(default_factory=list)
    textless_not_shown: list[int] = field(default_factory=list)
    """Pages of the view without text beyond the EDITOR_PDF_SCAN_PICTURES shown as pictures."""


class PdfError(ValueError):
    """A PDF that cannot be read, or a page it does not have; the message says which."""


def is_pdf(data: bytes) -> bool:
    """The bytes start with a PDF header (after any leading whitespace)."""
    return data[:1024].lstrip().startswith(PDF_MAGIC)


@contextmanager
def opened(data: bytes) -> Iterator[PDF]:
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            yield pdf
    except (PDFSyntaxError, pdfplumber.utils.exceptions.PdfminerException) as exc:
        raise PdfError(f"the PDF could not be read: {exc}") from None


def page_count(data: bytes) -> int:
    with opened(data) as pdf:
        return len(pdf.pages)


def pdf_text(data: bytes, first: int = 1, last: int | None = None) -> str:
    """The text of pages `first` to `last` (None: the end) with their layout, each under a page header,
    cut at the editor's view cap (and after EDITOR_PDF_MAX_PAGES_PER_VIEW pages) with a note saying where
    to go on."""
    with opened(data) as pdf:
        return _text(pdf, first, last)[0]


def pdf_look(data: bytes, first: int, last: int | None) -> PdfLook:
    """What the editor shows of pages `first` to `last`: their text, and as pictures the one page of a
    one-page range or else the first EDITOR_PDF_SCAN_PICTURES pages without text. One parse of the file,
    for a confined child (stateact.kernel.confined)."""
    with opened(data) as pdf:
        text, textless = _text(pdf, first, last)
        shown = [first] if first == last else textless[: settings.EDITOR_PDF_SCAN_PICTURES]
        pictures = [(number, _picture(pdf, number, settings.MODEL_IMAGE_MAX_EDGE)) for number in shown]
        return PdfLook(text, pictures, [number for number in textless if number not in shown])


def _text(pdf: PDF, first: int, last: int | None) -> tuple[str, list[int]]:
    """The view's text, and the numbers of the pages in it that have no text."""
    total = len(pdf.pages)
    last = total if last is None or last == -1 else min(last, total)
    _check_pages(first, last, total)
    parts: list[str] = []
    textless: list[int] = []
    size = 0
    for number in range(first, last + 1):
        if number - first == settings.EDITOR_PDF_MAX_PAGES_PER_VIEW:
            parts.append(_cut_note(number, total, last))
            break
        text = _layout_text(pdf.pages[number - 1])
        part = f"--- page {number} of {total} ---\n{text or NO_TEXT}"
        if parts and size + len(part) > settings.EDITOR_VIEW_CAP_CHARS:
            parts.append(_cut_note(number, total, last))
            break
        parts.append(part[: settings.EDITOR_VIEW_CAP_CHARS])
        size += len(part)
        if not text:
            textless.append(number)
    return "\n".join(parts), textless


def _cut_note(number: int, total: int, last: int) -> str:
    return f"[view cut after page {number - 1} of {total}: use view_range [{number}, {last}] for the rest]"


def _picture(pdf: PDF, number: int, max_edge: int) -> ModelImage:
    total = len(pdf.pages)
    _check_pages(number, number, total)
    page = pdf.pages[number - 1]
    points = (round(page.width), round(page.height))
    target = fit_size(_at_dpi(points, settings.EDITOR_PDF_MAX_DPI), max_edge)
    rendered = page.to_image(resolution=POINTS_PER_INCH * target[0] / points[0]).original
    picture = rendered.convert("RGB")
    return ModelImage(encode_picture(picture, "PNG"), picture.size, picture.size, "PDF page")


def _at_dpi(points: tuple[int, int], dpi: int) -> tuple[int, int]:
    return points[0] * dpi // POINTS_PER_INCH, points[1] * dpi // POINTS_PER_INCH


def _layout_text(page: pdfplumber.page.Page) -> str:
    """The page's text laid out as on the page: trailing spaces and runs of blank lines trimmed."""
    lines = [line.rstrip() for line in page.extract_text(layout=True).splitlines()]
    return BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip("\n")


def _check_pages(first: int, last: int, total: int) -> None:
    if not 1 <= first <= total:
        raise PdfError(f"page {first} is outside the PDF's pages 1-{total}")
    if last < first:
        raise PdfError(f"view_range end {last} is before its start {first}")
