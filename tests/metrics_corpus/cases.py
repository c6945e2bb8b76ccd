"""The differential corpus: files generated from code and the metric calls made on them.

Runs under our environment and under a throwaway one holding OSWorld's evaluator
(`osworld_scores.py`), so it needs only the standard library, openpyxl,
python-docx and python-pptx (and Pillow, which python-pptx needs), plus LibreOffice (`soffice`), which saves the
`pivot_*.fods` books (data pilot tables) as xlsx pivot tables and re-saves the
`_LIBREOFFICE_CHARTS` books into `lo/` with its own chart XML. `build(folder)`
writes every file and returns the cases; a case's `result`/`expected` are file
names in that folder (or, for `exact_match` and `check_include_exclude`,
values), and `None` stays None.
"""

from __future__ import annotations

import io
import itertools
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import openpyxl
from docx import Document
from openpyxl.chart import BarChart, BarChart3D, LineChart, PieChart, Reference
from openpyxl.drawing.spreadsheet_drawing import AnchorMarker, TwoCellAnchor
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.datavalidation import DataValidation
from PIL import Image as PILImage
from pptx import Presentation
from pptx.util import Inches, Pt

try:
    from .corpus_calls import Case, call_case, with_paths
except ImportError:  # imported by bare name, this folder on sys.path (osworld_scores.py)
    from corpus_calls import Case, call_case, with_paths
_BUILDERS: dict[str, Callable[[Path], None]] = {}


def _file(name: str) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    def register(builder: Callable[[Path], None]) -> Callable[[Path], None]:
        _BUILDERS[name] = builder
        return builder

    return register


# -- workbooks ---------------------------------------------------------------------------
def _sales(path: Path, qty3: Any = 3, region: str = "North", title: str = "Sales") -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    sheet.append(["Item", "Qty", "Price", "Region"])
    for row in (["Pen", 1, 1.5, region], ["Ink", 2, 2.25, "South"], ["Pad", qty3, 3.125, "East"]):
        sheet.append(row)
    book.create_sheet("Notes")["A1"] = "notes"
    book.save(path)


for _name, _kw in {
    "gold.xlsx": {},
    "same.xlsx": {},
    "float_qty.xlsx": {"qty3": 3.00001},
    "text_qty.xlsx": {"qty3": "3"},
    "close_qty.xlsx": {"qty3": 3.00000001},
    "region.xlsx": {"region": "north"},
    "renamed.xlsx": {"title": "Data"},
}.items():
    _file(_name)(lambda path, kw=_kw: _sales(path, **kw))


@_file("formula.xlsx")
def _formula(path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sales"
    sheet.append(["Item", "Qty", "Price", "Region"])
    for i, row in enumerate((["Pen", 1, 1.5, "North"], ["Ink", 2, 2.25, "South"], ["Pad", 3, 3.125, "East"])):
        sheet.append(row)
        sheet.cell(row=i + 2, column=2, value=f"={row[1]}*1")
    book.create_sheet("Notes")["A1"] = "notes"
    book.save(path)


@_file("cells.xlsx")
def _cells(path: Path) -> None:
    """One sheet of cells with every value kind and style check_cell reads."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sheet1"
    sheet["A1"], sheet["A2"], sheet["A3"], sheet["A4"] = "Total: 42", 42, 3.5, True
    sheet["A5"], sheet["A6"], sheet["A7"] = "=A2*2", "a,b,c", "'x,y'"
    sheet["A8"], sheet["A9"] = "a\nb", "2024-01-01"
    sheet["B1"] = "bold red"
    sheet["B1"].font = Font(
        name="Arial", bold=True, italic=True, color="FFFF0000", size=14, underline="single"
    )
    sheet["B2"] = "plain"
    sheet["B2"].font = Font(bold=True)  # no colour set
    sheet["B3"] = 0.25
    sheet["B3"].number_format = "0.00%"
    sheet["B4"] = "filled"
    sheet["B4"].fill = PatternFill(fill_type="solid", fgColor="FFFFFF00")
    sheet["B5"] = "link"
    sheet["B5"].hyperlink = "https://example.org/"
    sheet["C1"] = "merged"
    sheet.merge_cells("C1:D1")
    sheet["E1"] = 12
    sheet["E1"].font = Font(size=12)
    book.save(path)


def _styled(path: Path, color: str | None, bold: bool = True) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"], sheet["A2"] = "head", 5
    sheet["A1"].font = Font(bold=bold, color=color)
    sheet["A2"].fill = PatternFill(fill_type="solid", fgColor="FF00FF00")
    book.save(path)


_file("style_red.xlsx")(lambda p: _styled(p, "FFFF0000"))
_file("style_red2.xlsx")(lambda p: _styled(p, "FFFF0000"))
_file("style_blue.xlsx")(lambda p: _styled(p, "FF0000FF"))
_file("style_plain.xlsx")(lambda p: _styled(p, "FFFF0000", bold=False))
_file("style_nocolor.xlsx")(lambda p: _styled(p, None))
_file("style_nocolor2.xlsx")(lambda p: _styled(p, None))


def _layout(
    path: Path,
    freeze: str | None,
    zoom: int | None,
    height: float | None,
    width: float | None,
    hidden: bool = False,
) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    for row in range(1, 6):
        sheet.append([f"r{row}", row, row * 2])
    sheet.freeze_panes = freeze
    if zoom is not None:
        sheet.sheet_view.zoomScale = zoom
    if height is not None:
        sheet.row_dimensions[2].height = height
    sheet.row_dimensions[3].hidden = hidden
    if width is not None:
        sheet.column_dimensions["A"].width = width
    book.save(path)


for _name, _args in {
    "layout_gold.xlsx": ("B2", 150, 30, 20, True),
    "layout_same.xlsx": ("B2", 150, 30, 20, True),
    "layout_freeze_a2.xlsx": ("A2", 150, 30, 20, True),
    "layout_nofreeze.xlsx": (None, 150, 30, 20, True),
    "layout_zoom100.xlsx": ("B2", None, 30, 20, True),
    "layout_height.xlsx": ("B2", 150, 40, 20, True),
    "layout_width.xlsx": ("B2", 150, 30, 25, True),
    "layout_shown.xlsx": ("B2", 150, 30, 20, False),
}.items():
    _file(_name)(lambda p, a=_args: _layout(p, *a))


def _filtered(path: Path, ref: str | None, values: list[str], sort: str | None) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Name", "Team", "Score"])
    for row in (["Ann", "x", 3], ["Bob", "y", 1], ["Cid", "x", 2]):
        sheet.append(row)
    if ref:
        sheet.auto_filter.ref = ref
        if values:
            sheet.auto_filter.add_filter_column(1, values)
        if sort:
            sheet.auto_filter.add_sort_condition(sort)
    book.save(path)


for _name, _args in {
    "filter_gold.xlsx": ("A1:C4", ["x"], "C2:C4"),
    "filter_same.xlsx": ("A1:C4", ["x"], "C2:C4"),
    "filter_other_value.xlsx": ("A1:C4", ["y"], "C2:C4"),
    "filter_nosort.xlsx": ("A1:C4", ["x"], None),
    "filter_none.xlsx": (None, [], None),
}.items():
    _file(_name)(lambda p, a=_args: _filtered(p, *a))


def _validated(path: Path, kind: str, formula: str, sqref: str) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    validation = DataValidation(type=kind, formula1=formula, allow_blank=True)
    validation.add(sqref)
    sheet.add_data_validation(validation)
    book.save(path)


_file("dv_list.xlsx")(lambda p: _validated(p, "list", '"Low,Mid,High"', "A2:A10"))
_file("dv_whole.xlsx")(lambda p: _validated(p, "whole", "0", "B2:B10"))


def _printable(path: Path, lines: list[str], sheet: str = "Sheet1", encoding: str = "utf-8") -> None:
    """A workbook and its CSV export `<book>-<sheet>.csv`, as OSWorld's postconfig writes them."""
    book = openpyxl.Workbook()
    book.active.title = sheet
    book.save(path)
    path.with_name(f"{path.stem}-{sheet}.csv").write_bytes("\n".join(lines).encode(encoding))


_file("print_gold.xlsx")(lambda p: _printable(p, ["a,b", "1,2", ""]))
_file("print_same.xlsx")(lambda p: _printable(p, ["a,b", "1,2"]))
_file("print_spaces.xlsx")(lambda p: _printable(p, [" a,b ", "1,2", "", ""]))
_file("print_upper.xlsx")(lambda p: _printable(p, ["A,B", "1,2"]))
_file("print_other.xlsx")(lambda p: _printable(p, ["a,b", "1,3"]))
_file("print_latin1.xlsx")(lambda p: _printable(p, ["caf\u00e9,b", "1,2"], encoding="latin-1"))
_file("print_utf8.xlsx")(lambda p: _printable(p, ["caf\u00e9,b", "1,2"]))
_file("print_noexport.xlsx")(lambda p: openpyxl.Workbook().save(p))


def _fuzzy(path: Path, names: list[Any]) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    for name in names:
        sheet.append([name])
    book.save(path)


_file("fuzzy_gold.xlsx")(lambda p: _fuzzy(p, ["Main Road", "(Unit 5)", "+ 42", "Apple pie"]))
_file("fuzzy_agent.xlsx")(lambda p: _fuzzy(p, ["main Rd", "Unit 5", "42", "Apple pies"]))
_file("fuzzy_far.xlsx")(lambda p: _fuzzy(p, ["Side Street", "Unit 6", "+ 41", "Cherry tart"]))
_file("fuzzy_numbers.xlsx")(lambda p: _fuzzy(p, [1, 2.5, None, "x"]))

# -- charts and pivot tables ---------------------------------------------------------------
_CHART_KINDS = {"bar": BarChart, "bar3d": BarChart3D, "line": LineChart, "pie": PieChart}


def _charted(
    path: Path,
    kinds: tuple[str, ...] = ("bar",),
    title: str | None = "Sales",
    legend: str | None = "r",
    direction: str = "col",
    column: int = 2,
    anchor: tuple[int, int, int] = (5, 1, 15),
    size: tuple[float, float] = (15, 7.5),
) -> None:
    """Monthly figures on Sheet1 and one chart per kind of `kinds` on them (the same series each);
    `anchor` is the chart's first column, first row and last row (its last column is 4 further)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sheet1"
    for row in (["Month", "Revenue", "Cost"], ["Jan", 10, 4], ["Feb", 12, 5], ["Mar", 9, 6]):
        sheet.append(row)
    for kind in kinds:
        chart = _CHART_KINDS[kind]()
        chart.add_data(Reference(sheet, min_col=column, min_row=1, max_row=4), titles_from_data=True)
        chart.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=4))
        chart.title = title
        if legend is None:
            chart.legend = None
        else:
            chart.legend.position = legend
        if kind != "pie":
            chart.x_axis.title, chart.y_axis.title = "Month", "Amount"
        if kind in ("bar", "bar3d"):
            chart.type = direction
        chart.width, chart.height = size
        first_col, first_row, last_row = anchor
        chart.anchor = TwoCellAnchor(
            editAs="oneCell",
            _from=AnchorMarker(col=first_col, row=first_row),
            to=AnchorMarker(col=first_col + 4, row=last_row),
        )
        sheet.add_chart(chart)
    book.save(path)


for _name, _kw in {
    "chart_gold.xlsx": {},
    "chart_same.xlsx": {},
    "chart_line.xlsx": {"kinds": ("line",)},
    "chart_pie.xlsx": {"kinds": ("pie",)},
    "chart_3d.xlsx": {"kinds": ("bar3d",)},
    "chart_horizontal.xlsx": {"direction": "bar"},
    "chart_retitled.xlsx": {"title": "Revenue"},
    "chart_untitled.xlsx": {"title": None},
    "chart_legend_bottom.xlsx": {"legend": "b"},
    "chart_no_legend.xlsx": {"legend": None},
    "chart_cost.xlsx": {"column": 3},
    "chart_lower.xlsx": {"anchor": (5, 4, 15)},
    "chart_right.xlsx": {"anchor": (8, 1, 15)},
    "chart_taller.xlsx": {"anchor": (5, 1, 20), "size": (20, 10)},
    "chart_bar_then_line.xlsx": {"kinds": ("bar", "line")},
    "chart_line_then_bar.xlsx": {"kinds": ("line", "bar")},
}.items():
    _file(_name)(lambda path, kw=_kw: _charted(path, **kw))
_file("chart_none.xlsx")(lambda path: _charted(path, kinds=()))
_LIBREOFFICE_CHARTS = ["chart_gold.xlsx", "chart_lower.xlsx", "chart_pie.xlsx", "chart_horizontal.xlsx"]
"""Chart books LibreOffice re-saves into `lo/` (its chart XML: two-cell anchors, its own series)."""

_ODS_NAMESPACES = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}
_PIVOT_SOURCE = [
    ["Date", "Product", "Region", "Revenue"],
    ["2024-01", "Pen", "North", 10],
    ["2024-01", "Ink", "South", 20],
    ["2024-02", "Pen", "South", 5],
    ["2024-02", "Pad", "North", 8],
]
PilotField = tuple[str, str, dict[str, str], tuple[str, ...]]
"""A data pilot field: source column name, orientation, extra attributes, hidden members."""


def _ods_cell(value: Any) -> str:
    if isinstance(value, str):
        return f'<table:table-cell office:value-type="string"><text:p>{escape(value)}</text:p></table:table-cell>'
    return f'<table:table-cell office:value-type="float" office:value="{value}"><text:p>{value}</text:p></table:table-cell>'


def _ods_sheet(name: str, rows: list[list[Any]]) -> str:
    body = "".join(f"<table:table-row>{''.join(map(_ods_cell, row))}</table:table-row>" for row in rows)
    return f'<table:table table:name="{name}">{body or "<table:table-row><table:table-cell/></table:table-row>"}</table:table>'


def _field(name: str, orientation: str, hidden: tuple[str, ...] = (), **attributes: str) -> PilotField:
    return name, orientation, attributes, hidden


def _pilot_field(field: PilotField) -> str:
    name, orientation, attributes, hidden = field
    extra = "".join(f' table:{key.replace("_", "-")}="{value}"' for key, value in attributes.items())
    members = "".join(f'<table:data-pilot-member table:name="{m}" table:display="false"/>' for m in hidden)
    level = (
        f"<table:data-pilot-level><table:data-pilot-members>{members}</table:data-pilot-members></table:data-pilot-level>"
        if members
        else ""
    )
    return (
        f'<table:data-pilot-field table:source-field-name="{name}" table:orientation="{orientation}"{extra}>'
        f"{level}</table:data-pilot-field>"
    )


def _pilot(*fields: PilotField, name: str = "DataPilot1", source: str = "A1:D5", target: str = "A1") -> str:
    """A data pilot table on Sheet2 at `target` over `source` of Sheet1."""
    first, last = source.split(":")
    return (
        f'<table:data-pilot-table table:name="{name}" table:target-range-address="Sheet2.{target}">'
        f'<table:source-cell-range table:cell-range-address="Sheet1.{first}:Sheet1.{last}"/>'
        f"{''.join(map(_pilot_field, fields))}</table:data-pilot-table>"
    )


def _pivoted(path: Path, *pilots: str) -> None:
    """A flat ODS book: sales records on Sheet1 and the `pilots` on Sheet2. build() has LibreOffice
    save it as xlsx, which writes the pivot tables' OOXML parts and their output cells."""
    namespaces = " ".join(f'xmlns:{prefix}="{uri}"' for prefix, uri in _ODS_NAMESPACES.items())
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?><office:document {namespaces} office:version="1.2" '
        'office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet>'
        f"{_ods_sheet('Sheet1', _PIVOT_SOURCE)}{_ods_sheet('Sheet2', [])}"
        f"<table:data-pilot-tables>{''.join(pilots)}</table:data-pilot-tables>"
        "</office:spreadsheet></office:body></office:document>",
        encoding="utf-8",
    )


_PRODUCT_SUM = (_field("Product", "row"), _field("Revenue", "data", function="sum"))
for _name, _pilots in {
    "pivot_gold.fods": (_pilot(*_PRODUCT_SUM),),
    "pivot_same.fods": (_pilot(*_PRODUCT_SUM),),
    "pivot_renamed.fods": (_pilot(*_PRODUCT_SUM, name="Summary"),),
    "pivot_moved.fods": (_pilot(*_PRODUCT_SUM, target="D5"),),
    "pivot_narrow_source.fods": (_pilot(*_PRODUCT_SUM, source="B1:D5"),),
    "pivot_short_source.fods": (_pilot(*_PRODUCT_SUM, source="A1:D4"),),
    "pivot_count.fods": (_pilot(_field("Product", "row"), _field("Revenue", "data", function="count")),),
    "pivot_by_region.fods": (_pilot(_field("Region", "row"), _field("Revenue", "data", function="sum")),),
    "pivot_columns.fods": (_pilot(_field("Product", "column"), _field("Revenue", "data", function="sum")),),
    "pivot_hidden_ink.fods": (
        _pilot(_field("Product", "row", hidden=("Ink",)), _field("Revenue", "data", function="sum")),
    ),
    "pivot_hidden_pad.fods": (
        _pilot(_field("Product", "row", hidden=("Pad",)), _field("Revenue", "data", function="sum")),
    ),
    "pivot_page.fods": (_pilot(_field("Region", "page", selected_page="North"), *_PRODUCT_SUM),),
    "pivot_two.fods": (
        _pilot(*_PRODUCT_SUM),
        _pilot(
            _field("Region", "row"), _field("Revenue", "data", function="sum"), name="DataPilot2", target="E1"
        ),
    ),
}.items():
    _file(_name)(lambda path, pilots=_pilots: _pivoted(path, *pilots))
_file("pivot_none.fods")(lambda path: _pivoted(path))

# -- documents -----------------------------------------------------------------------------


def _docx(path: Path, paragraphs: list[str]) -> None:
    document = Document()
    for text in paragraphs:
        document.add_paragraph(text)
    document.save(path)


for _name, _paragraphs in {
    "doc_gold.docx": ["Dear team,", "The launch is on Monday."],
    "doc_split.docx": ["Dear  team,", "", "The launch\tis on Monday."],
    "doc_changed.docx": ["Dear team,", "The launch is on Tuesday."],
    "doc_shouted.docx": ["DEAR TEAM,", "THE LAUNCH IS ON MONDAY."],
    "doc_reordered.docx": ["The launch is on Monday.", "Dear team,"],
    "doc_blank_lines.docx": ["Dear team,", "", "The launch is on Monday.", "  "],
    "doc_empty.docx": [],
}.items():
    _file(_name)(lambda p, t=_paragraphs: _docx(p, t))

_ODT_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"'
)


def _odt(path: Path, body: str, header: str = "") -> None:
    """A minimal .odt: `body` paragraphs in content.xml, `header` ones in styles.xml's master page."""
    content = f'<office:document-content {_ODT_NS} office:version="1.2"><office:body><office:text>{body}</office:text></office:body></office:document-content>'
    styles = (
        f'<office:document-styles {_ODT_NS} office:version="1.2"><office:master-styles>'
        f'<style:master-page style:name="Standard"><style:header>{header}</style:header></style:master-page>'
        "</office:master-styles></office:document-styles>"
    )
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(
            "mimetype", "application/vnd.oasis.opendocument.text", compress_type=zipfile.ZIP_STORED
        )
        archive.writestr("content.xml", content)
        archive.writestr("styles.xml", styles)
        archive.writestr("META-INF/manifest.xml", manifest)


for _name, (_body, _header) in {
    "odt_gold.odt": ("<text:p>Dear team,</text:p><text:p>The launch is on Monday.</text:p>", ""),
    "odt_same.odt": ("<text:p>Dear team,</text:p><text:p>The launch is on Monday.</text:p>", ""),
    "odt_spans.odt": (
        '<text:p>Dear <text:span text:style-name="T1">team</text:span>,</text:p>'
        "<text:p>The launch is on <text:span>Mon<text:span>day</text:span></text:span>.</text:p>",
        "",
    ),
    "odt_spaces.odt": ("<text:p>Dear<text:s/>team,</text:p><text:p>The launch is on Monday.</text:p>", ""),
    "odt_header.odt": (
        "<text:p>Dear team,</text:p><text:p>The launch is on Monday.</text:p>",
        "<text:p>Memo</text:p>",
    ),
    "odt_changed.odt": ("<text:p>Dear team,</text:p><text:p>The launch is on Tuesday.</text:p>", ""),
    "odt_heading.odt": ("<text:h>Dear team,</text:h><text:p>The launch is on Monday.</text:p>", ""),
}.items():
    _file(_name)(lambda p, b=_body, h=_header: _odt(p, b, h))


def _slides(
    path: Path,
    title: str = "Plan",
    size: int = 24,
    bold: bool = False,
    left: float = 1.0,
    notes: str = "",
    count: int = 1,
) -> None:
    presentation = Presentation()
    for index in range(count):
        slide = presentation.slides.add_slide(presentation.slide_layouts[5])
        slide.shapes.title.text = f"{title} {index}"
        box = slide.shapes.add_textbox(Inches(left), Inches(2), Inches(4), Inches(1))
        run = box.text_frame.paragraphs[0].add_run()
        run.text, run.font.size, run.font.bold = "Q3 goals", Pt(size), bold
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    presentation.save(path)


for _name, _kw in {
    "deck_gold.pptx": {},
    "deck_same.pptx": {},
    "deck_title.pptx": {"title": "Agenda"},
    "deck_size.pptx": {"size": 28},
    "deck_bold.pptx": {"bold": True},
    "deck_moved.pptx": {"left": 2.0},
    "deck_notes.pptx": {"notes": "speak slowly"},
    "deck_two.pptx": {"count": 2},
}.items():
    _file(_name)(lambda p, kw=_kw: _slides(p, **kw))


def _picture_bytes() -> bytes:
    image = io.BytesIO()
    PILImage.new("RGB", (4, 4), (200, 40, 40)).save(image, format="PNG")
    return image.getvalue()


def _positions_deck(path: Path, **moves: dict[str, int]) -> None:
    """Three slides holding what OSWorld's position checks look at: on slide 1 a text box reading
    "Elaborate on what you want to discuss." and a freeform, on slide 2 the title "Product
    Comparison" and a picture, on slide 3 a table. `moves` sets a shape's `left`, `top`, `width` or
    `height` (EMU): keys `textbox`, `freeform`, `title`, `picture`, `table`."""
    deck = Presentation()
    first, second, third = (deck.slides.add_slide(deck.slide_layouts[5]) for _ in range(3))
    first.shapes.title.text, second.shapes.title.text, third.shapes.title.text = (
        "Agenda",
        "Product Comparison",
        "Prices",
    )
    textbox = first.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1))
    textbox.text_frame.text = "Elaborate on what you want to discuss."
    builder = first.shapes.build_freeform(Inches(1), Inches(4), scale=1.0)
    builder.add_line_segments([(Inches(3), Inches(4)), (Inches(2), Inches(6))])
    freeform = builder.convert_to_shape()
    picture = second.shapes.add_picture(
        io.BytesIO(_picture_bytes()), Inches(1), Inches(3), Inches(2), Inches(2)
    )
    table = third.shapes.add_table(2, 2, Inches(1), Inches(1.5), Inches(4), Inches(1.5))
    for row, column in itertools.product(range(2), range(2)):
        table.table.cell(row, column).text = f"{row}{column}"
    shapes = {
        "textbox": textbox,
        "freeform": freeform,
        "title": second.shapes.title,
        "picture": picture,
        "table": table,
    }
    for key, sides in moves.items():
        for side, value in sides.items():
            setattr(shapes[key], side, value)
    deck.save(path)


for _name, _moves in {
    "pos_gold.pptx": {},
    "pos_same.pptx": {},
    "pos_textbox_nudged.pptx": {"textbox": {"left": Inches(1) + 3000}},
    "pos_textbox_shifted.pptx": {"textbox": {"left": Inches(1.05)}},
    "pos_textbox_resized.pptx": {"textbox": {"width": Inches(6), "height": Inches(2)}},
    "pos_title_resized.pptx": {"title": {"width": Inches(6)}},
    "pos_title_bottom.pptx": {"title": {"top": Inches(5)}},
    "pos_title_lower.pptx": {"title": {"top": Inches(2)}},
    "pos_title_bottom_textbox_moved.pptx": {"title": {"top": Inches(5)}, "textbox": {"top": Inches(3)}},
    "pos_title_bottom_picture_moved.pptx": {"title": {"top": Inches(5)}, "picture": {"left": Inches(2)}},
    "pos_table_bottom.pptx": {"table": {"top": Inches(5)}},
    "pos_table_lower.pptx": {"table": {"top": Inches(3)}},
    "pos_table_bottom_picture_moved.pptx": {"table": {"top": Inches(5)}, "picture": {"left": Inches(2)}},
    "pos_picture_right.pptx": {"picture": {"left": Inches(6)}},
    "pos_picture_right_little.pptx": {"picture": {"left": Inches(3)}},
    "pos_picture_top.pptx": {"picture": {"top": Inches(1)}},
    "pos_picture_top_little.pptx": {"picture": {"top": Inches(2.5)}},
    "pos_picture_small.pptx": {"picture": {"width": 360000, "height": 360000}},
    "pos_picture_small_moved.pptx": {"picture": {"width": 360000, "height": 360000, "left": Inches(5)}},
    "pos_picture_taller.pptx": {"picture": {"height": Inches(3)}},
    "pos_picture_taller_moved.pptx": {
        "picture": {"height": Inches(3), "left": Inches(4), "width": Inches(3)}
    },
    "pos_freeform_taller.pptx": {"freeform": {"height": Inches(3)}},
    "pos_freeform_taller_moved.pptx": {"freeform": {"height": Inches(3), "left": Inches(2)}},
}.items():
    _file(_name)(lambda p, moves=_moves: _positions_deck(p, **moves))

# -- text ------------------------------------------------------------------------------------
for _name, _data in {
    "csv_gold.csv": b"a,b\n1,2\n",
    "csv_same.csv": b"a,b\n1,2\n",
    "csv_spaces.csv": b" a,b\n1,2 \n",
    "csv_upper.csv": b"A,B\n1,2\n",
    "csv_bom.csv": b"\xef\xbb\xbfa,b\n1,2\n",
    "csv_blank.csv": b"a,b\n1,2\n\n",
    "csv_crlf.csv": b"a,b\r\n1,2\r\n",
    "csv_latin1.csv": "caf\u00e9,b\n1,2\n".encode("latin-1"),
    "csv_latin1_same.csv": "caf\u00e9,b\n1,2\n".encode("latin-1"),
    "csv_utf8_cafe.csv": "caf\u00e9,b\n1,2\n".encode(),
    "txt_gold.txt": b"one\ntwo\nthree\n",
    "txt_changed.txt": b"one\n2\nthree\nfour\n",
    "txt_empty.txt": b"",
    "txt_empty2.txt": b"",
    "txt_binary.txt": b"\xff\xfeone\n",
}.items():
    _file(_name)(lambda p, d=_data: p.write_bytes(d))


# -- cases -----------------------------------------------------------------------------------
def _table(result: str | None, expected: str | None, *rules: dict) -> Case:
    return {
        "func": "compare_table",
        "result": result,
        "expected": expected,
        "options": {"rules": list(rules)},
    }


def _cell(coordinate: str, prop: str, method: str, ref: Any) -> Case:
    return _table(
        "cells.xlsx",
        None,
        {
            "type": "check_cell",
            "sheet_idx": 0,
            "coordinate": coordinate,
            "props": {prop: {"method": method, "ref": ref}},
        },
    )


def _data(result: str, expected: str = "gold.xlsx", **extra: Any) -> Case:
    return _table(result, expected, {"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0", **extra})


def _pair(kind: str, result: str, expected: str, **extra: Any) -> Case:
    return _table(result, expected, {"type": kind, "sheet_idx0": 0, "sheet_idx1": "EI0", **extra})


def _fuzzy_rule(kind: str, **extra: Any) -> Case:
    sub = {"range": ["A1:A4"], "type": kind, **extra}
    return _table(
        "fuzzy_agent.xlsx",
        "fuzzy_gold.xlsx",
        {"type": "sheet_fuzzy", "sheet_idx0": "RI0", "sheet_idx1": "EI0", "rules": [sub]},
    )


def _other(func: str, result: Any, expected: Any, **options: Any) -> Case:
    return {"func": func, "result": result, "expected": expected, "options": options}


_ALL_CHART_PROPS = (
    "title",
    "legend",
    "anchor",
    "width",
    "height",
    "type",
    "direction",
    "xtitle",
    "ytitle",
    "ztitle",
)
_PIVOT_PROPS = ("col_fields", "filter", "row_fields", "data_fields")
"""The pivot properties every OSWorld task compares."""


def _chart(
    result: str, expected: str | None, *props: str, sheets: tuple[int | str, str] = (0, "EI0")
) -> Case:
    return _table(
        result,
        expected,
        {"type": "chart", "sheet_idx0": sheets[0], "sheet_idx1": sheets[1], "chart_props": list(props)},
    )


def _pivot(
    result: str,
    expected: str | None = "pivot_gold.xlsx",
    props: tuple[str, ...] = _PIVOT_PROPS,
    sheets: tuple[int | str, str] = ("RNSheet2", "ENSheet2"),
) -> Case:
    return _table(
        result,
        expected,
        {"type": "pivot_table", "sheet_idx0": sheets[0], "sheet_idx1": sheets[1], "pivot_props": list(props)},
    )


def _positions(result: str, expected: str = "pos_gold.pptx", **options: Any) -> Case:
    """A position check as OSWorld's tasks turn it on: with `examine_shape` off unless `options` say."""
    return _other("compare_pptx_files", result, expected, **{"examine_shape": False, **options})


_STYLE_PROPS = ["font_bold", "font_color", "fill_type", "bgcolor", "number_format"]
_NORMALIZE = {"normalization": [["Rd", "Road"]], "ignore_case": True}

CASES: dict[str, Case] = {
    # compare_table: sheet_name / sheet_data
    "table-name-same": _table("same.xlsx", "gold.xlsx", {"type": "sheet_name"}),
    "table-name-renamed": _table("renamed.xlsx", "gold.xlsx", {"type": "sheet_name"}),
    "table-data-same": _data("same.xlsx"),
    "table-data-float-dtype": _data("float_qty.xlsx"),
    "table-data-float-precision2": _data("float_qty.xlsx", precision=2),
    "table-data-close": _data("close_qty.xlsx"),
    "table-data-text-number": _data("text_qty.xlsx"),
    "table-data-case": _data("region.xlsx"),
    "table-data-case-ignored-option": _data("region.xlsx", ignore_case=True),
    "table-data-formula-uncached": _data("formula.xlsx"),
    "table-data-formula-both": _data("formula.xlsx", "formula.xlsx"),
    "table-data-by-name": _table(
        "same.xlsx", "gold.xlsx", {"type": "sheet_data", "sheet_idx0": "RNSales", "sheet_idx1": "ENSales"}
    ),
    "table-data-second-sheet": _table(
        "same.xlsx", "gold.xlsx", {"type": "sheet_data", "sheet_idx0": "RI1", "sheet_idx1": "EI1"}
    ),
    "table-data-missing-first": _table(
        "renamed.xlsx", "gold.xlsx", {"type": "sheet_data", "sheet_idx0": "RNSales", "sheet_idx1": "ENSales"}
    ),
    "table-data-missing-second": _table(
        "same.xlsx", "renamed.xlsx", {"type": "sheet_data", "sheet_idx0": "RNSales", "sheet_idx1": "ENSales"}
    ),
    "table-data-index-out-of-range": _table(
        "same.xlsx", "gold.xlsx", {"type": "sheet_data", "sheet_idx0": 5, "sheet_idx1": "EI0"}
    ),
    "table-missing-result": _data("absent.xlsx"),
    "table-none-result": _data(None),  # type: ignore[arg-type]
    "table-corrupt-result": _data("csv_gold.csv"),
    "table-two-rules-second-fails": _table(
        "renamed.xlsx",
        "gold.xlsx",
        {"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"},
        {"type": "sheet_name"},
    ),
    "table-bad-sheet-ref": _table(
        "same.xlsx", "gold.xlsx", {"type": "sheet_data", "sheet_idx0": "XX0", "sheet_idx1": "EI0"}
    ),
    # check_cell: values and methods
    "cell-re": _cell("A1", "value", "re", r"\d+"),
    "cell-re-miss": _cell("A1", "value", "re", "^x"),
    "cell-re-I": _cell("A1", "value", "re.I", "total"),
    "cell-re-case": _cell("A1", "value", "re", "total"),
    "cell-re-on-number": _cell("A2", "value", "re", "42"),
    "cell-re-IM": _cell("A8", "value", "re.I.M", "^B$"),
    "cell-eq-number": _cell("A2", "value", "eq", 42),
    "cell-eq-text": _cell("A1", "value", "eq", "Total: 42"),
    "cell-ne": _cell("A2", "value", "ne", 41),
    "cell-lt": _cell("A3", "value", "lt", 4),
    "cell-le": _cell("A3", "value", "le", 3.5),
    "cell-gt": _cell("A3", "value", "gt", 3.5),
    "cell-ge": _cell("A2", "value", "ge", 42),
    "cell-gt-text-vs-number": _cell("A1", "value", "gt", 3),
    "cell-approx": _cell("A3", "value", "approx:0.1", 3.45),
    "cell-approx-miss": _cell("A3", "value", "approx:0.01", 3.45),
    "cell-approx-text": _cell("A1", "value", "approx:1", 3),
    "cell-range-ee": _cell("A3", "value", "range.ee", [3, 3.5]),
    "cell-range-te": _cell("A3", "value", "range.te", [3.5, 4]),
    "cell-range-et": _cell("A3", "value", "range.et", [3, 3.5]),
    "cell-range-tt": _cell("A2", "value", "range.tt", [41, 43]),
    "cell-range-font-size": _cell("B1", "font_size", "range.ee", [12, 16]),
    "cell-range-font-size-miss": _cell("E1", "font_size", "range.te", [12, 16]),
    "cell-str-set-eq": _cell("A6", "value", "str_set_eq", ["c", "a", "b"]),
    "cell-str-set-eq-miss": _cell("A6", "value", "str_set_eq", ["a", "b"]),
    "cell-str-set-eq-newlines": _cell("A8", "value", "str_set_eq", ["a", "b"]),
    "cell-str-list-eq": _cell("A6", "value", "str_list_eq", ["a", "b", "c"]),
    "cell-str-list-eq-order": _cell("A6", "value", "str_list_eq", ["b", "a", "c"]),
    "cell-str-list-eq-quoted": _cell("A7", "value", "str_list_eq", ["x", "y"]),
    "cell-str-set-eq-number": _cell("A2", "value", "str_set_eq", ["42"]),
    "cell-bool-is-none": _cell("A4", "value", "eq", None),
    "cell-bool-true": _cell("A4", "value", "eq", True),
    "cell-formula-uncached": _cell("A5", "value", "eq", None),
    "cell-empty-is-none": _cell("Z9", "value", "eq", None),
    "cell-date-text": _cell("A9", "value", "eq", "2024-01-01"),
    "cell-no-ref": _table(
        "cells.xlsx",
        None,
        {"type": "check_cell", "sheet_idx": 0, "coordinate": "Z9", "props": {"value": {"method": "eq"}}},
    ),
    "cell-missing-sheet": _table(
        "cells.xlsx",
        None,
        {
            "type": "check_cell",
            "sheet_idx": "RNNope",
            "coordinate": "A1",
            "props": {"value": {"method": "eq", "ref": 1}},
        },
    ),
    # check_cell: style properties
    "cell-font-name": _cell("B1", "font_name", "eq", "Arial"),
    "cell-font-bold": _cell("B1", "font_bold", "eq", True),
    "cell-font-italic": _cell("B1", "font_italic", "eq", True),
    "cell-font-underline": _cell("B1", "font_underline", "eq", "single"),
    "cell-font-size": _cell("B1", "font_size", "eq", 14),
    "cell-font-color": _cell("B1", "font_color", "eq", "FFFF0000"),
    "cell-font-color-unset": _cell("B2", "font_color", "eq", None),
    "cell-font-color-unset-re": _cell("B2", "font_color", "re", "FF"),
    "cell-font-family": _cell("B1", "font_family", "eq", None),
    "cell-font-of-empty": _cell("Z9", "font_bold", "eq", None),
    "cell-number-format": _cell("B3", "number_format", "eq", "0.00%"),
    "cell-number-format-text": _cell("B1", "number_format", "eq", None),
    "cell-fill-type": _cell("B4", "fill_type", "eq", "patternFill"),
    "cell-bgcolor": _cell("B4", "bgcolor", "eq", "FFFFFF00"),
    "cell-fgcolor": _cell("B4", "fgcolor", "eq", "FFFFFF00"),
    "cell-bgcolor-none": _cell("B1", "bgcolor", "eq", "00000000"),
    "cell-hyperlink": _cell("B5", "hyperlink", "re", "example"),
    "cell-hyperlink-none": _cell("B1", "hyperlink", "eq", ""),
    "cell-merge-first": _cell("C1", "merge", "eq", False),
    "cell-merge-inner": _cell("D1", "merge", "eq", True),
    "cell-two-props": _table(
        "cells.xlsx",
        None,
        {
            "type": "check_cell",
            "sheet_idx": 0,
            "coordinate": "B1",
            "props": {
                "font_bold": {"method": "eq", "ref": True},
                "value": {"method": "eq", "ref": "bold red"},
            },
        },
    ),
    "cell-two-props-one-fails": _table(
        "cells.xlsx",
        None,
        {
            "type": "check_cell",
            "sheet_idx": 0,
            "coordinate": "B1",
            "props": {
                "font_bold": {"method": "eq", "ref": False},
                "value": {"method": "eq", "ref": "bold red"},
            },
        },
    ),
    # style
    "style-same": _pair("style", "style_red2.xlsx", "style_red.xlsx", props=_STYLE_PROPS),
    "style-colour-differs": _pair("style", "style_blue.xlsx", "style_red.xlsx", props=_STYLE_PROPS),
    "style-bold-differs": _pair("style", "style_plain.xlsx", "style_red.xlsx", props=["font_bold"]),
    "style-bold-only": _pair("style", "style_blue.xlsx", "style_red.xlsx", props=["font_bold"]),
    "style-unset-colour": _pair("style", "style_nocolor.xlsx", "style_nocolor2.xlsx", props=["font_color"]),
    "style-unset-colour-not-asked": _pair(
        "style", "style_nocolor.xlsx", "style_nocolor2.xlsx", props=["font_bold"]
    ),
    "style-no-props": _pair("style", "style_blue.xlsx", "style_red.xlsx"),
    "style-fill": _pair("style", "style_plain.xlsx", "style_red.xlsx", props=["fill_type", "fgcolor"]),
    "style-missing-sheet": _table(
        "style_red.xlsx",
        "style_red.xlsx",
        {"type": "style", "sheet_idx0": "RNNope", "sheet_idx1": "EI0", "props": ["font_bold"]},
    ),
    # freeze / zoom / row_props / col_props
    "freeze-same": _pair("freeze", "layout_same.xlsx", "layout_gold.xlsx"),
    "freeze-other": _pair("freeze", "layout_freeze_a2.xlsx", "layout_gold.xlsx"),
    "freeze-none": _pair("freeze", "layout_nofreeze.xlsx", "layout_gold.xlsx"),
    "freeze-missing-first": _table(
        "layout_same.xlsx",
        "layout_gold.xlsx",
        {"type": "freeze", "sheet_idx0": "RNNope", "sheet_idx1": "EI0"},
    ),
    "freeze-missing-second": _table(
        "layout_same.xlsx", "layout_gold.xlsx", {"type": "freeze", "sheet_idx0": 0, "sheet_idx1": "ENNope"}
    ),
    "zoom-eq": _table("layout_gold.xlsx", None, {"type": "zoom", "sheet_idx": 0, "method": "eq", "ref": 150}),
    "zoom-ge": _table("layout_gold.xlsx", None, {"type": "zoom", "sheet_idx": 0, "method": "ge", "ref": 120}),
    "zoom-lt-miss": _table(
        "layout_gold.xlsx", None, {"type": "zoom", "sheet_idx": 0, "method": "lt", "ref": 100}
    ),
    "zoom-default": _table(
        "layout_zoom100.xlsx", None, {"type": "zoom", "sheet_idx": 0, "method": "eq", "ref": 100}
    ),
    "zoom-approx": _table(
        "layout_gold.xlsx", None, {"type": "zoom", "sheet_idx": 0, "method": "approx:5", "ref": 148}
    ),
    "zoom-missing-sheet": _table(
        "layout_gold.xlsx", None, {"type": "zoom", "sheet_idx": "RNNope", "method": "eq", "ref": 100}
    ),
    "rows-same": _pair("row_props", "layout_same.xlsx", "layout_gold.xlsx", props=["height", "hidden"]),
    "rows-height": _pair("row_props", "layout_height.xlsx", "layout_gold.xlsx", props=["height"]),
    "rows-height-not-asked": _pair("row_props", "layout_height.xlsx", "layout_gold.xlsx", props=["hidden"]),
    "rows-hidden": _pair("row_props", "layout_shown.xlsx", "layout_gold.xlsx", props=["hidden"]),
    "rows-no-props": _pair("row_props", "layout_height.xlsx", "layout_gold.xlsx"),
    "cols-same": _pair("col_props", "layout_same.xlsx", "layout_gold.xlsx", props=["width", "hidden"]),
    "cols-width": _pair("col_props", "layout_width.xlsx", "layout_gold.xlsx", props=["width"]),
    "cols-width-not-asked": _pair("col_props", "layout_width.xlsx", "layout_gold.xlsx", props=["hidden"]),
    # filter / data_validation
    "filter-same": _pair("filter", "filter_same.xlsx", "filter_gold.xlsx"),
    "filter-other-value": _pair("filter", "filter_other_value.xlsx", "filter_gold.xlsx"),
    "filter-no-sort": _pair("filter", "filter_nosort.xlsx", "filter_gold.xlsx"),
    "filter-none": _pair("filter", "filter_none.xlsx", "filter_gold.xlsx"),
    "filter-none-both": _pair("filter", "filter_none.xlsx", "filter_none.xlsx"),
    "dv-list": _table(
        "dv_list.xlsx",
        None,
        {
            "type": "data_validation",
            "sheet_idx": 0,
            "dv_props": [
                {"type": {"method": "eq", "ref": "list"}, "formula1": {"method": "re", "ref": "Low"}}
            ],
        },
    ),
    "dv-list-range": _table(
        "dv_list.xlsx",
        None,
        {
            "type": "data_validation",
            "sheet_idx": 0,
            "dv_props": [{"sqref": {"method": "spreadsheet_range", "ref": ["A2:A5", "A1:A20"]}}],
        },
    ),
    "dv-list-range-miss": _table(
        "dv_list.xlsx",
        None,
        {
            "type": "data_validation",
            "sheet_idx": 0,
            "dv_props": [{"sqref": {"method": "spreadsheet_range", "ref": ["A2:A5", "A2:A8"]}}],
        },
    ),
    "dv-wrong-type": _table(
        "dv_whole.xlsx",
        None,
        {"type": "data_validation", "sheet_idx": 0, "dv_props": [{"type": {"method": "eq", "ref": "list"}}]},
    ),
    "dv-none": _table(
        "gold.xlsx",
        None,
        {"type": "data_validation", "sheet_idx": 0, "dv_props": [{"type": {"method": "eq", "ref": "list"}}]},
    ),
    "dv-two-wanted-one-present": _table(
        "dv_list.xlsx",
        None,
        {
            "type": "data_validation",
            "sheet_idx": 0,
            "dv_props": [
                {"type": {"method": "eq", "ref": "list"}},
                {"type": {"method": "eq", "ref": "whole"}},
            ],
        },
    ),
    # sheet_print
    "print-same": _pair("sheet_print", "print_same.xlsx", "print_gold.xlsx"),
    "print-spaces-trailing": _pair("sheet_print", "print_spaces.xlsx", "print_gold.xlsx"),
    "print-upper": _pair("sheet_print", "print_upper.xlsx", "print_gold.xlsx"),
    "print-upper-ignore-case": _pair("sheet_print", "print_upper.xlsx", "print_gold.xlsx", ignore_case=True),
    "print-other": _pair("sheet_print", "print_other.xlsx", "print_gold.xlsx"),
    "print-latin1": _pair("sheet_print", "print_latin1.xlsx", "print_utf8.xlsx"),
    "print-no-export": _pair("sheet_print", "print_noexport.xlsx", "print_gold.xlsx"),
    "print-no-expected-export": _pair("sheet_print", "print_same.xlsx", "print_noexport.xlsx"),
    # sheet_fuzzy
    "fuzzy-exact": _fuzzy_rule("exact_match"),
    "fuzzy-exact-normalized": _table(
        "fuzzy_agent.xlsx",
        "fuzzy_gold.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A1"], "type": "exact_match", **_NORMALIZE}],
        },
    ),
    "fuzzy-ignore-chars": _table(
        "fuzzy_agent.xlsx",
        "fuzzy_gold.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A2"], "type": "exact_match", "ignore_chars": "()"}],
        },
    ),
    "fuzzy-trim-leadings": _table(
        "fuzzy_agent.xlsx",
        "fuzzy_gold.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A3"], "type": "exact_match", "trim_leadings": "+ "}],
        },
    ),
    "fuzzy-trim-trailings": _table(
        "fuzzy_agent.xlsx",
        "fuzzy_gold.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A4"], "type": "exact_match", "trim_trailings": "s"}],
        },
    ),
    "fuzzy-match": _fuzzy_rule("fuzzy_match", **_NORMALIZE),
    "fuzzy-match-threshold-high": _fuzzy_rule("fuzzy_match", threshold=99),
    "fuzzy-match-threshold-low": _fuzzy_rule("fuzzy_match", threshold=40),
    "fuzzy-includes": _table(
        "fuzzy_gold.xlsx",
        "fuzzy_agent.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A2:A3"], "type": "includes"}],
        },
    ),
    "fuzzy-included-by": _table(
        "fuzzy_agent.xlsx",
        "fuzzy_gold.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A2:A3"], "type": "included_by"}],
        },
    ),
    "fuzzy-far": _table(
        "fuzzy_far.xlsx",
        "fuzzy_gold.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A1:A4"], "type": "fuzzy_match"}],
        },
    ),
    "fuzzy-numbers-and-empty": _table(
        "fuzzy_numbers.xlsx",
        "fuzzy_numbers.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A1:A4"], "type": "exact_match"}],
        },
    ),
    "fuzzy-multi-range": _table(
        "fuzzy_agent.xlsx",
        "fuzzy_gold.xlsx",
        {
            "type": "sheet_fuzzy",
            "sheet_idx0": "RI0",
            "sheet_idx1": "EI0",
            "rules": [{"range": ["A1 A3"], "type": "fuzzy_match", "threshold": 50}],
        },
    ),
    # chart
    "chart-same": _chart("chart_same.xlsx", "chart_gold.xlsx", "type", "legend", "title"),
    "chart-line-type": _chart("chart_line.xlsx", "chart_gold.xlsx", "type"),
    "chart-line-legend-title": _chart("chart_line.xlsx", "chart_gold.xlsx", "legend", "title"),
    "chart-horizontal-direction": _chart("chart_horizontal.xlsx", "chart_gold.xlsx", "type", "direction"),
    "chart-horizontal-type": _chart("chart_horizontal.xlsx", "chart_gold.xlsx", "type"),
    "chart-pie-direction": _chart("chart_pie.xlsx", "chart_pie.xlsx", "direction"),
    "chart-pie-axis-titles": _chart("chart_pie.xlsx", "chart_pie.xlsx", "xtitle", "ytitle", "ztitle"),
    "chart-pie-vs-bar": _chart("chart_pie.xlsx", "chart_gold.xlsx", "xtitle", "ytitle", "type"),
    "chart-axis-titles": _chart("chart_same.xlsx", "chart_gold.xlsx", "xtitle", "ytitle", "type"),
    "chart-retitled": _chart("chart_retitled.xlsx", "chart_gold.xlsx", "title"),
    "chart-retitled-type-only": _chart("chart_retitled.xlsx", "chart_gold.xlsx", "type"),
    "chart-retitled-no-props": _chart("chart_retitled.xlsx", "chart_gold.xlsx"),
    "chart-untitled": _chart("chart_untitled.xlsx", "chart_gold.xlsx", "title"),
    "chart-legend-bottom": _chart("chart_legend_bottom.xlsx", "chart_gold.xlsx", "legend"),
    "chart-no-legend": _chart("chart_no_legend.xlsx", "chart_gold.xlsx", "legend"),
    "chart-other-series": _chart("chart_cost.xlsx", "chart_gold.xlsx", "type"),
    "chart-none": _chart("chart_none.xlsx", "chart_gold.xlsx", "type"),
    "chart-none-both": _chart("chart_none.xlsx", "chart_none.xlsx", "type"),
    "chart-anchor-same": _chart("chart_same.xlsx", "chart_gold.xlsx", "anchor"),
    "chart-anchor-lower": _chart("chart_lower.xlsx", "chart_gold.xlsx", "anchor"),
    "chart-anchor-right": _chart("chart_right.xlsx", "chart_gold.xlsx", "anchor"),
    "chart-anchor-taller": _chart("chart_taller.xlsx", "chart_gold.xlsx", "anchor"),
    "chart-size-taller": _chart("chart_taller.xlsx", "chart_gold.xlsx", "width", "height"),
    "chart-3d": _chart("chart_3d.xlsx", "chart_3d.xlsx", "ztitle", "type", "direction"),
    "chart-3d-vs-bar": _chart("chart_3d.xlsx", "chart_gold.xlsx", "type"),
    "chart-two-last-line": _chart("chart_bar_then_line.xlsx", "chart_gold.xlsx", "type"),
    "chart-two-last-bar": _chart("chart_line_then_bar.xlsx", "chart_gold.xlsx", "type"),
    "chart-missing-sheets": _chart(
        "chart_same.xlsx", "chart_gold.xlsx", "type", sheets=("RNCharts", "ENCharts")
    ),
    "chart-missing-result-sheet": _chart(
        "chart_same.xlsx", "chart_gold.xlsx", "type", sheets=("RNCharts", "EI0")
    ),
    "chart-no-expected-book": _chart("chart_same.xlsx", None, "type"),
    "chart-with-sheet-data": _table(
        "chart_same.xlsx",
        "chart_gold.xlsx",
        {"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"},
        {"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["type", "legend", "title"]},
    ),
    "chart-lo-vs-openpyxl": _chart("lo/chart_gold.xlsx", "chart_gold.xlsx", "type", "legend", "title"),
    "chart-lo-props": _chart("lo/chart_gold.xlsx", "lo/chart_gold.xlsx", *_ALL_CHART_PROPS),
    "chart-lo-anchor-lower": _chart("lo/chart_lower.xlsx", "lo/chart_gold.xlsx", "anchor"),
    "chart-lo-lower-type": _chart("lo/chart_lower.xlsx", "lo/chart_gold.xlsx", "type", "legend", "title"),
    "chart-lo-pie": _chart("lo/chart_pie.xlsx", "lo/chart_pie.xlsx", "type", "legend", "title", "xtitle"),
    "chart-lo-horizontal": _chart("lo/chart_horizontal.xlsx", "lo/chart_gold.xlsx", "type", "direction"),
    # pivot_table
    "pivot-same": _pivot("pivot_same.xlsx"),
    "pivot-count": _pivot("pivot_count.xlsx"),
    "pivot-by-region": _pivot("pivot_by_region.xlsx"),
    "pivot-columns": _pivot("pivot_columns.xlsx"),
    "pivot-hidden-item": _pivot("pivot_hidden_ink.xlsx"),
    "pivot-hidden-item-same": _pivot("pivot_hidden_ink.xlsx", "pivot_hidden_ink.xlsx"),
    "pivot-hidden-other-item": _pivot("pivot_hidden_pad.xlsx", "pivot_hidden_ink.xlsx"),
    "pivot-hidden-item-unchecked": _pivot("pivot_hidden_ink.xlsx", props=("row_fields", "data_fields")),
    "pivot-page-field": _pivot("pivot_page.xlsx"),
    "pivot-two-tables": _pivot("pivot_two.xlsx"),
    "pivot-two-tables-same": _pivot("pivot_two.xlsx", "pivot_two.xlsx"),
    "pivot-none": _pivot("pivot_none.xlsx"),
    "pivot-none-both": _pivot("pivot_none.xlsx", "pivot_none.xlsx"),
    "pivot-narrow-source": _pivot("pivot_narrow_source.xlsx"),
    "pivot-short-source": _pivot("pivot_short_source.xlsx"),
    "pivot-renamed": _pivot("pivot_renamed.xlsx", props=("name",)),
    "pivot-renamed-fields": _pivot("pivot_renamed.xlsx"),
    "pivot-moved": _pivot("pivot_moved.xlsx", props=("location",)),
    "pivot-moved-fields": _pivot("pivot_moved.xlsx"),
    "pivot-data-field-names": _pivot("pivot_count.xlsx", props=("data_fields", "data_fields_name")),
    "pivot-data-field-names-same": _pivot("pivot_same.xlsx", props=("data_fields", "data_fields_name")),
    "pivot-name-flag-alone": _pivot("pivot_count.xlsx", props=("data_fields_name",)),
    "pivot-display-flags": _pivot(
        "pivot_same.xlsx", props=("show_total", "show_empty_row", "show_empty_col", "show_headers")
    ),
    "pivot-selection-ordered": _pivot("pivot_hidden_ink.xlsx", props=("selection", "ordered")),
    "pivot-selection-ordered-same": _pivot("pivot_same.xlsx", props=("selection", "ordered")),
    "pivot-page-selection": _pivot("pivot_page.xlsx", "pivot_page.xlsx", props=("selection", "filter")),
    "pivot-by-index": _pivot("pivot_same.xlsx", sheets=(1, "EI1")),
    "pivot-source-sheet": _pivot("pivot_count.xlsx", sheets=("RNSheet1", "ENSheet1")),
    "pivot-no-expected-book": _pivot("pivot_same.xlsx", None),
    "pivot-and-chart": _table(
        "pivot_same.xlsx",
        "pivot_gold.xlsx",
        {"type": "chart", "sheet_idx0": "RNSheet2", "sheet_idx1": "ENSheet2", "chart_props": ["type"]},
        {
            "type": "pivot_table",
            "sheet_idx0": "RNSheet2",
            "sheet_idx1": "ENSheet2",
            "pivot_props": list(_PIVOT_PROPS),
        },
    ),
    # compare_docx_files
    "docx-same-blanks": _other("compare_docx_files", "doc_split.docx", "doc_gold.docx"),
    "docx-changed": _other("compare_docx_files", "doc_changed.docx", "doc_gold.docx"),
    "docx-no-ignore-blanks": _other(
        "compare_docx_files", "doc_split.docx", "doc_gold.docx", ignore_blanks=False
    ),
    "docx-same-no-ignore-blanks": _other(
        "compare_docx_files", "doc_gold.docx", "doc_gold.docx", ignore_blanks=False
    ),
    "docx-case": _other("compare_docx_files", "doc_shouted.docx", "doc_gold.docx"),
    "docx-ignore-case": _other("compare_docx_files", "doc_shouted.docx", "doc_gold.docx", ignore_case=True),
    "docx-ignore-case-paragraphs": _other(
        "compare_docx_files", "doc_shouted.docx", "doc_gold.docx", ignore_case=True, ignore_blanks=False
    ),
    "docx-order": _other("compare_docx_files", "doc_reordered.docx", "doc_gold.docx"),
    "docx-ignore-order": _other(
        "compare_docx_files", "doc_reordered.docx", "doc_gold.docx", ignore_order=True
    ),
    "docx-content-only": _other("compare_docx_files", "doc_changed.docx", "doc_gold.docx", content_only=True),
    "docx-content-only-case": _other(
        "compare_docx_files", "doc_shouted.docx", "doc_gold.docx", content_only=True, ignore_case=True
    ),
    "docx-fuzzy": _other("compare_docx_files", "doc_changed.docx", "doc_gold.docx", fuzzy_match=True),
    "docx-fuzzy-paragraphs": _other(
        "compare_docx_files", "doc_changed.docx", "doc_gold.docx", fuzzy_match=True, ignore_blanks=False
    ),
    "docx-fuzzy-paragraphs-empty": _other(
        "compare_docx_files", "doc_empty.docx", "doc_empty.docx", fuzzy_match=True, ignore_blanks=False
    ),
    "docx-delete-empty-lines": _other(
        "compare_docx_files",
        "doc_blank_lines.docx",
        "doc_gold.docx",
        ignore_blanks=False,
        delete_empty_lines=True,
    ),
    "docx-empty-lines-kept": _other(
        "compare_docx_files", "doc_blank_lines.docx", "doc_gold.docx", ignore_blanks=False
    ),
    "docx-none": _other("compare_docx_files", None, "doc_gold.docx"),
    "docx-missing": _other("compare_docx_files", "absent.docx", "doc_gold.docx"),
    "docx-vs-odt": _other("compare_docx_files", "doc_gold.docx", "odt_gold.odt"),
    "odt-same": _other("compare_docx_files", "odt_same.odt", "odt_gold.odt"),
    "odt-spans": _other("compare_docx_files", "odt_spans.odt", "odt_gold.odt"),
    "odt-spans-paragraphs": _other(
        "compare_docx_files", "odt_spans.odt", "odt_gold.odt", ignore_blanks=False
    ),
    "odt-text-s": _other("compare_docx_files", "odt_spaces.odt", "odt_gold.odt"),
    "odt-header": _other("compare_docx_files", "odt_header.odt", "odt_gold.odt"),
    "odt-changed": _other("compare_docx_files", "odt_changed.odt", "odt_gold.odt"),
    "odt-changed-fuzzy": _other("compare_docx_files", "odt_changed.odt", "odt_gold.odt", fuzzy_match=True),
    "odt-heading": _other("compare_docx_files", "odt_heading.odt", "odt_gold.odt"),
    "odt-corrupt": _other("compare_docx_files", "csv_gold.odt", "odt_gold.odt"),
    # compare_pptx_files
    "pptx-same": _other("compare_pptx_files", "deck_same.pptx", "deck_gold.pptx"),
    "pptx-title": _other("compare_pptx_files", "deck_title.pptx", "deck_gold.pptx"),
    "pptx-title-no-text": _other(
        "compare_pptx_files", "deck_title.pptx", "deck_gold.pptx", examine_text=False
    ),
    "pptx-title-no-text-no-bullets": _other(
        "compare_pptx_files", "deck_title.pptx", "deck_gold.pptx", examine_text=False, examine_bullets=False
    ),
    "pptx-size": _other("compare_pptx_files", "deck_size.pptx", "deck_gold.pptx"),
    "pptx-size-unchecked": _other(
        "compare_pptx_files", "deck_size.pptx", "deck_gold.pptx", examine_font_size=False
    ),
    "pptx-bold": _other("compare_pptx_files", "deck_bold.pptx", "deck_gold.pptx"),
    "pptx-bold-unchecked": _other(
        "compare_pptx_files", "deck_bold.pptx", "deck_gold.pptx", examine_font_bold=False
    ),
    "pptx-moved": _other("compare_pptx_files", "deck_moved.pptx", "deck_gold.pptx"),
    "pptx-moved-unchecked": _other(
        "compare_pptx_files", "deck_moved.pptx", "deck_gold.pptx", examine_shape=False
    ),
    "pptx-notes": _other("compare_pptx_files", "deck_notes.pptx", "deck_gold.pptx"),
    "pptx-count": _other("compare_pptx_files", "deck_two.pptx", "deck_gold.pptx"),
    "pptx-count-unchecked": _other(
        "compare_pptx_files", "deck_two.pptx", "deck_gold.pptx", examine_number_of_slides=False
    ),
    "pptx-none": _other("compare_pptx_files", None, "deck_gold.pptx"),
    # compare_pptx_files: geometry tolerance and the position checks
    "pptx-pos-same": _positions("pos_same.pptx", examine_shape=True),
    "pptx-pos-nudged": _positions("pos_textbox_nudged.pptx", examine_shape=True),
    "pptx-pos-shifted": _positions("pos_textbox_shifted.pptx", examine_shape=True),
    "pptx-pos-shifted-tolerance": _positions(
        "pos_textbox_shifted.pptx", examine_shape=True, approximately_tolerance=0.1
    ),
    "pptx-pos-shifted-unchecked": _positions("pos_textbox_shifted.pptx", examine_shape=False),
    "pptx-title-bottom": _positions("pos_title_bottom.pptx", examine_title_bottom_position=True),
    "pptx-title-bottom-shape-on": _positions(
        "pos_title_bottom.pptx", examine_shape=True, examine_title_bottom_position=True
    ),
    "pptx-title-bottom-unmoved": _positions("pos_same.pptx", examine_title_bottom_position=True),
    "pptx-title-bottom-not-far": _positions("pos_title_lower.pptx", examine_title_bottom_position=True),
    "pptx-title-bottom-textbox-moved": _positions(
        "pos_title_bottom_textbox_moved.pptx", examine_title_bottom_position=True
    ),
    "pptx-title-bottom-picture-moved": _positions(
        "pos_title_bottom_picture_moved.pptx", examine_title_bottom_position=True
    ),
    "pptx-table-bottom": _positions("pos_table_bottom.pptx", examine_table_bottom_position=True),
    "pptx-table-bottom-unmoved": _positions("pos_same.pptx", examine_table_bottom_position=True),
    "pptx-table-bottom-not-far": _positions("pos_table_lower.pptx", examine_table_bottom_position=True),
    "pptx-table-bottom-picture-moved": _positions(
        "pos_table_bottom_picture_moved.pptx", examine_table_bottom_position=True
    ),
    "pptx-table-bottom-title-moved": _positions("pos_title_bottom.pptx", examine_table_bottom_position=True),
    "pptx-right": _positions("pos_picture_right.pptx", examine_right_position=True),
    "pptx-right-unmoved": _positions("pos_same.pptx", examine_right_position=True),
    "pptx-right-not-far": _positions("pos_picture_right_little.pptx", examine_right_position=True),
    "pptx-right-title-moved": _positions("pos_title_bottom.pptx", examine_right_position=True),
    "pptx-right-shape-on": _positions(
        "pos_picture_right.pptx", examine_shape=True, examine_right_position=True
    ),
    "pptx-top": _positions("pos_picture_top.pptx", examine_top_position=True),
    "pptx-top-unmoved": _positions("pos_same.pptx", examine_top_position=True),
    "pptx-top-not-far": _positions("pos_picture_top_little.pptx", examine_top_position=True),
    "pptx-top-moved-right": _positions("pos_picture_right.pptx", examine_top_position=True),
    "pptx-shift-size-textbox": _positions("pos_textbox_resized.pptx", examine_shape_for_shift_size=True),
    "pptx-shift-size-title": _positions("pos_title_resized.pptx", examine_shape_for_shift_size=True),
    "pptx-shift-size-same": _positions("pos_same.pptx", examine_shape_for_shift_size=True),
    "pptx-image-size-same": _positions(
        "pos_picture_small.pptx", "pos_picture_small.pptx", examine_image_size=True
    ),
    "pptx-image-size-moved": _positions(
        "pos_picture_small_moved.pptx", "pos_picture_small.pptx", examine_image_size=True
    ),
    "pptx-image-size-differs": _positions("pos_picture_small.pptx", examine_image_size=True),
    "pptx-image-size-textbox-moved": _positions("pos_textbox_shifted.pptx", examine_image_size=True),
    "pptx-modify-height": _positions(
        "pos_picture_taller_moved.pptx", "pos_picture_taller.pptx", examine_modify_height=True
    ),
    "pptx-modify-height-differs": _positions("pos_picture_taller.pptx", examine_modify_height=True),
    "pptx-modify-height-freeform": _positions(
        "pos_freeform_taller_moved.pptx", "pos_freeform_taller.pptx", examine_modify_height=True
    ),
    "pptx-modify-height-freeform-differs": _positions("pos_freeform_taller.pptx", examine_modify_height=True),
    "pptx-modify-height-textbox-moved": _positions("pos_textbox_shifted.pptx", examine_modify_height=True),
    # compare_csv
    "csv-same": _other("compare_csv", "csv_same.csv", "csv_gold.csv"),
    "csv-spaces": _other("compare_csv", "csv_spaces.csv", "csv_gold.csv"),
    "csv-spaces-not-strict": _other("compare_csv", "csv_spaces.csv", "csv_gold.csv", strict=False),
    "csv-upper": _other("compare_csv", "csv_upper.csv", "csv_gold.csv"),
    "csv-upper-ignore-case": _other("compare_csv", "csv_upper.csv", "csv_gold.csv", ignore_case=True),
    "csv-bom": _other("compare_csv", "csv_bom.csv", "csv_gold.csv"),
    "csv-blank-line": _other("compare_csv", "csv_blank.csv", "csv_gold.csv", strict=False),
    "csv-crlf": _other("compare_csv", "csv_crlf.csv", "csv_gold.csv"),
    "csv-latin1-same": _other("compare_csv", "csv_latin1.csv", "csv_latin1_same.csv"),
    "csv-latin1-vs-utf8": _other("compare_csv", "csv_latin1.csv", "csv_utf8_cafe.csv"),
    "csv-list-second": _other("compare_csv", "csv_upper.csv", ["csv_gold.csv", "csv_upper.csv"]),
    "csv-list-missing-first": _other("compare_csv", "csv_same.csv", ["absent.csv", "csv_gold.csv"]),
    "csv-missing-result": _other("compare_csv", "absent.csv", "csv_gold.csv"),
    "csv-none": _other("compare_csv", None, "csv_gold.csv"),
    # text metrics
    "diff-same": _other("diff_text_file", "txt_gold.txt", "txt_gold.txt"),
    "diff-changed": _other("diff_text_file", "txt_changed.txt", "txt_gold.txt"),
    "diff-empty": _other("diff_text_file", "txt_empty.txt", "txt_empty2.txt"),
    "diff-none": _other("diff_text_file", None, "txt_gold.txt"),
    "diff-binary": _other("diff_text_file", "txt_binary.txt", "txt_gold.txt"),
    "exact-str": {"func": "exact_match", "result": "42", "options": {"rules": {"expected": "42"}}},
    "exact-type": {"func": "exact_match", "result": "42", "options": {"rules": {"expected": 42}}},
    "exact-list": {"func": "exact_match", "result": ["a"], "options": {"rules": {"expected": ["a"]}}},
    "include-ok": {
        "func": "check_include_exclude",
        "result": "alpha beta",
        "options": {"rules": {"include": ["alpha"], "exclude": ["gamma"]}},
    },
    "include-excluded": {
        "func": "check_include_exclude",
        "result": "alpha gamma",
        "options": {"rules": {"include": ["alpha"], "exclude": ["gamma"]}},
    },
    "include-missing": {
        "func": "check_include_exclude",
        "result": "beta",
        "options": {"rules": {"include": ["alpha"]}},
    },
    "include-none": {"func": "check_include_exclude", "result": None, "options": {"rules": {"include": []}}},
}
"""Every case by id. `options` of exact_match / check_include_exclude hold their `rules` argument."""

_VALUE_METRICS = {"exact_match", "check_include_exclude"}


def build(folder: Path) -> dict[str, Case]:
    """Write every corpus file into `folder`; return the cases with file names made absolute paths."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, builder in _BUILDERS.items():
        builder(folder / name)
    _libreoffice_xlsx(folder, [name for name in _BUILDERS if name.endswith(".fods")], folder)
    _libreoffice_xlsx(folder, _LIBREOFFICE_CHARTS, folder / "lo")
    (folder / "csv_gold.odt").write_bytes((folder / "csv_gold.csv").read_bytes())
    return {case_id: _resolve(case, folder) for case_id, case in CASES.items()}


def _libreoffice_xlsx(folder: Path, names: list[str], outdir: Path) -> None:
    """Have LibreOffice save the books `names` of `folder` as xlsx into `outdir`."""
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation={(folder / 'lo-profile').as_uri()}",
            "--headless",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(outdir),
            *(str(folder / name) for name in names),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )


def _resolve(case: Case, folder: Path) -> Case:
    return case if case["func"] in _VALUE_METRICS else with_paths(case, folder)


def call(metrics: dict[str, Callable[..., float]], case: Case) -> float:
    """Run one resolved case through `metrics` (a name -> function table)."""
    function = metrics[case["func"]]
    if case["func"] in _VALUE_METRICS:
        return function(case["result"], case["options"]["rules"])
    if case["func"] == "diff_text_file":
        return function(case["result"], case["expected"])
    return call_case(metrics, case)
