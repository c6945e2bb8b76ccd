"""The Writer-formatting and PDF family of the differential corpus: files generated from code and
the metric calls made on them (see cases.py for the corpus's shape).

Needs only the standard library and python-docx, plus LibreOffice (`soffice`), which turns the
`pdf_*.docx` files into PDFs. A case's `result` and `expected` name files in the build folder (or
lists of them); an `expected` that is a dict is a rule, passed as is, and a case without
`expected` calls the metric on its result alone.
"""

from __future__ import annotations

import struct
import subprocess
import zipfile
import zlib
from io import BytesIO
from pathlib import Path
from typing import Any

from docx import Document
from docx.enum.text import WD_BREAK, WD_PARAGRAPH_ALIGNMENT, WD_TAB_ALIGNMENT
from docx.oxml import parse_xml
from docx.shared import Inches, Pt, RGBColor

try:
    from .corpus_calls import Case, call_case, with_paths
except ImportError:  # imported by bare name, this folder on sys.path (osworld_scores.py)
    from corpus_calls import Case, call_case, with_paths

call = call_case
"""A case run through a metric table: the result, its expected value when it has one, the options."""
Paragraph = str | tuple[tuple[str, dict[str, Any]], ...]
"""Body text, or runs of (text, {property: value}) (see `_add_run`)."""


def _png(pattern: str, level: int = 6) -> bytes:
    """A 64x64 RGB PNG, checks or stripes, compressed at zlib `level`."""

    def pixel(x: int, y: int) -> bytes:
        if pattern == "checks":
            return b"\0\0\0" if (x // 8 + y // 8) % 2 else b"\xff\xff\xff"
        return b"\xc8\x1e\x1e" if (y // 16) % 2 else b"\x14\x14\xdc"

    rows = b"".join(b"\0" + b"".join(pixel(x, y) for x in range(64)) for y in range(64))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + header + chunk(b"IDAT", zlib.compress(rows, level)) + chunk(b"IEND", b"")


def _add_run(paragraph: Any, text: str, properties: dict[str, Any]) -> None:
    run = paragraph.add_run(text)
    for name, value in properties.items():
        if name == "page_break":
            run.add_break(WD_BREAK.PAGE)
        elif name == "color":
            run.font.color.rgb = RGBColor.from_string(value)
        elif name == "picture":
            run.add_picture(BytesIO(_png(*value)), width=Inches(1))
        elif name == "size":
            run.font.size = Pt(value)
        else:
            setattr(run.font, name, value)


def _doc(
    path: Path,
    body: list[Paragraph],
    table: list[list[Any]] | None = None,
    tables: int = 1,
    paragraph_format: dict[int, dict[str, Any]] | None = None,
    tab_stops: dict[int, list[tuple[float, Any]]] | None = None,
    footers: list[str | None] | None = None,
) -> None:
    """A .docx: `body` paragraphs; `tables` copies of `table` (cells are text or runs);
    per-paragraph `paragraph_format` attributes and `tab_stops` (inches, alignment); one section
    per entry of `footers` (None: the section's footer stays linked to the previous one)."""
    document = Document()
    for index, paragraph in enumerate(body):
        added = document.add_paragraph("" if not isinstance(paragraph, str) else paragraph)
        for text, properties in () if isinstance(paragraph, str) else paragraph:
            _add_run(added, text, properties)
        for name, value in (paragraph_format or {}).get(index, {}).items():
            setattr(added.paragraph_format, name, value)
        for position, alignment in (tab_stops or {}).get(index, []):
            added.paragraph_format.tab_stops.add_tab_stop(Inches(position), alignment)
    for _ in range(tables if table else 0):
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for i, row in enumerate(table):
            for j, cell in enumerate(row):
                if isinstance(cell, str):
                    grid.cell(i, j).text = cell
                else:
                    for text, properties in cell:
                        _add_run(grid.cell(i, j).paragraphs[0], text, properties)
    for index, footer in enumerate(footers or []):
        section = document.sections[0] if index == 0 else document.add_section()
        if footer is not None:
            section.footer.is_linked_to_previous = False
            section.footer.paragraphs[0].text = footer
    document.save(path)


def _page_field_footer(path: Path) -> None:
    """A footer whose only digit is inside a `w:fldSimple` PAGE field."""
    document = Document()
    document.add_paragraph("Body")
    footer = document.sections[0].footer.paragraphs[0]
    footer._p.append(
        parse_xml(
            '<w:fldSimple xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
            'w:instr="PAGE"><w:r><w:t>1</w:t></w:r></w:fldSimple>'
        )
    )
    document.save(path)


_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"'
)


def _odt(
    path: Path, body: str, background: str | None = None, header: str = "", header_style: str = ""
) -> None:
    """An .odt whose content.xml has style T1 (text, `background` if given) and `body`; styles.xml
    has automatic style MT1 with `header_style` text properties and a master page `header`."""
    fill = f' fo:background-color="{background}"' if background else ""
    content = (
        f'<office:document-content {_ODF_NS} office:version="1.2"><office:automatic-styles>'
        f'<style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="bold"{fill}/>'
        f"</style:style></office:automatic-styles><office:body><office:text>{body}</office:text></office:body>"
        "</office:document-content>"
    )
    styles = (
        f'<office:document-styles {_ODF_NS} office:version="1.2"><office:automatic-styles>'
        f'<style:style style:name="MT1" style:family="text"><style:text-properties{header_style}/></style:style>'
        '</office:automatic-styles><office:master-styles><style:master-page style:name="Standard">'
        f"<style:header>{header}</style:header></style:master-page></office:master-styles></office:document-styles>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(
            "mimetype", "application/vnd.oasis.opendocument.text", compress_type=zipfile.ZIP_STORED
        )
        archive.writestr("content.xml", content)
        archive.writestr("styles.xml", styles)
        archive.writestr(
            "META-INF/manifest.xml",
            '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
            '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
            '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
            '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>'
            "</manifest:manifest>",
        )


def _xcu(font: str | None) -> str:
    item = (
        '<item oor:path="/org.openoffice.Office.Writer/DefaultFont"><prop oor:name="Standard" oor:op="fuse">'
        f"<value>{font}</value></prop></item>"
        if font
        else ""
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry">'
        '<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse">'
        f"<value>false</value></prop></item>{item}</oor:items>"
    )


_TABLE = [["Task", "Hours"], ["Design", "4"]]
_LETTER = ["Dear team,", "The launch is on Monday."]
_STRUCK = {"strike": True}
_RED, _BLUE, _NEAR_RED = {"color": "FF0000"}, {"color": "0000FF"}, {"color": "F01010"}
_REFS = [
    "A study of things.",
    "References",
    "Smith, J. (2020). Things. Journal, 1.",
    "Doe, A. (2021). More things.",
]
_SPACING = {0: {"line_spacing": 1.5}, 1: {"line_spacing": 2.0}}
_TAB_TEXT = ["One two three\tvalue", "Four five six\tother"]
_TABS = {0: [(3.0, WD_TAB_ALIGNMENT.RIGHT)], 1: [(3.0, WD_TAB_ALIGNMENT.RIGHT)]}
_REPORT = [
    "Quarterly report",
    "Revenue grew by 12 percent, and costs fell.",
    "Name:\tAlice\tBob",
]

_DOCS: dict[str, dict[str, Any]] = {
    # tables
    "tbl_gold.docx": {"body": ["Plan"], "table": _TABLE},
    "tbl_padded.docx": {"body": ["Plan"], "table": [["Task ", " Hours"], ["Design", "4 "]]},
    "tbl_changed.docx": {"body": ["Plan"], "table": [["Task", "Hours"], ["Design", "5"]]},
    "tbl_rows.docx": {"body": ["Plan"], "table": [*_TABLE, ["Build", "6"]]},
    "tbl_two.docx": {"body": ["Plan"], "table": _TABLE, "tables": 2},
    "plain.docx": {"body": ["Plan"]},
    "empty.docx": {"body": []},
    # line spacing
    "sp_gold.docx": {"body": _LETTER, "paragraph_format": _SPACING},
    "sp_same.docx": {"body": _LETTER, "paragraph_format": _SPACING},
    "sp_single.docx": {
        "body": _LETTER,
        "paragraph_format": {0: {"line_spacing": 1.5}, 1: {"line_spacing": 1.0}},
    },
    "sp_points.docx": {
        "body": _LETTER,
        "paragraph_format": {0: {"line_spacing": Pt(18)}, 1: {"line_spacing": 2.0}},
    },
    "sp_unset.docx": {"body": _LETTER},
    "sp_text.docx": {"body": ["Dear team,", "The launch is on Friday."], "paragraph_format": _SPACING},
    "sp_blank.docx": {"body": [*_LETTER, ""], "paragraph_format": _SPACING},
    # tab stops
    "tab_gold.docx": {"body": _TAB_TEXT, "tab_stops": _TABS},
    "tab_blank.docx": {"body": [_TAB_TEXT[0], " ", _TAB_TEXT[1]], "tab_stops": {0: _TABS[0], 2: _TABS[1]}},
    "tab_shift.docx": {"body": _TAB_TEXT, "tab_stops": {0: [(3.5, WD_TAB_ALIGNMENT.RIGHT)], 1: _TABS[1]}},
    "tab_center.docx": {"body": _TAB_TEXT, "tab_stops": {0: [(3.0, WD_TAB_ALIGNMENT.CENTER)], 1: _TABS[1]}},
    "tab_extra.docx": {
        "body": _TAB_TEXT,
        "tab_stops": {0: [*_TABS[0], (5.0, WD_TAB_ALIGNMENT.LEFT)], 1: _TABS[1]},
    },
    "tab_left0.docx": {
        "body": _TAB_TEXT,
        "tab_stops": {0: [(0.0, WD_TAB_ALIGNMENT.LEFT), *_TABS[0]], 1: _TABS[1]},
    },
    "tab_words.docx": {"body": ["One two\tvalue", "Four five six\tother"], "tab_stops": _TABS},
    "tab_lines.docx": {"body": _TAB_TEXT + ["Seven eight nine"], "tab_stops": _TABS},
    # runs: subscript, fonts, strike, italics, page breaks, pictures, alignment
    "sub_gold.docx": {"body": [(("H", {}), ("2", {"subscript": True}), ("O", {}))]},
    "sub_plain.docx": {"body": [(("H", {}), ("2", {}), ("O", {}))]},
    "sub_shifted.docx": {"body": [(("H2", {}), ("O", {"subscript": True}))]},
    "font_tnr.docx": {
        "body": [(("Zoo ", {"name": "Times New Roman"}), ("intro", {"name": "Times New Roman"}))]
    },
    "font_mixed.docx": {"body": [(("Zoo ", {"name": "Times New Roman"}), ("intro", {"name": "Arial"}))]},
    "font_unset.docx": {"body": ["Zoo intro"]},
    "strike_all.docx": {"body": ["Course outline", (("Old ", _STRUCK), ("rule", _STRUCK))]},
    "strike_part.docx": {"body": ["Course outline", (("Old ", _STRUCK), ("rule", {}))]},
    "strike_gold.docx": {"body": ["Course outline", "Old rule"]},
    "strike_trailing.docx": {"body": ["Course outline", (("Old ", _STRUCK), ("rule", _STRUCK)), ""]},
    "it_14.docx": {"body": [(("Title ", {"italic": True, "size": 14}), ("body", {}))]},
    "it_12.docx": {"body": [(("Title ", {"italic": True, "size": 12}), ("body", {}))]},
    "it_unsized.docx": {"body": [(("Title ", {"italic": True}), ("body", {}))]},
    "it_gold.docx": {"body": ["Title body"]},
    "pb_one.docx": {"body": ["Declaration", (("Signed", {"page_break": True}),)]},
    "pb_two.docx": {"body": [(("A", {"page_break": True}),), (("B", {"page_break": True}),)]},
    "img_gold.docx": {"body": ["Schedule", (("", {"picture": ("checks",)}),)]},
    "img_same.docx": {"body": ["Schedule", (("", {"picture": ("checks",)}),)]},
    "img_recoded.docx": {"body": ["Schedule", (("", {"picture": ("checks", 1)}),)]},
    "img_other.docx": {"body": ["Schedule", (("", {"picture": ("stripes",)}),)]},
    "img_moved.docx": {"body": [(("", {"picture": ("checks",)}),), "Schedule"]},
    "img_none.docx": {"body": ["Schedule", ""]},
    "center.docx": {
        "body": [(("Constitution", {}),), "Body"],
        "paragraph_format": {0: {"alignment": WD_PARAGRAPH_ALIGNMENT.CENTER}},
    },
    "left.docx": {
        "body": ["Constitution", "Body"],
        "paragraph_format": {1: {"alignment": WD_PARAGRAPH_ALIGNMENT.CENTER}},
    },
    # coloured words in tables
    "col_gold.docx": {"body": ["Sight words"], "table": [["apple", "ball"]]},
    "col_ok.docx": {"body": ["Sight words"], "table": [[(("apple", _RED),), (("ball", _BLUE),)]]},
    "col_near.docx": {"body": ["Sight words"], "table": [[(("apple", _NEAR_RED),), (("Ball", _BLUE),)]]},
    "col_wrong.docx": {"body": ["Sight words"], "table": [[(("apple", _BLUE),), (("ball", _BLUE),)]]},
    "col_unset.docx": {"body": ["Sight words"], "table": [[(("apple", {}),), (("ball", _BLUE),)]]},
    "col_text.docx": {"body": ["Sight words!"], "table": [[(("apple", _RED),), (("ball", _BLUE),)]]},
    # footers
    "foot_num.docx": {"body": ["Body"], "footers": ["Page 1"]},
    "foot_text.docx": {"body": ["Body"], "footers": ["Confidential"]},
    "foot_linked.docx": {"body": ["Body"], "footers": ["Page 1", None]},
    "foot_second.docx": {"body": ["Body"], "footers": ["Page 1", "Appendix"]},
    # lines, references, new lines
    "lines_gold.docx": {"body": ["08:00, T1, S1, 1", "08:05, T2, S2, 2"]},
    "lines_shuffled.docx": {"body": ["08:05, T2, S2, 2", " 08:00, T1, S1, 1 ", "", "08:05, T2, S2, 2"]},
    "lines_changed.docx": {"body": ["08:00, T1, S1, 1", "08:05, T3, S2, 2"]},
    "ref_gold.docx": {"body": _REFS},
    "ref_close.docx": {"body": [*_REFS[:3], "Doe, A. (2021). More thing."]},
    "ref_far.docx": {"body": [*_REFS[:3], "Unrelated entry entirely"]},
    "ref_blank.docx": {"body": [*_REFS[:2], "", *_REFS[2:], " "]},
    "ref_fewer.docx": {"body": _REFS[:3]},
    "ref_none.docx": {"body": _REFS[:1]},
    "ref_bib.docx": {"body": ["A study of things.", "Bibliography", *_REFS[2:]]},
    "ref_heading_only.docx": {"body": _REFS[:2]},
    "nl_gold.docx": {"body": ["Model: gemini", "Score 0.9"]},
    "nl_blank.docx": {"body": ["Model: gemini", "", "Score 0.9", ""]},
    "nl_spaces.docx": {"body": ["Model:  gemini", "Score 0.9"]},
    "nl_joined.docx": {"body": ["Model: gemini Score 0.9"]},
    # PDF sources
    "pdf_gold.docx": {"body": _REPORT, "table": _TABLE},
    "pdf_same.docx": {"body": _REPORT, "table": _TABLE},
    "pdf_changed.docx": {
        "body": ["Quarterly summary", "Revenue grew by 15 percent, and costs fell.", _REPORT[2]],
        "table": _TABLE,
    },
    "pdf_two_pages.docx": {"body": [*_REPORT, (("", {"page_break": True}), ("Page two", {}))]},
    "pdf_checks.docx": {"body": ["Receipt", (("", {"picture": ("checks",)}),)]},
    "pdf_checks2.docx": {"body": ["Receipt copy", (("", {"picture": ("checks", 1)}),)]},
    "pdf_stripes.docx": {"body": ["Receipt", (("", {"picture": ("stripes",)}),)]},
    "pdf_both.docx": {"body": ["Receipt", (("", {"picture": ("checks",)}), ("", {"picture": ("stripes",)}))]},
    "pdf_double.docx": {
        "body": ["Receipt", (("", {"picture": ("checks",)}), ("", {"picture": ("checks",)}))]
    },
    "pdf_mixed.docx": {
        "body": ["Receipt", (("", {"picture": ("stripes",)}), ("", {"picture": ("checks",)}))]
    },
}

_ODTS: dict[str, dict[str, Any]] = {
    "hl_gold.odt": {"body": "<text:p>Call script</text:p>"},
    "hl_yellow.odt": {
        "body": '<text:p>Call <text:span text:style-name="T1">script</text:span></text:p>',
        "background": "#ffff00",
    },
    "hl_upper.odt": {
        "body": '<text:p>Call <text:span text:style-name="T1">script</text:span></text:p>',
        "background": "#FFFF00",
    },
    "hl_green.odt": {
        "body": '<text:p>Call <text:span text:style-name="T1">script</text:span></text:p>',
        "background": "#00ff00",
    },
    "hl_unused.odt": {"body": "<text:p>Call script</text:p>", "background": "#ffff00"},
    "hl_changed.odt": {"body": '<text:p>Call <text:span text:style-name="T1">text</text:span></text:p>'},
    "hl_header_gold.odt": {"body": "<text:p>Call script</text:p>", "header": "<text:p>Memo</text:p>"},
    "hl_header.odt": {
        "body": "<text:p>Call script</text:p>",
        "header": '<text:p><text:span text:style-name="MT1">Memo</text:span></text:p>',
        "header_style": ' fo:background-color="#ffff00"',
    },
}

_TEXTS = {
    "xcu_tnr.xcu": _xcu("Times New Roman"),
    "xcu_arial.xcu": _xcu("Arial"),
    "xcu_none.xcu": _xcu(None),
    "xcu_broken.xcu": "<oor:items",
    "corrupt.docx": "not a zip archive",
}


def _cases() -> dict[str, Case]:
    def pair(func: str, result: Any, expected: Any, **options: Any) -> Case:
        return {"func": func, "result": result, "expected": expected, "options": options}

    def alone(func: str, result: Any) -> Case:
        return {"func": func, "result": result, "options": {}}

    rule_font = {"font_name": "Times New Roman"}
    cases = {
        "tables-same": pair("compare_docx_tables", "tbl_gold.docx", "tbl_gold.docx"),
        "tables-padded": pair("compare_docx_tables", "tbl_padded.docx", "tbl_gold.docx"),
        "tables-changed": pair("compare_docx_tables", "tbl_changed.docx", "tbl_gold.docx"),
        "tables-rows": pair("compare_docx_tables", "tbl_rows.docx", "tbl_gold.docx"),
        "tables-count": pair("compare_docx_tables", "tbl_two.docx", "tbl_gold.docx"),
        "tables-none-both": pair("compare_docx_tables", "plain.docx", "empty.docx"),
        "tables-corrupt": pair("compare_docx_tables", "corrupt.docx", "tbl_gold.docx"),
        "tables-missing": pair("compare_docx_tables", None, "tbl_gold.docx"),
        "spacing-same": pair("compare_line_spacing", "sp_same.docx", "sp_gold.docx"),
        "spacing-single": pair("compare_line_spacing", "sp_single.docx", "sp_gold.docx"),
        "spacing-points": pair("compare_line_spacing", "sp_points.docx", "sp_gold.docx"),
        "spacing-unset": pair("compare_line_spacing", "sp_unset.docx", "sp_gold.docx"),
        "spacing-text": pair("compare_line_spacing", "sp_text.docx", "sp_gold.docx"),
        "spacing-extra-paragraph": pair("compare_line_spacing", "sp_blank.docx", "sp_gold.docx"),
        "spacing-missing": pair("compare_line_spacing", "sp_gold.docx", None),
        "tabs-same": pair("check_tabstops", "tab_gold.docx", "tab_gold.docx"),
        "tabs-blank-paragraph": pair("check_tabstops", "tab_blank.docx", "tab_gold.docx"),
        "tabs-shifted": pair("check_tabstops", "tab_shift.docx", "tab_gold.docx"),
        "tabs-alignment": pair("check_tabstops", "tab_center.docx", "tab_gold.docx"),
        "tabs-extra-stop": pair("check_tabstops", "tab_extra.docx", "tab_gold.docx"),
        "tabs-left-zero": pair("check_tabstops", "tab_left0.docx", "tab_gold.docx"),
        "tabs-paragraphs": pair("check_tabstops", "tab_lines.docx", "tab_gold.docx"),
        "tabs-words": pair(
            "check_tabstops", "tab_gold.docx", "tab_gold.docx", word_number_split_by_tabstop=3, index=0
        ),
        "tabs-words-wrong": pair(
            "check_tabstops", "tab_words.docx", "tab_gold.docx", word_number_split_by_tabstop=3
        ),
        "tabs-words-second-part": pair(
            "check_tabstops", "tab_gold.docx", "tab_gold.docx", word_number_split_by_tabstop=1, index=1
        ),
        "tabs-words-no-part": pair(
            "check_tabstops", "tab_gold.docx", "tab_gold.docx", word_number_split_by_tabstop=1, index=2
        ),
        "tabs-empty": pair("check_tabstops", "empty.docx", "empty.docx"),
        "tabs-missing": pair("check_tabstops", None, "tab_gold.docx"),
        "subscript-both": pair("compare_subscript_contains", "sub_gold.docx", "sub_gold.docx"),
        "subscript-plain": pair("compare_subscript_contains", "sub_plain.docx", "sub_gold.docx"),
        "subscript-shifted": pair("compare_subscript_contains", "sub_shifted.docx", "sub_gold.docx"),
        "subscript-missing": pair("compare_subscript_contains", "sub_gold.docx", None),
        "footer-number": alone("has_page_numbers_in_footers", "foot_num.docx"),
        "footer-text": alone("has_page_numbers_in_footers", "foot_text.docx"),
        "footer-none": alone("has_page_numbers_in_footers", "plain.docx"),
        "footer-linked": alone("has_page_numbers_in_footers", "foot_linked.docx"),
        "footer-second-section": alone("has_page_numbers_in_footers", "foot_second.docx"),
        "footer-field": alone("has_page_numbers_in_footers", "foot_field.docx"),
        "footer-missing": alone("has_page_numbers_in_footers", None),
        "fonts-all": pair("compare_font_names", "font_tnr.docx", rule_font),
        "fonts-mixed": pair("compare_font_names", "font_mixed.docx", rule_font),
        "fonts-unset": pair("compare_font_names", "font_unset.docx", rule_font),
        "fonts-no-runs": pair("compare_font_names", "empty.docx", rule_font),
        "fonts-no-rule": pair("compare_font_names", "font_tnr.docx", {}),
        "fonts-missing": pair("compare_font_names", None, rule_font),
        "centered": alone("is_first_line_centered", "center.docx"),
        "centered-not": alone("is_first_line_centered", "left.docx"),
        "centered-empty": alone("is_first_line_centered", "empty.docx"),
        "centered-missing": alone("is_first_line_centered", None),
        "highlight-yellow": pair("check_highlighted_words", "hl_yellow.odt", "hl_gold.odt"),
        "highlight-upper-case": pair("check_highlighted_words", "hl_upper.odt", "hl_gold.odt"),
        "highlight-green": pair("check_highlighted_words", "hl_green.odt", "hl_gold.odt"),
        "highlight-unused-style": pair("check_highlighted_words", "hl_unused.odt", "hl_gold.odt"),
        "highlight-clean": pair("check_highlighted_words", "hl_gold.odt", "hl_gold.odt"),
        "highlight-text-changed": pair("check_highlighted_words", "hl_changed.odt", "hl_gold.odt"),
        "highlight-header": pair("check_highlighted_words", "hl_header.odt", "hl_header_gold.odt"),
        "highlight-missing": pair("check_highlighted_words", None, "hl_gold.odt"),
        "contains-image-same": pair("compare_contains_image", "img_same.docx", "img_gold.docx"),
        "contains-image-none": pair("compare_contains_image", "img_none.docx", "img_gold.docx"),
        "contains-image-moved": pair("compare_contains_image", "img_moved.docx", "img_gold.docx"),
        "contains-image-text-only": pair("compare_contains_image", "plain.docx", "tbl_gold.docx"),
        "contains-image-missing": pair("compare_contains_image", "img_gold.docx", None),
        "lines-same-set": pair("compare_docx_lines", "lines_shuffled.docx", "lines_gold.docx"),
        "lines-changed": pair("compare_docx_lines", "lines_changed.docx", "lines_gold.docx"),
        "lines-empty": pair("compare_docx_lines", "empty.docx", "empty.docx"),
        "lines-missing": pair("compare_docx_lines", None, "lines_gold.docx"),
        "strike-all": pair("evaluate_strike_through_last_paragraph", "strike_all.docx", "strike_gold.docx"),
        "strike-part": pair("evaluate_strike_through_last_paragraph", "strike_part.docx", "strike_gold.docx"),
        "strike-none": pair("evaluate_strike_through_last_paragraph", "strike_gold.docx", "strike_gold.docx"),
        "strike-trailing-empty": pair(
            "evaluate_strike_through_last_paragraph", "strike_trailing.docx", "strike_gold.docx"
        ),
        "strike-text-changed": pair(
            "evaluate_strike_through_last_paragraph", "strike_all.docx", "plain.docx"
        ),
        "strike-empty": pair("evaluate_strike_through_last_paragraph", "empty.docx", "empty.docx"),
        "strike-missing": pair("evaluate_strike_through_last_paragraph", None, "strike_gold.docx"),
        "colors-right": pair("evaluate_colored_words_in_tables", "col_ok.docx", "col_gold.docx"),
        "colors-near": pair("evaluate_colored_words_in_tables", "col_near.docx", "col_gold.docx"),
        "colors-near-tight": pair(
            "evaluate_colored_words_in_tables", "col_near.docx", "col_gold.docx", threshold=1
        ),
        "colors-wrong": pair("evaluate_colored_words_in_tables", "col_wrong.docx", "col_gold.docx"),
        "colors-wrong-loose": pair(
            "evaluate_colored_words_in_tables", "col_wrong.docx", "col_gold.docx", threshold=100
        ),
        "colors-unset": pair("evaluate_colored_words_in_tables", "col_unset.docx", "col_gold.docx"),
        "colors-text-changed": pair("evaluate_colored_words_in_tables", "col_text.docx", "col_gold.docx"),
        "colors-no-table": pair("evaluate_colored_words_in_tables", "plain.docx", "plain.docx"),
        "colors-missing": pair("evaluate_colored_words_in_tables", "col_ok.docx", None),
        "italic-14": pair("check_italic_font_size_14", "it_14.docx", "it_gold.docx"),
        "italic-12": pair("check_italic_font_size_14", "it_12.docx", "it_gold.docx"),
        "italic-unsized": pair("check_italic_font_size_14", "it_unsized.docx", "it_gold.docx"),
        "italic-none": pair("check_italic_font_size_14", "it_gold.docx", "it_gold.docx"),
        "italic-text-changed": pair("check_italic_font_size_14", "it_14.docx", "plain.docx"),
        "italic-missing": pair("check_italic_font_size_14", None, "it_gold.docx"),
        "page-break": pair("contains_page_break", "pb_one.docx", {}),
        "page-break-none": pair("contains_page_break", "plain.docx", {}),
        "page-break-count": pair("contains_page_break", "pb_two.docx", {"page_break_count": 2}),
        "page-break-count-wrong": pair("contains_page_break", "pb_two.docx", {"page_break_count": 1}),
        "page-break-rules-none": pair("contains_page_break", "pb_one.docx", None),
        "page-break-no-rules": alone("contains_page_break", "pb_one.docx"),
        "page-break-missing": pair("contains_page_break", None, {}),
        "default-font": pair("find_default_font", "xcu_tnr.xcu", rule_font),
        "default-font-other": pair("find_default_font", "xcu_arial.xcu", rule_font),
        "default-font-unset": pair("find_default_font", "xcu_none.xcu", rule_font),
        "default-font-broken": pair("find_default_font", "xcu_broken.xcu", rule_font),
        "default-font-absent-file": pair("find_default_font", "absent.xcu", rule_font),
        "default-font-no-rule": pair("find_default_font", "xcu_tnr.xcu", {}),
        "default-font-missing": pair("find_default_font", None, rule_font),
        "references-same": pair("compare_references", "ref_gold.docx", "ref_gold.docx"),
        "references-close": pair("compare_references", "ref_close.docx", "ref_gold.docx"),
        "references-close-base": pair(
            "compare_references",
            "ref_close.docx",
            "ref_gold.docx",
            content_only=True,
            reference_base_result=0.92,
        ),
        "references-far": pair("compare_references", "ref_far.docx", "ref_gold.docx"),
        "references-far-low-base": pair(
            "compare_references", "ref_far.docx", "ref_gold.docx", reference_base_result=0.1
        ),
        "references-blank-lines": pair("compare_references", "ref_blank.docx", "ref_gold.docx"),
        "references-fewer": pair("compare_references", "ref_fewer.docx", "ref_gold.docx"),
        "references-one-heading": pair("compare_references", "ref_none.docx", "ref_gold.docx"),
        "references-no-heading": pair("compare_references", "ref_none.docx", "plain.docx"),
        "references-indicator": pair(
            "compare_references", "ref_bib.docx", "ref_bib.docx", reference_indicator="Bibliography"
        ),
        "references-heading-only": pair(
            "compare_references", "ref_heading_only.docx", "ref_heading_only.docx"
        ),
        "references-odt": pair("compare_references", "hl_gold.odt", "hl_gold.odt"),
        "references-missing": pair("compare_references", None, "ref_gold.docx"),
        "new-lines-blank": pair("compare_docx_files_and_ignore_new_lines", "nl_blank.docx", "nl_gold.docx"),
        "new-lines-blank-strict": pair(
            "compare_docx_files_and_ignore_new_lines", "nl_blank.docx", "nl_gold.docx", ignore_blanks=False
        ),
        "new-lines-spaces": pair("compare_docx_files_and_ignore_new_lines", "nl_spaces.docx", "nl_gold.docx"),
        "new-lines-spaces-strict": pair(
            "compare_docx_files_and_ignore_new_lines", "nl_spaces.docx", "nl_gold.docx", ignore_blanks=False
        ),
        "new-lines-joined": pair("compare_docx_files_and_ignore_new_lines", "nl_joined.docx", "nl_gold.docx"),
        "new-lines-joined-strict": pair(
            "compare_docx_files_and_ignore_new_lines", "nl_joined.docx", "nl_gold.docx", ignore_blanks=False
        ),
        "new-lines-odt": pair("compare_docx_files_and_ignore_new_lines", "hl_gold.odt", "hl_gold.odt"),
        "new-lines-corrupt": pair("compare_docx_files_and_ignore_new_lines", "corrupt.docx", "nl_gold.docx"),
        "new-lines-missing": pair("compare_docx_files_and_ignore_new_lines", None, "nl_gold.docx"),
        "docx-images-same": pair("compare_docx_images", "img_same.docx", "img_gold.docx"),
        "docx-images-recoded": pair("compare_docx_images", "img_recoded.docx", "img_gold.docx"),
        "docx-images-other": pair("compare_docx_images", "img_other.docx", "img_gold.docx"),
        "docx-images-count": pair("compare_docx_images", "img_none.docx", "img_gold.docx"),
        "docx-images-none": pair("compare_docx_images", "plain.docx", "empty.docx"),
        "docx-images-missing": pair("compare_docx_images", None, "img_gold.docx"),
        "pdfs-same": pair("compare_pdfs", "pdf_same.pdf", "pdf_gold.pdf"),
        "pdfs-changed": pair("compare_pdfs", "pdf_changed.pdf", "pdf_gold.pdf"),
        "pdfs-pages": pair("compare_pdfs", "pdf_two_pages.pdf", "pdf_gold.pdf"),
        "pdfs-images": pair("compare_pdfs", "pdf_checks.pdf", "pdf_checks2.pdf"),
        "pdfs-lists": pair(
            "compare_pdfs", ["pdf_same.pdf", "pdf_changed.pdf"], ["pdf_gold.pdf", "pdf_gold.pdf"]
        ),
        "pdfs-list-missing-file": pair(
            "compare_pdfs", ["absent.pdf", "pdf_same.pdf"], ["pdf_gold.pdf", "pdf_gold.pdf"]
        ),
        "pdfs-missing-result": pair("compare_pdfs", "absent.pdf", "pdf_gold.pdf"),
        "pdfs-none": pair("compare_pdfs", None, "pdf_gold.pdf"),
        "pdfs-not-pdf": pair("compare_pdfs", "corrupt.docx", "pdf_gold.pdf"),
        "pdf-images-same": pair("compare_pdf_images", "pdf_checks2.pdf", "pdf_checks.pdf"),
        "pdf-images-other": pair("compare_pdf_images", "pdf_stripes.pdf", "pdf_checks.pdf"),
        "pdf-images-count": pair("compare_pdf_images", "pdf_both.pdf", "pdf_checks.pdf"),
        "pdf-images-repeated": pair("compare_pdf_images", "pdf_double.pdf", "pdf_both.pdf"),
        "pdf-images-swapped": pair("compare_pdf_images", "pdf_mixed.pdf", "pdf_both.pdf"),
        "pdf-images-none": pair("compare_pdf_images", "pdf_gold.pdf", "pdf_same.pdf"),
        "pdf-images-absent": pair("compare_pdf_images", "absent.pdf", "pdf_checks.pdf"),
        "pdf-images-missing": pair("compare_pdf_images", None, "pdf_checks.pdf"),
        "pages-eq": pair("check_pdf_pages", "pdf_gold.pdf", {"relation": "eq", "ref_value": 1}),
        "pages-eq-wrong": pair("check_pdf_pages", "pdf_two_pages.pdf", {"relation": "eq", "ref_value": 1}),
        "pages-gt": pair("check_pdf_pages", "pdf_two_pages.pdf", {"relation": "gt", "ref_value": 1}),
        "pages-le": pair("check_pdf_pages", "pdf_two_pages.pdf", {"relation": "le", "ref_value": 1}),
        "pages-absent": pair("check_pdf_pages", "absent.pdf", {"relation": "eq", "ref_value": 1}),
        "pages-none": pair("check_pdf_pages", None, {"relation": "eq", "ref_value": 1}),
    }
    return cases


CASES: dict[str, Case] = _cases()
"""Every case by id."""


def build(folder: Path) -> dict[str, Case]:
    """Write every corpus file into `folder` (PDFs through LibreOffice); return the cases with file
    names made absolute paths."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, spec in _DOCS.items():
        _doc(folder / name, **spec)
    _page_field_footer(folder / "foot_field.docx")
    for name, spec in _ODTS.items():
        _odt(folder / name, **spec)
    for name, text in _TEXTS.items():
        (folder / name).write_text(text)
    sources = [str(folder / name) for name in _DOCS if name.startswith("pdf_")]
    profile = (folder / "lo-profile").as_uri()
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation={profile}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(folder),
            *sources,
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return {case_id: with_paths(case, folder) for case_id, case in CASES.items()}
