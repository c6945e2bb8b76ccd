"""The gate's state diff: a baseline at the task start, and what changed since, on real files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest

from gate.changes import describe_changes, load_baseline, take_baseline
from gate.changes.baseline import BASELINE_DIR
from stateact.runlog import RunLog, read_events

pytest_plugins = ["tests.gate_fixtures"]


@pytest.fixture
def log(tmp_path):
    run_log = RunLog(tmp_path / "run")
    yield run_log
    run_log.close()


def changes_after(sandbox, log, instruction: str, change) -> str:
    """Take the baseline, apply `change`, and return the diff the gate would read."""
    assert take_baseline(sandbox, log.run_dir, instruction, log, task_started_at=None) is not None
    change()
    return describe_changes(sandbox, log.run_dir, log, "gate#1")


def write_book(path: Path, sheets: dict[str, list[list]]) -> None:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        ws = book.create_sheet(name)
        for row in rows:
            ws.append(row)
    book.save(path)


def test_a_changed_cell_shows_old_and_new_value_and_formula(sandbox, log):
    path = Path(sandbox.home) / "sales.xlsx"
    write_book(path, {"Sales": [["Item", "Total"], ["Pens", 12], ["Ink", 24], ["Sum", "=SUM(B2:B3)"]]})

    def change():
        book = openpyxl.load_workbook(path)
        book["Sales"]["B3"] = 25
        book["Sales"]["B4"] = "=SUM(B2:B2)"
        book["Sales"]["B2"].number_format = "0.00%"
        book.save(path)

    text = changes_after(sandbox, log, f"Fix the totals in {path}.", change)
    assert f"~ changed: {path}" in text
    assert "Sales!B3: 24 → 25" in text
    assert "Sales!B4: =SUM(B2:B3) = (no cached value) → =SUM(B2:B2) = (no cached value)" in text
    assert "Sales!B2 (12): number format 'General' → '0.00%'" in text
    assert "Pens" not in text, "unchanged cells are not listed"


def test_a_sheet_rename_and_an_added_sheet(sandbox, log):
    path = Path(sandbox.home) / "book.xlsx"
    write_book(path, {"Data": [["a", 1], ["b", 2]], "Notes": [["keep"]]})

    def change():
        book = openpyxl.load_workbook(path)
        book["Data"].title = "Stock"
        book.create_sheet("Summary")["A1"] = "Total value"
        book.save(path)

    text = changes_after(sandbox, log, "Rename the sheet in ~/book.xlsx and add a Summary sheet.", change)
    assert "'Data' → 'Stock'" in text
    assert "'Summary' (1 cells)" in text
    assert 'Summary!A1: (empty) → "Total value"' in text
    assert "Stock!A1" not in text and "Notes" not in text


def test_docx_paragraph_text_and_style_changes(sandbox, log):
    path = Path(sandbox.home) / "Documents" / "memo.docx"
    path.parent.mkdir()
    document = docx.Document()
    for text in ("Memo", "First point.", "Second point.", "Closing."):
        document.add_paragraph(text)
    document.save(path)

    def change():
        edited = docx.Document(path)
        edited.paragraphs[0].style = edited.styles["Heading 1"]
        edited.paragraphs[2].text = "Second point, revised."
        edited.add_paragraph("Signed.")
        edited.save(path)

    text = changes_after(sandbox, log, "Edit ~/Documents/memo.docx.", change)
    assert "¶3: “Second point.” → “Second point, revised.”" in text
    assert "¶1 “Memo”: style 'Normal' → 'Heading 1'" in text
    assert "¶5: “Signed.” [Normal]" in text
    assert "First point." not in text


def test_pptx_slide_text_change_and_added_slide(sandbox, log):
    path = Path(sandbox.home) / "deck.pptx"
    deck = pptx.Presentation()
    for title in ("Intro", "Results"):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = title
    deck.save(path)

    def change():
        edited = pptx.Presentation(path)
        edited.slides[1].shapes.title.text = "Results 2024"
        edited.slides.add_slide(edited.slide_layouts[5]).shapes.title.text = "Questions"
        edited.save(path)

    text = changes_after(sandbox, log, "Update deck.pptx.", change)
    assert "slide 2: “Results” → “Results 2024”" in text
    assert "slide 3: Questions" in text
    assert "Intro" not in text


def test_sqlite_rows_added_removed_changed(sandbox, log):
    path = Path(sandbox.home) / ".local" / "share" / "notes" / "notes.db"
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, done INTEGER)")
        db.executemany("INSERT INTO notes VALUES (?, ?, ?)", [(1, "milk", 0), (2, "eggs", 0), (3, "tea", 1)])

    def change():
        with sqlite3.connect(path) as db:
            db.execute("UPDATE notes SET done = 1 WHERE id = 2")
            db.execute("DELETE FROM notes WHERE id = 3")
            db.execute("INSERT INTO notes VALUES (4, 'bread', 0)")

    text = changes_after(sandbox, log, "Mark eggs done in ~/.local/share/notes/notes.db.", change)
    assert "changed notes[id=2]: done: 0 → 1" in text
    assert 'removed notes[id=3]: id=3, title="tea", done=1' in text
    assert 'added notes[id=4]: id=4, title="bread", done=0' in text
    assert "milk" not in text


def test_csv_line_change_and_added_and_removed_files(sandbox, log):
    home = Path(sandbox.home)
    (home / "data.csv").write_text("region,total\nEast,10\nWest,20\n")
    (home / "old.txt").write_text("bye\n")

    def change():
        (home / "data.csv").write_text("region,total\nEast,11\nWest,20\n")
        (home / "old.txt").unlink()
        (home / "out").mkdir()
        (home / "out" / "east.csv").write_text("region,total\nEast,11\n")

    text = changes_after(sandbox, log, "Fix East in data.csv and export it to ~/out/east.csv.", change)
    assert "-East,10\n    +East,11" in text
    assert f"- removed: {home / 'old.txt'}" in text
    assert f"+ added: {home / 'out' / 'east.csv'}" in text
    assert "West" not in text


def test_settings_files_change_by_key(sandbox, log):
    settings_file = Path(sandbox.home) / ".config" / "Code" / "User" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(json.dumps({"editor.fontSize": 12, "files": {"autoSave": "off"}}))

    def change():
        settings_file.write_text(json.dumps({"editor.fontSize": 14, "files": {"autoSave": "off"}, "x": [1]}))

    text = changes_after(sandbox, log, "Set the VS Code font size to 14.", change)
    assert "editor.fontSize: 12 → 14" in text
    assert "x[0]: (not set) → 1" in text
    assert "autoSave" not in text


def test_thousands_of_changed_cells_are_capped(sandbox, log):
    path = Path(sandbox.home) / "big.xlsx"
    write_book(path, {"Data": [[row * 10 + col for col in range(10)] for row in range(500)]})

    def change():
        book = openpyxl.load_workbook(path)
        for row in book["Data"].iter_rows():
            for cell in row:
                cell.value += 1
        book.save(path)

    text = changes_after(sandbox, log, "Change ~/big.xlsx.", change)
    assert "cells changed on 'Data' (5000):" in text
    assert "… and 4960 more" in text
    assert text.count("Data!") == 40
    assert len(text) < 6000


def test_the_baseline_is_outside_the_home_and_logged(sandbox, log):
    (Path(sandbox.home) / "a.txt").write_text("one\n")
    baseline = take_baseline(sandbox, log.run_dir, "Edit ~/a.txt.", log, task_started_at=None)
    assert baseline is not None and baseline.folder == log.run_dir / BASELINE_DIR
    assert not baseline.folder.is_relative_to(sandbox.home)
    assert baseline.old_bytes(str(Path(sandbox.home) / "a.txt")) == b"one\n"
    (event,) = [e for e in read_events(log.events_path) if e["kind"] == "gate_baseline"]
    assert event["named"] == [str(Path(sandbox.home) / "a.txt")] and event["copies"] >= 1
    assert load_baseline(log.run_dir).files.keys() == baseline.files.keys()


def test_nothing_changed_and_no_baseline(sandbox, log):
    assert "no copy of the files was taken" in describe_changes(sandbox, log.run_dir, log, "gate#1")
    (Path(sandbox.home) / "a.txt").write_text("one\n")
    assert changes_after(sandbox, log, "Read ~/a.txt.", lambda: None).startswith("(nothing changed among")
