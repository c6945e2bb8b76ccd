"""Writer metrics on a document's structure and formatting: tables, spacing, tab stops, fonts,
highlights, images, page breaks, footers and references, read with python-docx (and, for
highlights, from an .odt's XML).

Each scores 0 when a path is missing or a .docx does not open, as OSWorld's do. Several first
require `compare_docx_files(result, expected)` (default options) to score non-zero; that gate is
named in their docstrings. Where OSWorld indexes or divides without a guard, the same input
raises here too (an empty document for `is_first_line_centered`, no reference in
`compare_references`), so the task is an error rather than a score.
"""

from __future__ import annotations

import math
import re
import zipfile
from collections.abc import Callable, Iterator
from io import BytesIO
from typing import Any
from xml.etree import ElementTree

from docx import Document
from docx.document import Document as DocxDocument
from docx.enum.text import WD_PARAGRAPH_ALIGNMENT, WD_TAB_ALIGNMENT
from docx.text.paragraph import Paragraph
from docx.text.run import Run
from PIL import Image

from stateact.evals.osworld.metrics.docs import compare_docx_files
from stateact.evals.osworld.metrics.rules import similarity

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _open(path: str | None) -> DocxDocument | None:
    """The document at `path`, or None when there is no path or it does not open."""
    if not path:
        return None
    try:
        return Document(path)
    except Exception:
        return None


def _open_pair(result: str | None, expected: str | None) -> tuple[DocxDocument, DocxDocument] | None:
    if not result or not expected:
        return None
    first, second = _open(result), _open(expected)
    return None if first is None or second is None else (first, second)


def _gated(result: str | None, expected: str | None) -> DocxDocument | None:
    """The result document when both paths are given and their texts match (compare_docx_files)."""
    if not result or not expected or not compare_docx_files(result, expected):
        return None
    return _open(result)


def _run_pairs(first: DocxDocument, second: DocxDocument) -> Iterator[tuple[Run, Run]]:
    """Runs of paragraphs at the same index, paired up to the shorter of each list."""
    for para1, para2 in zip(first.paragraphs, second.paragraphs, strict=False):
        yield from zip(para1.runs, para2.runs, strict=False)


def _runs(document: DocxDocument) -> Iterator[Run]:
    for paragraph in document.paragraphs:
        yield from paragraph.runs


def compare_docx_tables(result: str | None, expected: str | None) -> float:
    """1 when both documents have as many tables, each of the same shape with the same stripped
    cell texts."""
    docs = _open_pair(result, expected)
    if docs is None or len(docs[0].tables) != len(docs[1].tables):
        return 0.0
    for table1, table2 in zip(docs[0].tables, docs[1].tables, strict=True):
        shape = len(table1.rows), len(table1.columns)
        if shape != (len(table2.rows), len(table2.columns)):
            return 0.0
        for i in range(shape[0]):
            for j in range(shape[1]):
                if table1.cell(i, j).text.strip() != table2.cell(i, j).text.strip():
                    return 0.0
    return 1.0


def compare_line_spacing(result: str | None, expected: str | None) -> float:
    """1 when the texts match (compare_docx_files) and every paragraph has the same line spacing."""
    if not result or not expected or not compare_docx_files(result, expected):
        return 0.0
    docs = _open_pair(result, expected)
    if docs is None or len(docs[0].paragraphs) != len(docs[1].paragraphs):
        return 0.0
    pairs = zip(docs[0].paragraphs, docs[1].paragraphs, strict=True)
    return float(all(a.paragraph_format.line_spacing == b.paragraph_format.line_spacing for a, b in pairs))


def _counted_tab_stops(paragraph: Paragraph) -> list:
    """The paragraph's tab stops less cleared ones and a left stop at position 0."""
    return [
        stop
        for stop in paragraph.paragraph_format.tab_stops
        if not (
            stop.alignment == WD_TAB_ALIGNMENT.CLEAR
            or (stop.alignment == WD_TAB_ALIGNMENT.LEFT and stop.position == 0)
        )
    ]


def check_tabstops(result: str | None, expected: str | None, **options: Any) -> float:
    """Tab stops of the non-blank paragraphs, paired in order: 0 when the counts of paragraphs or of
    a pair's stops differ or a pair's alignments differ, else 1 less the mean over paragraphs of
    the summed position offsets as a share of the expected text width (first section).

    `word_number_split_by_tabstop` N (with `index`, default 0): each result paragraph's
    `index`-th tab-separated part must hold exactly N words, else 0."""
    docs = _open_pair(result, expected)
    if docs is None:
        return 0.0
    para1 = [p for p in docs[0].paragraphs if p.text.strip()]
    para2 = [p for p in docs[1].paragraphs if p.text.strip()]
    if len(para1) != len(para2):
        return 0.0
    words = options.get("word_number_split_by_tabstop")
    if words is not None:
        index = options.get("index", 0)
        for paragraph in para1:
            part = paragraph.text.split("\t")[index]
            if len([w for w in re.split(r"\s", part) if w.strip()]) != words:
                return 0.0
    section = docs[1].sections[0]
    width = section.page_width - section.left_margin - section.right_margin
    offset = 0.0
    for p1, p2 in zip(para1, para2, strict=True):
        tabs1, tabs2 = _counted_tab_stops(p1), _counted_tab_stops(p2)
        if len(tabs1) != len(tabs2):
            return 0.0
        if any(t1.alignment != t2.alignment for t1, t2 in zip(tabs1, tabs2, strict=True)):
            return 0.0
        offset += sum(abs(t1.position - t2.position) for t1, t2 in zip(tabs1, tabs2, strict=True)) / width
    return 1 - offset / len(para1)  # no non-blank paragraph divides by zero, as in OSWorld


def compare_subscript_contains(result: str | None, expected: str | None) -> float:
    """1 when some run is subscript in both documents at the same paragraph and run index."""
    docs = _open_pair(result, expected)
    if docs is None:
        return 0.0
    return float(any(r1.font.subscript and r2.font.subscript for r1, r2 in _run_pairs(*docs)))


def compare_contains_image(result: str | None, expected: str | None) -> float:
    """0 when, at some paragraph and run index, one run holds a drawing (`graphicData` in its XML)
    and the other does not."""
    docs = _open_pair(result, expected)
    if docs is None:
        return 0.0
    pairs = _run_pairs(*docs)
    return float(
        all(("graphicData" in r1.element.xml) == ("graphicData" in r2.element.xml) for r1, r2 in pairs)
    )


def compare_docx_images(result: str | None, expected: str | None) -> float:
    """1 when both documents relate as many images, pairwise of the same decoded pixels."""
    docs = _open_pair(result, expected)
    if docs is None:
        return 0.0
    images1, images2 = _image_blobs(docs[0]), _image_blobs(docs[1])
    if len(images1) != len(images2):
        return 0.0
    return float(all(_pixels(a) == _pixels(b) for a, b in zip(images1, images2, strict=True)))


def _image_blobs(document: DocxDocument) -> list[bytes]:
    return [rel.target_part.blob for rel in document.part.rels.values() if "image" in rel.reltype]


def _pixels(blob: bytes) -> bytes:
    return Image.open(BytesIO(blob)).tobytes()


def compare_docx_lines(result: str | None, expected: str | None) -> float:
    """1 when both documents have the same set of stripped non-blank paragraph texts."""
    docs = _open_pair(result, expected)
    if docs is None:
        return 0.0
    first, second = ({p.text.strip() for p in d.paragraphs if p.text.strip()} for d in docs)
    return float(first == second)


def compare_docx_files_and_ignore_new_lines(
    result: str | None, expected: str | None, **options: Any
) -> float:
    """Two .docx with empty paragraphs dropped: with `ignore_blanks` (default True) the joined texts
    must match with whitespace collapsed, else the paragraphs must match one by one."""
    if not result or not expected or not (result.endswith(".docx") and expected.endswith(".docx")):
        return 0.0
    docs = _open_pair(result, expected)
    if docs is None:
        return 0.0
    first, second = ([p.text for p in d.paragraphs if p.text != ""] for d in docs)
    if options.get("ignore_blanks", True):
        return float(_collapsed(first) == _collapsed(second))
    return float(first == second)


def _collapsed(paragraphs: list[str]) -> str:
    return re.sub(r"\s+", " ", "\n".join(paragraphs)).strip()


def compare_font_names(result: str | None, rules: dict[str, Any]) -> float:
    """1 when every body run's font name is `rules["font_name"]` (a run without one fails)."""
    if not result:
        return 0.0
    document = _open(result)
    if document is None:
        return 0.0
    font = rules["font_name"]
    return float(all(run.font.name == font for run in _runs(document)))


def has_page_numbers_in_footers(result: str | None) -> float:
    """1 when the first footer paragraph of every section holds a digit."""
    document = _open(result)
    if document is None:
        return 0.0
    for section in document.sections:
        paragraphs = section.footer.paragraphs
        if not any(char.isdigit() for char in (paragraphs[0].text if paragraphs else "")):
            return 0.0
    return 1.0


def is_first_line_centered(result: str | None) -> float:
    """1 when the first body paragraph is centred (an empty document raises, as in OSWorld)."""
    document = _open(result)
    if document is None:
        return 0.0
    return float(document.paragraphs[0].paragraph_format.alignment == WD_PARAGRAPH_ALIGNMENT.CENTER)


def contains_page_break(result: str | None, rules: dict[str, Any] | None) -> float:
    """1 when the body's runs hold a page break (`w:br w:type="page"`), and exactly
    `rules["page_break_count"]` of them when the rules give that count."""
    document = _open(result)
    if document is None:
        return 0.0
    count = sum(
        br.get(f"{_W}type") == "page" for run in _runs(document) for br in run.element.iter(f"{_W}br")
    )
    expected = rules.get("page_break_count") if isinstance(rules, dict) else None
    if expected is not None and count != expected:
        return 0.0
    return float(count > 0)


def evaluate_strike_through_last_paragraph(result: str | None, expected: str | None) -> float:
    """1 when the texts match (compare_docx_files) and every run of the result's last paragraph is
    struck through."""
    document = _gated(result, expected)
    if document is None:
        return 0.0
    return float(all(run.font.strike for run in document.paragraphs[-1].runs))


def check_italic_font_size_14(result: str | None, expected: str | None) -> float:
    """1 when the texts match (compare_docx_files) and every italic body run is set in 14 pt."""
    document = _gated(result, expected)
    if document is None:
        return 0.0
    italics = (run for run in _runs(document) if run.italic)
    return float(all(run.font.size is not None and run.font.size.pt == 14 for run in italics))


_RED, _BLUE = (255, 0, 0), (0, 0, 255)


def evaluate_colored_words_in_tables(result: str | None, expected: str | None, **options: Any) -> float:
    """1 when the texts match (compare_docx_files) and every non-empty run in the result's tables is
    red when it starts with a vowel and blue otherwise, within CIEDE2000 distance `threshold`
    (default 3.5). A run without an RGB colour raises, as in OSWorld."""
    document = _gated(result, expected)
    if document is None:
        return 0.0
    threshold = options.get("threshold", 3.5)
    for table in document.tables:
        for row in table.rows:
            for cell in row.cells:
                for paragraph in cell.paragraphs:
                    for run in paragraph.runs:
                        if not run.text:
                            continue
                        target = _RED if run.text[0].lower() in "aeiou" else _BLUE
                        color = run.font.color.rgb
                        if ciede2000(_lab(color[0], color[1], color[2]), _lab(*target)) > threshold:
                            return 0.0
    return 1.0


_XYZ_FROM_RGB = (
    (0.412453, 0.357580, 0.180423),
    (0.212671, 0.715160, 0.072169),
    (0.019334, 0.119193, 0.950227),
)
_WHITE_D65 = (0.95047, 1.0, 1.08883)


def _lab(red: int, green: int, blue: int) -> tuple[float, float, float]:
    """CIE L*a*b* (D65, 2° observer) of an 8-bit sRGB colour, with scikit-image's constants."""
    linear = [
        ((c / 255 + 0.055) / 1.055) ** 2.4 if c / 255 > 0.04045 else c / 255 / 12.92
        for c in (red, green, blue)
    ]
    scaled = [
        sum(m * c for m, c in zip(row, linear, strict=True)) / w
        for row, w in zip(_XYZ_FROM_RGB, _WHITE_D65, strict=True)
    ]
    x, y, z = (math.cbrt(v) if v > 0.008856 else 7.787 * v + 16 / 116 for v in scaled)
    return 116 * y - 16, 500 * (x - y), 200 * (y - z)


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """The CIEDE2000 colour difference (kL = kC = kH = 1; Sharma, Wu and Dalal's formulation)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    mean_c7 = (0.5 * (math.hypot(a1, b1) + math.hypot(a2, b2))) ** 7
    scale = 1 + 0.5 * (1 - math.sqrt(mean_c7 / (mean_c7 + 25**7)))
    c1, h1 = _polar(a1 * scale, b1)
    c2, h2 = _polar(a2 * scale, b2)
    mean_l = 0.5 * (l1 + l2)
    l_term = (l2 - l1) / (1 + 0.015 * (mean_l - 50) ** 2 / math.sqrt(20 + (mean_l - 50) ** 2))
    mean_c = 0.5 * (c1 + c2)
    c_term = (c2 - c1) / (1 + 0.045 * mean_c)
    h_diff, h_sum, cc = h2 - h1, h1 + h2, c1 * c2
    dh = (
        0.0
        if cc == 0
        else h_diff - 2 * math.pi
        if h_diff > math.pi
        else h_diff + 2 * math.pi
        if h_diff < -math.pi
        else h_diff
    )
    if cc == 0:
        mean_h = h_sum
    elif abs(h_diff) > math.pi:
        mean_h = 0.5 * (h_sum + (2 * math.pi if h_sum < 2 * math.pi else -2 * math.pi))
    else:
        mean_h = 0.5 * h_sum
    t = (
        1
        - 0.17 * math.cos(mean_h - math.radians(30))
        + 0.24 * math.cos(2 * mean_h)
        + 0.32 * math.cos(3 * mean_h + math.radians(6))
        - 0.20 * math.cos(4 * mean_h - math.radians(63))
    )
    h_term = 2 * math.sqrt(cc) * math.sin(dh / 2) / (1 + 0.015 * mean_c * t)
    mean_c7 = mean_c**7
    rotation = math.radians(30) * math.exp(-(((math.degrees(mean_h) - 275) / 25) ** 2))
    r_term = -math.sin(2 * rotation) * 2 * math.sqrt(mean_c7 / (mean_c7 + 25**7)) * c_term * h_term
    return math.sqrt(max(l_term**2 + c_term**2 + h_term**2 + r_term, 0))


def _polar(x: float, y: float) -> tuple[float, float]:
    angle = math.atan2(y, x)
    return math.hypot(x, y), angle + 2 * math.pi if angle < 0 else angle


_ODF_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_ODF_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_ODF_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_ODF_BACKGROUND = "{urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0}background-color"


def check_highlighted_words(result: str | None, expected: str | None) -> float:
    """1 when the texts match (compare_docx_files, .odt) and no text span of the result (body,
    headers or footers) has an automatic style with a `#ffff00` background; 0 when one does."""
    if not result or not expected or not compare_docx_files(result, expected):
        return 0.0
    spans: list[str] = []
    yellow: set[str] = set()
    with zipfile.ZipFile(result) as archive:
        for part in ("content.xml", "styles.xml"):
            root = ElementTree.fromstring(archive.read(part))
            spans += [s.get(f"{_ODF_TEXT}style-name") for s in root.iter(f"{_ODF_TEXT}span")]
            for styles in root.iter(f"{_ODF_OFFICE}automatic-styles"):
                yellow |= {
                    style.get(f"{_ODF_STYLE}name")
                    for style in styles
                    if any(child.get(_ODF_BACKGROUND) == "#ffff00" for child in style)
                }
    return float(not any(name and name in yellow for name in spans))


def find_default_font(result: str | None, rules: dict[str, Any]) -> float:
    """1 when LibreOffice's registrymodifications.xcu sets Writer's standard default font to
    `rules["font_name"]` (a file that does not parse has none)."""
    expected = rules["font_name"]
    if not result:
        return 0.0
    found = None
    registry = "{http://openoffice.org/2001/registry}"
    try:
        for item in ElementTree.parse(result).getroot().iter("item"):
            if item.get(f"{registry}path") != "/org.openoffice.Office.Writer/DefaultFont":
                continue
            for prop in item.iter("prop"):
                if prop.get(f"{registry}name") == "Standard":
                    found = next((value.text for value in reversed(prop.findall("value"))), found)
    except (ElementTree.ParseError, OSError):
        pass
    return float(found == expected)


def compare_references(result: str | None, expected: str | None, **options: Any) -> float:
    """The non-blank paragraphs after the first paragraph that is exactly `reference_indicator`
    (default "References") in two .docx, paired in order: 1 when neither has the heading, 0 when
    one lacks it or the counts differ, else their mean similarity m rescaled as
    (m - b) / (1 - b) for the base `reference_base_result` b (default 0.5), 0 below b + 0.01."""
    if not result or not expected or not (result.endswith(".docx") and expected.endswith(".docx")):
        return 0.0
    docs = _open_pair(result, expected)
    if docs is None:
        return 0.0
    heading = options.get("reference_indicator", "References")
    base = options.get("reference_base_result", 0.5)
    first, second = ([p.text for p in d.paragraphs] for d in docs)
    if heading not in first and heading not in second:
        return 1.0
    if heading not in first or heading not in second:
        return 0.0
    refs1 = [p for p in first[first.index(heading) + 1 :] if p.strip()]
    refs2 = [p for p in second[second.index(heading) + 1 :] if p.strip()]
    if len(refs1) != len(refs2):
        return 0.0
    mean = sum(similarity(a, b) for a, b in zip(refs1, refs2, strict=True)) / len(refs1)
    return (mean - base) / (1 - base) if mean >= base + 0.01 else 0.0


METRICS: dict[str, Callable[..., float]] = {
    f.__name__: f
    for f in (
        compare_docx_tables,
        compare_line_spacing,
        check_tabstops,
        compare_subscript_contains,
        compare_contains_image,
        compare_docx_images,
        compare_docx_lines,
        compare_docx_files_and_ignore_new_lines,
        compare_font_names,
        has_page_numbers_in_footers,
        is_first_line_centered,
        contains_page_break,
        evaluate_strike_through_last_paragraph,
        check_italic_font_size_14,
        evaluate_colored_words_in_tables,
        check_highlighted_words,
        find_default_font,
        compare_references,
    )
}
"""The Writer formatting metrics by the name task files give them."""
