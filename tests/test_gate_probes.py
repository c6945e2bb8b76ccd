"""The gate's value-level probes and viewer on real office files, run through the sandbox."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest
from docx.shared import Pt
from openpyxl.chart import BarChart, Reference

from stateact.gate.review.tools import (
    FileFacts,
    InspectDocument,
    InspectPresentation,
    InspectSpreadsheet,
    QuerySqlite,
    ReadData,
    Screenshot,
)
from stateact.kernel.messages import ToolUseBlock

pytest_plugins = ["tests.support.gate_fixtures"]


def invoke(tool, **tool_input):
    result = tool.invoke(ToolUseBlock(id="t1", name=tool.name, input=tool_input))
    return result, (json.loads(result.text) if result.text.startswith("{") else None)


def data_sheet(*rows: list):
    """A workbook whose active sheet `Data` holds `rows`."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for row in rows:
        ws.append(row)
    return wb, ws


@pytest.mark.slow
def test_spreadsheet_probe_reports_values_formulas_formats_and_charts(sandbox):
    path = Path(sandbox.home) / "book.xlsx"
    wb, ws = data_sheet(["Month", "Share"], ["Jan", 0.25])
    ws["B2"].number_format = "0.00%"
    ws["B3"] = "=B2*2"
    chart = BarChart()
    chart.title = "Shares"
    chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=3))
    ws.add_chart(chart, "D2")
    wb.create_sheet("Empty")
    wb.save(path)

    result, data = invoke(InspectSpreadsheet(sandbox), path="~/book.xlsx")

    assert not result.is_error
    assert [s["name"] for s in data["sheets"]] == ["Data", "Empty"]
    assert data["sheets"][0]["charts"] == [{"type": "BarChart", "title": "Shares"}]
    cells = {c["cell"]: c for c in data["cells"]}
    assert cells["B2"] == {"cell": "B2", "value": 0.25, "number_format": "0.00%"}
    assert cells["B3"]["formula"] == "=B2*2" and cells["B3"]["value"] is None
    assert data["formulas_without_cached_value"] == ["B3"]

    _, missing = invoke(InspectSpreadsheet(sandbox), path="~/book.xlsx", sheet="Nope")
    assert "no sheet named 'Nope'" in missing["error"]


def test_document_probe_reads_text_styles_fonts_and_tables(sandbox):
    path = Path(sandbox.home) / "letter.docx"
    document = docx.Document()
    document.add_heading("Quarterly report", level=1)
    paragraph = document.add_paragraph("Revenue rose ")
    run = paragraph.add_run("12%")
    run.bold = True
    run.font.name = "Arial"
    run.font.size = Pt(14)
    table = document.add_table(rows=2, cols=2)
    table.cell(1, 1).text = "42"
    document.save(path)

    _, data = invoke(InspectDocument(sandbox), path=str(path))

    assert data["paragraphs"][0]["style"] == "Heading 1"
    assert data["paragraphs"][0]["style_font"] == {"size": 14.0, "bold": True, "color": "365F91"}  # inherited
    assert data["paragraphs"][1]["text"] == "Revenue rose 12%"
    assert {"text": "12%", "bold": True, "name": "Arial", "size": 14.0}.items() <= data["paragraphs"][1][
        "runs"
    ][1].items()
    assert data["tables"] == [[["", ""], ["", "42"]]]
    assert [entry["n"] for entry in data["paragraphs"]] == [1, 2]  # as the change list's ¶N counts

    _, later = invoke(InspectDocument(sandbox), path=str(path), start=2)
    assert [(entry["n"], entry["text"]) for entry in later["paragraphs"]] == [(2, "Revenue rose 12%")]


@pytest.mark.apps
def test_document_probe_reads_odt_written_by_libreoffice(sandbox):
    source = Path(sandbox.home) / "memo.docx"
    document = docx.Document()
    document.add_paragraph("Budget approved")
    document.save(source)
    sandbox.run(f"soffice --headless --norestore --convert-to odt --outdir {sandbox.home} {source}", 120)

    _, data = invoke(InspectDocument(sandbox), path="~/memo.odt")

    assert [p["text"] for p in data["paragraphs"]] == ["Budget approved"]


@pytest.mark.apps
def test_odt_spaces_tabs_and_line_breaks_read_the_same_through_the_probe_and_the_toolkit(sandbox):
    text = "Net  total:\tapproved\nby the   board"
    document = docx.Document()
    document.add_heading("Budget", level=1)
    lines = text.split("\n")
    paragraph = document.add_paragraph(lines[0])
    paragraph.runs[0].add_break()
    paragraph.add_run(lines[1])
    document.save(Path(sandbox.home) / "minutes.docx")
    sandbox.run(f"soffice --headless --norestore --convert-to odt --outdir {sandbox.home} minutes.docx", 120)
    content = zipfile.ZipFile(Path(sandbox.home) / "minutes.odt").read("content.xml").decode()
    assert all(tag in content for tag in ("<text:s", "<text:tab", "<text:line-break"))

    _, data = invoke(InspectDocument(sandbox), path="~/minutes.odt")
    dump = sandbox.run("docx-dump minutes.odt").stdout

    assert [(p["text"], p["style"], p["heading"]) for p in data["paragraphs"]] == [
        ("Budget", "Heading 1", True),
        (text, "Standard", False),
    ]
    assert f"[1] Standard: {text!r}" in dump


def test_presentation_probe_reads_slides_shapes_and_text(sandbox):
    path = Path(sandbox.home) / "deck.pptx"
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Results"
    slide.placeholders[1].text = "Up 12%"
    deck.save(path)

    _, data = invoke(InspectPresentation(sandbox), path=str(path))

    assert data["slide_count"] == 1
    texts = [s.get("text") for s in data["slides"][0]["shapes"]]
    assert texts == ["Results", "Up 12%"] and data["slides"][0]["layout"] == "Title and Content"


def test_data_probe_reads_csv_rows_and_reports_bom_and_blank_rows(sandbox):
    path = Path(sandbox.home) / "out.csv"
    path.write_bytes("\ufeffname,score\nAda,9\n\n".encode())

    _, data = invoke(ReadData(sandbox), path=str(path))

    assert data["utf8_bom"] is True and data["blank_rows"] == 1
    assert data["rows"][1] == {"row": 2, "cells": ["Ada", "9"]}


def test_sqlite_probe_is_read_only(sandbox):
    path = Path(sandbox.home) / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.execute("create table items(name text, price real)")
        connection.execute("insert into items values ('pen', 1.5)")
    connection.close()
    before = path.read_bytes()

    _, rows = invoke(QuerySqlite(sandbox), path=str(path), query="select name, price from items")
    refused, _ = invoke(QuerySqlite(sandbox), path=str(path), query="delete from items")

    assert rows["rows"] == [["pen", 1.5]]
    assert refused.is_error and "readonly" in refused.text
    assert path.read_bytes() == before


def test_file_facts_catch_a_format_that_does_not_match_the_extension(sandbox):
    path = Path(sandbox.home) / "report.xlsx"
    path.write_text("Item,Total\nPens,12\n")
    good = Path(sandbox.home) / "real.xlsx"
    openpyxl.Workbook().save(good)

    _, data = invoke(FileFacts(sandbox), paths=[str(path), str(good), "~/absent.docx"])

    bad, fine, absent = data["files"]
    assert bad["format"] == "text" and bad["format_matches_extension"] is False and bad["parse_error"]
    assert fine["format_matches_extension"] is True and fine["parse_error"] is None
    assert absent["exists"] is False


def test_probe_on_a_missing_file_is_an_error_result_not_a_crash(sandbox):
    result, _ = invoke(InspectSpreadsheet(sandbox), path="~/missing.xlsx")
    assert result.is_error and "FileNotFoundError" in result.text


def test_screenshot_without_a_display_is_a_clear_error(sandbox):
    result, _ = invoke(Screenshot(sandbox))
    assert result.is_error and "no display" in result.text


@pytest.mark.apps
def test_spreadsheet_probe_reads_ods_saved_by_libreoffice(sandbox):
    source = Path(sandbox.home) / "book.xlsx"
    wb, ws = data_sheet(["Item", "Qty"], ["pens", 3], ["ink", 4.5])
    ws["B4"] = "=SUM(B2:B3)"
    ws["D1000"] = "far"
    wb.save(source)
    sandbox.run(f"soffice --headless --norestore --convert-to ods --outdir {sandbox.home} {source}", 120)

    _, everything = invoke(InspectSpreadsheet(sandbox), path="~/book.ods")
    _, block = invoke(InspectSpreadsheet(sandbox), path="~/book.ods", cells="B3:B4")

    assert everything["sheets"] == [{"name": "Data", "non_empty_cells": 8}]
    assert {"cell": "D1000", "value": "far"} in everything["cells"]
    assert block["cells"] == [
        {"cell": "B3", "value": 4.5},
        {"cell": "B4", "value": 7.5, "formula": "of:=SUM([.B2:.B3])"},
    ]


def test_changed_files_include_app_data_in_hidden_folders_but_not_caches(sandbox):
    import time

    from stateact.gate.inspect.probes import run_probe
    from stateact.gate.settings import GATE_CHANGED_FILES_SKIP

    home = Path(sandbox.home)
    since = time.time()  # after the sandbox's start, which writes its image settings (dconf)
    for relative in (".local/share/booker/bookings.json", ".cache/thumbs/a.png", "Documents/out.csv"):
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text("{}")
    found = run_probe(sandbox, "home_state", since=since, skip=list(GATE_CHANGED_FILES_SKIP))
    paths = {Path(f["path"]).relative_to(home).as_posix() for f in found["recent"]}
    assert paths == {".local/share/booker/bookings.json", "Documents/out.csv"}
