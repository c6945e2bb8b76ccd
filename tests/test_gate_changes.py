"""The gate's state diff: a baseline at the task start, and what changed since, on real files."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import time
import zipfile
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest
from PIL import Image
from pptx.util import Cm, Inches

from stateact.gate import settings as gate_settings
from stateact.gate.inspect.changes import describe_changes, load_baseline, take_baseline
from stateact.gate.inspect.changes.baseline import BASELINE_DIR
from stateact.gate.inspect.changes.documents import odt_paragraphs
from stateact.gate.review import FinishGate
from stateact.kernel.events import read_events
from stateact.kernel.runlog import RunLog, load_message
from tests.support.osworld_vm_server import served_vm
from tests.test_cli_task import SOLUTION, TASK
from tests.test_cli_task import run_cli as run_task_cli
from tests.test_gate import instruction_for, make_context, verdict, write_sales
from tests.test_osworld_tasks import cache  # noqa: F401  (the cache fixture)
from tests.test_resume import ENV, REPO, cli, kill_hard, run_cli, wait_for_event

pytest_plugins = ["tests.support.gate_fixtures"]


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


MEMO = [
    "Office move",
    "DRAFT - do not circulate",
    "Acme Corporation will move to its new office at 12 Harbour Road on 3 June.",
    "Desks are packed on 31 May; label every box with your name.",
    "Questions about the move go to facilities@acme.example.",
]


def write_memo(path: Path, paragraphs: list[str]) -> None:
    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    document.save(path)


@pytest.mark.parametrize(
    ("kept", "expected"),
    [
        (  # the DRAFT line deleted, and the paragraphs after it touched up (a date, a full stop)
            [MEMO[0], MEMO[2].replace("3 June", "4 June"), MEMO[3], MEMO[4].rstrip(".") + " today."],
            [
                "paragraphs removed (1):\n    ¶2 (old): “DRAFT - do not circulate”",
                "¶2 (¶3 before): “Acme Corporation will move to its new office at 12 Harbour Road on 3 June.” → "
                "“Acme Corporation will move to its new office at 12 Harbour Road on 4 June.”",
                "¶4 (¶5 before): “Questions about the move go to facilities@acme.example.” → ",
            ],
        ),
        (  # the wrong paragraph deleted: the packing date, the DRAFT line kept
            [MEMO[0], MEMO[1], MEMO[2], MEMO[4]],
            [
                "paragraphs removed (1):\n    ¶4 (old): “Desks are packed on 31 May; label every box with your name.”"
            ],
        ),
    ],
    ids=["draft-deleted", "wrong-paragraph-deleted"],
)
def test_a_deleted_paragraph_reads_as_removed_not_as_later_ones_shifted(sandbox, log, kept, expected):
    path = Path(sandbox.home) / "memo.docx"
    write_memo(path, MEMO)

    text = changes_after(
        sandbox, log, "Delete the DRAFT line from ~/memo.docx.", lambda: write_memo(path, kept)
    )

    for line in expected:
        assert line in text
    assert "“DRAFT - do not circulate” →" not in text and "paragraphs added" not in text


def test_an_occurrence_left_unreplaced_is_shown_where_it_still_is(sandbox, log):
    path = Path(sandbox.home) / "policy.docx"
    policy = [
        "Contractor Access Policy",
        "A Contractor must wear a badge.",
        "Managers review contractor access.",
    ]
    write_memo(path, policy)
    task = f'In {path}, replace every "Contractor" with "Vendor" and "contractor" with "vendor".'
    assert take_baseline(sandbox, log.run_dir, task, log, task_started_at=None) is not None
    write_memo(path, [t.replace("Contractor", "Vendor") for t in policy])  # the lower-case one is missed

    text = describe_changes(sandbox, log.run_dir, log, "gate#1", task)

    assert "“contractor” still occurs (1):\n    ¶3: “Managers review contractor access.”" in text
    assert "“Contractor” still occurs" not in text


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


def test_docx_bold_added_and_a_table_between_paragraphs_stays_in_place(sandbox, log):
    path = Path(sandbox.home) / "report.docx"
    document = docx.Document()
    document.add_paragraph("Summary")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Q1", "10"
    document.add_paragraph("Outlook")
    document.save(path)

    def change():
        edited = docx.Document(path)
        edited.paragraphs[1].runs[0].bold = True
        edited.tables[0].rows[0].cells[1].text = "12"
        edited.save(path)

    text = changes_after(sandbox, log, "Edit report.docx.", change)
    assert "¶2: “[table 1 row 1] Q1 | 10” → “[table 1 row 1] Q1 | 12”" in text
    assert "¶3 “Outlook”: runs plain → bold" in text
    assert "Summary" not in text


def test_pptx_bold_and_size_on_an_unchanged_subtitle(sandbox, log):
    path = Path(sandbox.home) / "deck.pptx"
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[0])
    slide.shapes.title.text, slide.placeholders[1].text = "Plan", "Second half"
    deck.save(path)

    def change():
        edited = pptx.Presentation(path)
        font = edited.slides[0].placeholders[1].text_frame.paragraphs[0].runs[0].font
        font.bold, font.size = True, pptx.util.Pt(28)
        edited.save(path)

    text = changes_after(sandbox, log, "Format deck.pptx.", change)
    assert "slide 1 “Second half”: runs plain → bold, 28pt" in text
    assert "“Plan”" not in text


def test_pptx_restyle_on_a_slide_whose_text_also_changed(sandbox, log):
    """A year replaced in the title and the body made bold on the same slide: both show."""
    path = Path(sandbox.home) / "deck.pptx"
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[0])
    slide.shapes.title.text, slide.placeholders[1].text = "Overview 2023", "Revenue grew"
    deck.save(path)

    def change():
        edited = pptx.Presentation(path)
        edited.slides[0].shapes.title.text = "Overview 2024"
        edited.slides[0].placeholders[1].text_frame.paragraphs[0].runs[0].font.bold = True
        edited.save(path)

    text = changes_after(sandbox, log, "Update deck.pptx.", change)
    assert "slide 1: “Overview 2023” → “Overview 2024”" in text
    assert "slide 1 “Revenue grew”: runs plain → bold" in text


def write_photo_deck(path: Path, caption_gap: pptx.util.Length) -> None:
    """A slide with a photo and its caption `caption_gap` below it."""
    photo = io.BytesIO()
    Image.new("RGB", (40, 30), "navy").save(photo, "PNG")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    picture = slide.shapes.add_picture(photo, Cm(2), Cm(2), Cm(12), Cm(9))
    caption = slide.shapes.add_textbox(Cm(2), picture.top + picture.height + caption_gap, Cm(12), Cm(1))
    caption.text_frame.text = "Harbour at dawn"
    deck.save(path)


def test_pptx_caption_moved_shows_both_boxes_though_no_text_changed(sandbox, log):
    path = Path(sandbox.home) / "album.pptx"
    write_photo_deck(path, Inches(0.25))

    def change():
        write_photo_deck(path, Cm(0.25))

    text = changes_after(sandbox, log, "Put the caption 0.25 in below the photo in album.pptx.", change)
    assert (
        "slide 1 “Harbour at dawn” (TextBox 2): x 2.00–14.00 cm, y 11.63–12.63 cm → "
        "x 2.00–14.00 cm, y 11.25–12.25 cm"
    ) in text
    assert "Picture 1" not in text


def test_a_new_deck_lists_its_shapes_with_their_boxes(sandbox, log):
    path = Path(sandbox.home) / "album.pptx"

    text = changes_after(sandbox, log, "Make album.pptx.", lambda: write_photo_deck(path, Cm(0.25)))
    assert "slide 1 Picture 1: x 2.00–14.00 cm, y 2.00–11.00 cm" in text
    assert "slide 1 “Harbour at dawn” (TextBox 2): x 2.00–14.00 cm, y 11.25–12.25 cm" in text


ODT_CONTENT = (
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
    "<text:p>Total:<text:s/> 12<text:tab/>EUR<text:line-break/>net</text:p>"
    "</office:text></office:body></office:document-content>"
)


def test_odt_diff_keeps_spaces_tabs_and_line_breaks(tmp_path):
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as odt:
        odt.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        odt.writestr("content.xml", ODT_CONTENT)
        odt.writestr(
            "styles.xml",
            '<office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>',
        )
    assert [p.text for p in odt_paragraphs(archive.getvalue())] == ["Total:  12\tEUR\nnet"]


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


def test_a_sorted_inbox_shows_every_file_moved_created_and_deleted_whatever_its_type(sandbox, log):
    inbox = Path(sandbox.home) / "inbox"
    inbox.mkdir()
    for name, data in {
        "scan-001.pdf": b"%PDF-1.4 a",
        "quote.jpg": b"\xff\xd8 b",
        "notes.txt": b"call\n",
    }.items():
        (inbox / name).write_bytes(data)
    (inbox / "spam.eml").write_bytes(b"From: x\n")

    def change():
        for folder, name in (("invoices", "scan-001.pdf"), ("quotes", "quote.jpg"), ("misc", "notes.txt")):
            (inbox / folder).mkdir()
            (inbox / name).rename(inbox / folder / name)
        (inbox / "spam.eml").unlink()
        (inbox / "index.png").write_bytes(b"\x89PNG new")

    text = changes_after(sandbox, log, "Sort the files in ~/inbox into folders by kind.", change)
    assert f"> moved: {inbox / 'invoices' / 'scan-001.pdf'} (from {inbox / 'scan-001.pdf'})" in text
    assert f"> moved: {inbox / 'quotes' / 'quote.jpg'} (from {inbox / 'quote.jpg'})" in text
    assert f"> moved: {inbox / 'misc' / 'notes.txt'} (from {inbox / 'notes.txt'})" in text
    assert f"- removed: {inbox / 'spam.eml'}" in text
    assert f"+ added: {inbox / 'index.png'}" in text
    assert "now: 0 changed, 1 added, 1 removed, 3 moved." in text


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


def xcu(*items: tuple[str, str, str]) -> str:
    """A registrymodifications.xcu holding `(path, prop, value)` items, as LibreOffice writes it."""
    body = "".join(
        f'<item oor:path="{path}"><prop oor:name="{prop}" oor:op="fuse"><value>{value}</value></prop></item>\n'
        for path, prop, value in items
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
        f'xmlns:xs="http://www.w3.org/2001/XMLSchema">\n{body}</oor:items>\n'
    )


WINDOW = (
    "/org.openoffice.Office.Views/Windows/org.openoffice.Office.Views:WindowType['swriter/10336']",
    "Data",
)
PICK_LIST = ("/org.openoffice.Office.Histories/Histories/ItemList/file:///home/user/a.docx", "Title")
AUTOSAVE = ("/org.openoffice.Office.Common/Save/Document", "AutoSaveTimeIntervall")


def test_office_profile_changes_an_app_makes_as_it_runs_are_left_out_and_settings_show_by_key(sandbox, log):
    profile = Path(sandbox.home) / ".config" / "libreoffice" / "4" / "user" / "registrymodifications.xcu"
    profile.parent.mkdir(parents=True, exist_ok=True)
    profile.write_text(xcu((*WINDOW, "V2,V,0"), (*AUTOSAVE, "10")))
    task = "Fix the typos in ~/a.txt."

    opened_and_closed = changes_after(
        sandbox,
        log,
        task,
        lambda: profile.write_text(xcu((*WINDOW, "V2,V,128"), (*PICK_LIST, "a"), (*AUTOSAVE, "10"))),
    )
    profile.write_text(xcu((*WINDOW, "V2,V,0"), (*AUTOSAVE, "10")))
    set_autosave = changes_after(
        sandbox, log, task, lambda: profile.write_text(xcu((*WINDOW, "V2,V,9"), (*AUTOSAVE, "3")))
    )

    assert "registrymodifications" not in opened_and_closed
    assert "nothing changed" in opened_and_closed
    assert f'{AUTOSAVE[0]}/{AUTOSAVE[1]}: "10" → "3"' in set_autosave
    assert "Views" not in set_autosave and "@@" not in set_autosave


def test_the_inputs_under_a_folder_the_instruction_names_by_word_are_in_the_baseline(sandbox, log):
    logs = Path(sandbox.home) / "logs"
    logs.mkdir()
    for day in range(1, 7):
        (logs / f"app-0{day}.log").write_text(f"INFO start\nERROR day {day}\n")
    task = "Count the ERROR lines of the six .log files in my logs folder and write the total to errors.txt in my home folder."

    text = changes_after(sandbox, log, task, lambda: (logs / "app-03.log").write_text("INFO start\n"))

    recorded = load_baseline(log.run_dir).files
    assert sorted(p for p in recorded if p.endswith(".log")) == [
        str(logs / f"app-0{d}.log") for d in range(1, 7)
    ]
    assert f"~ changed: {logs / 'app-03.log'}" in text and "-ERROR day 3" in text


@pytest.mark.slow
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
    (event,) = [e for e in read_events(log.events_path) if e.kind == "gate_baseline"]
    assert event.named == [str(Path(sandbox.home) / "a.txt")] and event.copies >= 1
    assert load_baseline(log.run_dir).files.keys() == baseline.files.keys()


def test_nothing_changed_and_no_baseline(sandbox, log):
    assert "no copy of the files was taken" in describe_changes(sandbox, log.run_dir, log, "gate#1")
    (Path(sandbox.home) / "a.txt").write_text("one\n")
    assert changes_after(sandbox, log, "Read ~/a.txt.", lambda: None).startswith("(nothing changed among")


@pytest.mark.slow
def test_one_wrong_cell_is_in_the_gates_first_request(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path, totals=[0, 0, 0, 0])  # the workbook before the task: totals not filled in yet
    finding = {"problem": "D3 is 26, Qty*Price is 25", "location": f"{path} Sales!D3", "evidence": "diff"}
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [verdict(False, [finding])])
    started = time.time() - 5
    take_baseline(sandbox, context.run_dir, context.task, context.log, task_started_at=started)
    write_sales(path, totals=[12, 26, 24, 7.5])  # D3 should be 10 * 2.5 = 25

    FinishGate(context, task_started_at=started).review()

    first = context.provider("gate").requests[0].messages[0].text()
    changes = first.split("What changed since the task started")[1]
    assert f"~ changed: {path}" in changes
    assert "Sales!D3: 0 → 26" in changes
    assert "Sales!D2: 0 → 12" in changes and "Sales!D6: 0 → 69.5" in changes
    assert "Sales!A2" not in changes, "cells the agent did not change are not listed"
    (logged,) = [e for e in read_events(context.log.events_path) if e.kind == "gate_changes"]
    assert logged.scope == "gate#1" and logged.changed == 1


@pytest.mark.slow
def test_a_resumed_run_compares_with_the_baseline_of_its_first_start(tmp_path):
    check = {"requirement": "out.txt says yes", "result": "pass", "evidence": "cat printed yes"}
    bash = [
        "echo no > ~/out.txt",
        # the kill comes during the sleep (room on a busy machine); the hang-up that follows it ends the
        # sleep, and `&&` keeps the shell from going on to the write before it exits too
        "sleep 60 && echo yes > ~/out.txt",
        "echo yes > ~/out.txt",
    ]
    main = [{"tool_calls": [{"name": "bash", "input": {"command": c}}]} for c in bash]
    main[2]["expect"] = {"is_error": True}  # the killed call's outcome is unknown
    main.append({"tool_calls": [{"name": "finish", "input": {"summary": "wrote it"}}]})
    gate = [{"tool_calls": [{"name": "verdict", "input": {"verdict": "PASS", "checklist": [check]}}]}]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"roles": {"main": main, "gate": gate}}))
    runs, home = tmp_path / "runs", tmp_path / "home"
    home.mkdir()
    (home / "out.txt").write_text("maybe\n")
    task = "Write ~/out.txt containing the word yes."
    options = ["--model", f"scripted:{script}", "--workdir", str(home), "--runs-root", str(runs)]
    proc = subprocess.Popen(
        cli("run", task, *options, "--no-display"), cwd=REPO, env=ENV, stdout=subprocess.DEVNULL
    )
    wait_for_event(runs, lambda e: e.kind == "tool_call" and "sleep 60" in json.dumps(e.input))
    kill_hard(proc)
    (run_dir,) = list(runs.iterdir())
    assert (home / "out.txt").read_text() == "no\n"

    resumed = run_cli("resume", str(run_dir), timeout=120)

    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    events = list(read_events(run_dir / "events.jsonl"))
    assert [e.kind for e in events].count("run_start") == 2
    assert [e.kind for e in events].count("gate_baseline") == 1
    request = next(e for e in events if e.kind == "message" and e.scope == "gate#1")
    changes = load_message(request.message, run_dir).text().split("What changed since the task started")[1]
    sandbox_home = next(e.home for e in events if e.kind == "run_start")  # /home/user when isolated
    assert f"~ changed: {sandbox_home}/out.txt" in changes
    assert "-maybe\n    +yes" in changes, "compared with the file as it was at the first start"


def test_files_over_the_size_cap_are_reported_without_content(sandbox, log, monkeypatch):
    monkeypatch.setattr(gate_settings, "GATE_BASELINE_FILE_MAX_BYTES", 1024)
    path = Path(sandbox.home) / "big.txt"
    path.write_text("x" * 2000)

    text = changes_after(sandbox, log, "Edit ~/big.txt.", lambda: path.write_text("y" * 3000))

    assert f"~ changed: {path} (2000 → 3000 bytes)" in text
    assert "larger than GATE_BASELINE_FILE_MAX_BYTES" in text and "yyy" not in text


@pytest.mark.slow
def test_a_task_file_run_on_the_vm_takes_the_baseline_after_its_setup(tmp_path, cache):  # noqa: F811
    check = {"requirement": "report.csv in lower case", "result": "pass", "evidence": "read it"}
    gate = [{"tool_calls": [{"name": "verdict", "input": {"verdict": "PASS", "checklist": [check]}}]}]
    script = tmp_path / "solution.json"
    script.write_text(json.dumps({"roles": {"main": SOLUTION, "gate": gate}}))
    runs = tmp_path / "runs"
    options = ["--task", str(TASK), "--model", f"scripted:{script}", "--cache", str(cache)]
    options += ["--results", str(tmp_path / "results"), "--runs-root", str(runs)]
    with served_vm(tmp_path / "vm-home", display=False) as (_, server, _local):
        done = run_task_cli(*options, "--sandbox", f"osworld://{server.url.removeprefix('http://')}")
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = list(runs.iterdir())
    events = list(read_events(run_dir / "events.jsonl"))
    (baseline,) = [e for e in events if e.kind == "gate_baseline"]
    home = next(e.home for e in events if e.kind == "run_start")
    assert {f"{home}/input.csv", f"{home}/report.csv"} <= set(baseline.named)
    assert (run_dir / "baseline" / "manifest.json").exists()
    request = next(e for e in events if e.kind == "message" and e.scope == "gate#1")
    changes = load_message(request.message, run_dir).text().split("What changed since the task started")[1]
    assert f"+ added: {home}/report.csv" in changes and "+name,qty" in changes
    assert f"+ added: {home}/notes_out.txt" in changes
    assert "input.csv" not in changes, "the task's inputs were copied after the setup and did not change"
