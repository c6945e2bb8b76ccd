"""The office toolkit on real files made by python libraries and by LibreOffice (headless)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from docx import Document
from docx.shared import Pt
from openpyxl.chart import BarChart, Reference
from PIL import Image
from pptx import Presentation
from pptx.util import Inches

from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.toolkit import TOOLKIT_BIN, install_toolkit, toolkit_programs
from stateact.sandbox.toolkit.settings import TOOLKIT_REMOTE_DIR, TOOLKIT_REMOTE_LIB_DIR
from tests.support.toolkit_helpers import run_tool


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with LocalSandbox(tmp_path_factory.mktemp("home")) as box:
        yield box


@pytest.fixture
def home(sandbox) -> Path:
    return Path(sandbox.home)


def make_formula_book(path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sales"
    sheet.append(["Item", "Qty", "Price", "Total"])
    for item, qty, price in [("pen", 3, 1.5), ("ink", 2, 4.0)]:
        row = sheet.max_row + 1
        sheet.append([item, qty, price, f"=B{row}*C{row}"])
    sheet["D4"] = "=SUM(D2:D3)"
    sheet["C2"].number_format = "0.00"
    book.save(path)


@pytest.mark.slow
def test_programs_are_on_the_sandbox_path_and_explain_themselves(sandbox):
    for program in toolkit_programs():
        found = run_tool(sandbox, f"command -v {program}")
        assert found.stdout.strip() == str(TOOLKIT_BIN / program)
        usage = run_tool(sandbox, f"{program} --help")
        assert usage.ok and usage.stdout.startswith(f"usage: {program}"), usage.output


@pytest.mark.parametrize(
    "program",
    [
        "xlsx-dump",
        "xlsx-set",
        "office-recalc",
        "docx-dump",
        "docx-edit",
        "pptx-dump",
        "office-convert",
        "office-close",
        "office-reload",
    ],
)
def test_missing_file_is_a_clear_error(sandbox, program):
    extra = {"xlsx-set": " A1=1", "docx-edit": " --append x", "office-convert": " pdf"}.get(program, "")
    result = run_tool(sandbox, f"{program} /no/such/file.xlsx{extra}")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "no such file" in result.stderr


@pytest.mark.slow
def test_bad_arguments_are_clear_errors(sandbox, home):
    make_formula_book(home / "args.xlsx")
    cases = {
        "xlsx-set args.xlsx B2": "bad assignment",
        "xlsx-set args.xlsx --sheet Nope A1=1": "no sheet 'Nope'",
        "xlsx-dump args.xlsx --sheet Nope": "sheets are: Sales",
        "xlsx-dump args.xlsx --range A1:B2:C3": "bad --range",
        "docx-dump args.xlsx": "expected a .docx",
        "docx-edit x.docx": "give at least one edit",
        "office-open-check /no/such/dir/a.xlsx": "no such folder",
    }
    for command, message in cases.items():
        result = run_tool(sandbox, command)
        assert result.returncode == 2, (command, result.output)
        assert message in result.stderr, (command, result.stderr)


def test_missing_python_library_names_the_pip_command(sandbox, home):
    make_formula_book(home / "nolib.xlsx")
    bare_python = "/usr/bin/python3"
    if not Path(bare_python).exists():
        pytest.skip("no system python to run the toolkit without its libraries")
    probe = subprocess.run([bare_python, "-c", "import openpyxl"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("the system python has openpyxl, so the missing-library path cannot be shown here")
    result = run_tool(sandbox, f"{bare_python} {TOOLKIT_BIN / 'xlsx-dump'} nolib.xlsx")
    assert result.returncode == 2
    assert "pip install --user openpyxl" in result.stderr


def test_a_dump_read_by_head_ends_quietly(sandbox, home):
    book = openpyxl.Workbook()
    for row in range(1, 3000):
        book.active.append([f"row {row}", row, row * 2])
    book.save(home / "long.xlsx")
    result = run_tool(sandbox, "set -o pipefail; xlsx-dump long.xlsx --max-cells 9000 | head -3")
    assert len(result.stdout.splitlines()) == 3 and not result.stderr.strip(), result.output


def test_set_dump_round_trip_keeps_types_and_formats(sandbox, home):
    make_formula_book(home / "types.xlsx")
    result = run_tool(
        sandbox,
        "xlsx-set types.xlsx --sheet Sales B5=42 C5=2.5 A5=007 A6=2024-01-31 B6=TRUE 'D5==B5*C5' A7='two words'",
    )
    assert result.ok, result.output
    assert "office-recalc" in result.stdout  # formulas now lack cached values
    book = openpyxl.load_workbook(home / "types.xlsx")["Sales"]
    assert (book["B5"].value, book["C5"].value, book["A5"].value) == (42, 2.5, "007")
    assert book["A6"].value.year == 2024 and book["B6"].value is True
    assert book["D5"].value == "=B5*C5" and book["A7"].value == "two words"
    dump = run_tool(sandbox, "xlsx-dump types.xlsx").stdout
    assert "B5 42" in dump and "A5 '007'" in dump and "C2 1.5 [0.00]" in dump
    assert "D5 =B5*C5 -> (no cached value)" in dump
    assert "formula cell(s) have no cached value" in dump


def test_dump_header_tells_the_range_shown_from_the_sheets_extent(sandbox, home):
    make_formula_book(home / "ranged.xlsx")
    whole = run_tool(sandbox, "xlsx-dump ranged.xlsx").stdout
    assert '== sheet "Sales" (A1:D4, 4 rows x 4 cols)' in whole
    ranged = run_tool(sandbox, "xlsx-dump ranged.xlsx --range a1:b2").stdout
    assert '== sheet "Sales" (showing A1:B2 of the sheet\'s A1:D4, 4 rows x 4 cols)' in ranged
    assert "B2 3" in ranged and "C2" not in ranged and "A3" not in ranged


@pytest.mark.apps
def test_recalculation_gives_cached_values_that_pandas_reads(sandbox, home):
    make_formula_book(home / "calc.xlsx")
    assert pd.read_excel(home / "calc.xlsx")["Total"].isna().all()  # openpyxl wrote no cached values
    result = run_tool(sandbox, "office-recalc calc.xlsx")
    assert result.ok, result.output
    assert "3 formula cell(s), 3 with cached values" in result.stdout
    frame = pd.read_excel(home / "calc.xlsx")
    assert frame["Total"].tolist() == [4.5, 8.0, 12.5]
    assert openpyxl.load_workbook(home / "calc.xlsx")["Sales"]["D4"].value == "=SUM(D2:D3)"
    dump = run_tool(sandbox, "xlsx-dump calc.xlsx --range D2:D4").stdout
    assert "D4 =SUM(D2:D3) -> 12.5" in dump and "warning" not in dump


@pytest.mark.apps
def test_recalculation_replaces_stale_cached_values(sandbox, home):
    make_formula_book(home / "stale.xlsx")
    assert run_tool(sandbox, "office-recalc stale.xlsx").ok
    # Change an input's stored value behind LibreOffice's back: D2 and D4 keep stale cached results.
    with zipfile.ZipFile(home / "stale.xlsx") as archive:
        parts = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    patched, count = re.subn(r'(<c r="B2"[^>]*><v>)3(</v>)', r"\g<1>10\g<2>", sheet)
    assert count == 1
    parts["xl/worksheets/sheet1.xml"] = patched.encode()
    with zipfile.ZipFile(home / "stale.xlsx", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    assert pd.read_excel(home / "stale.xlsx")["Total"].tolist() == [4.5, 8.0, 12.5]
    assert run_tool(sandbox, "office-recalc stale.xlsx").ok
    assert pd.read_excel(home / "stale.xlsx")["Total"].tolist() == [15.0, 8.0, 23.0]


@pytest.mark.apps
def test_xlsx_set_recalc_option_and_output_file(sandbox, home):
    make_formula_book(home / "src.xlsx")
    result = run_tool(sandbox, "xlsx-set src.xlsx B3=5 -o out.xlsx --recalc")
    assert result.ok, result.output
    assert pd.read_excel(home / "out.xlsx")["Total"].tolist() == [4.5, 20.0, 24.5]
    assert openpyxl.load_workbook(home / "src.xlsx")["Sales"]["B3"].value == 2  # input untouched


def test_xlsx_set_refuses_to_drop_charts_unless_forced(sandbox, home):
    make_formula_book(home / "chart.xlsx")
    book = openpyxl.load_workbook(home / "chart.xlsx")
    chart = BarChart()
    chart.add_data(Reference(book["Sales"], min_col=2, min_row=1, max_row=3), titles_from_data=True)
    book["Sales"].add_chart(chart, "F2")
    book.save(home / "chart.xlsx")
    refused = run_tool(sandbox, "xlsx-set chart.xlsx B2=9")
    assert refused.returncode == 2 and "charts" in refused.stderr
    assert openpyxl.load_workbook(home / "chart.xlsx")["Sales"]["B2"].value == 3
    assert run_tool(sandbox, "xlsx-set chart.xlsx B2=9 --force").ok
    assert openpyxl.load_workbook(home / "chart.xlsx")["Sales"]["B2"].value == 9


@pytest.mark.apps
def test_dump_reads_a_libreoffice_ods(sandbox, home):
    make_formula_book(home / "book.xlsx")
    converted = run_tool(sandbox, "office-convert book.xlsx ods")
    assert converted.ok and (home / "book.ods").exists(), converted.output
    dump = run_tool(sandbox, "xlsx-dump book.ods").stdout
    assert 'sheet "Sales"' in dump
    assert "D4 =SUM(D2:D3) -> 12.5" in dump and "A2 'pen'" in dump


def make_report(path: Path) -> None:
    document = Document()
    document.add_heading("Quarterly Report", 1)
    paragraph = document.add_paragraph("Revenue grew by ")
    bold = paragraph.add_run("12%")
    bold.bold = True
    bold.font.size = Pt(14)
    paragraph.add_run(" in Q3.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Region"
    table.cell(1, 1).text = "Q3 North"
    document.add_paragraph("Prepared for Q3 review.")
    document.sections[0].header.paragraphs[0].text = "ACME Q3"
    document.save(path)


def test_docx_dump_shows_paragraphs_styles_runs_tables_and_headers(sandbox, home):
    make_report(home / "report.docx")
    dump = run_tool(sandbox, "docx-dump report.docx --runs").stdout
    assert "3 paragraph(s), 1 table(s)" in dump
    assert "[0] Heading 1: 'Quarterly Report'" in dump
    assert "[1] Normal: 'Revenue grew by 12% in Q3.'" in dump
    assert "run 1 '12%' {bold, size=14}" in dump
    assert "table 1 (after [1], 2x2):" in dump and "| Region |  |" in dump
    assert "section 1 header: 'ACME Q3'" in dump


def test_docx_edit_round_trip_keeps_formatting(sandbox, home):
    make_report(home / "edit.docx")
    result = run_tool(
        sandbox,
        "docx-edit edit.docx --replace Q3 Q4 --set-style 2 'Heading 2' --insert-after 0 'Summary' "
        "--align 0 center --set-text 3 'Prepared by Finance.' --append 'End' --delete 4",
    )
    assert result.ok, result.output
    assert "replaced 4 occurrence(s) of 'Q3'" in result.stdout
    document = Document(str(home / "edit.docx"))
    texts = [p.text for p in document.paragraphs]
    assert texts == ["Quarterly Report", "Summary", "Revenue grew by 12% in Q4.", "Prepared by Finance."]
    assert document.paragraphs[1].style.name == "Heading 1"  # inserted with its neighbour's style
    assert document.paragraphs[3].style.name == "Heading 2"
    assert document.paragraphs[0].alignment == 1
    runs = document.paragraphs[2].runs
    assert runs[1].text == "12%" and runs[1].bold and runs[1].font.size == Pt(14)
    assert document.tables[0].cell(1, 1).text == "Q4 North"
    assert document.sections[0].header.paragraphs[0].text == "ACME Q4"


def test_docx_edit_errors_leave_the_file_unchanged(sandbox, home):
    make_report(home / "keep.docx")
    before = (home / "keep.docx").read_bytes()
    for command, message in {
        "docx-edit keep.docx --replace Q3 Q4 --replace absent x": "text not found: 'absent'",
        "docx-edit keep.docx --delete 9": "no paragraph [9]",
        "docx-edit keep.docx --set-style 0 Nope": "no paragraph style 'Nope'",
        "docx-edit keep.docx --align 0 diagonal": "alignment must be one of",
    }.items():
        result = run_tool(sandbox, command)
        assert result.returncode == 2 and message in result.stderr, (command, result.output)
    assert (home / "keep.docx").read_bytes() == before


@pytest.mark.apps
def test_odt_made_by_libreoffice_dump_edit_and_convert_back(sandbox, home):
    make_report(home / "memo.docx")
    assert run_tool(sandbox, "office-convert memo.docx odt").ok
    dump = run_tool(sandbox, "docx-dump memo.odt").stdout
    assert "[0] Heading 1: 'Quarterly Report'" in dump
    assert "Revenue grew by 12% in Q3." in dump and "| Region |  |" in dump
    edited = run_tool(sandbox, "docx-edit memo.odt --replace 'Prepared for' 'Written for'")
    assert edited.ok, edited.output
    unsupported = run_tool(sandbox, "docx-edit memo.odt --delete 0")
    assert unsupported.returncode == 2 and "--replace only" in unsupported.stderr
    assert run_tool(sandbox, "office-convert memo.odt docx --outdir back").ok
    texts = [p.text for p in Document(str(home / "back" / "memo.docx")).paragraphs]
    assert "Written for Q3 review." in texts


def make_deck(path: Path) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Plan 2024"
    slide.placeholders[1].text_frame.text = "Grow sales"
    slide.placeholders[1].text_frame.add_paragraph().text = "Hire two people"
    box = slide.shapes.add_textbox(Inches(1), Inches(6), Inches(3), Inches(0.5))
    box.text_frame.text = "Footnote"
    table = deck.slides.add_slide(deck.slide_layouts[5]).shapes.add_table(
        2, 2, Inches(1), Inches(2), Inches(4), Inches(1)
    )
    table.table.cell(0, 0).text = "Q1"
    table.table.cell(1, 1).text = "40"
    slide.notes_slide.notes_text_frame.text = "Say hello"
    deck.save(path)


@pytest.mark.apps
def test_pptx_dump_on_python_pptx_and_libreoffice_files(sandbox, home):
    make_deck(home / "deck.pptx")
    dump = run_tool(sandbox, "pptx-dump deck.pptx").stdout
    assert "2 slide(s), slide size 10.00x7.50in" in dump
    assert "'Plan 2024'" in dump and "'Hire two people'" in dump and "notes: 'Say hello'" in dump
    assert "'Footnote'" in dump and "at (1.00,6.00)in size 3.00x0.50in" in dump
    assert "| Q1 |  |" in dump and "|  | 40 |" in dump
    only_second = run_tool(sandbox, "pptx-dump deck.pptx --slide 2").stdout
    assert "Plan 2024" not in only_second and "== slide 2" in only_second
    assert run_tool(sandbox, "pptx-dump deck.pptx --slide 3").returncode == 2
    assert run_tool(sandbox, "office-convert deck.pptx odp").ok
    converted = run_tool(sandbox, "pptx-dump deck.odp").stdout
    assert "'Plan 2024'" in converted and "'Hire two people'" in converted


@pytest.mark.apps
def test_convert_refuses_same_format_and_unknown_formats(sandbox, home):
    make_report(home / "same.docx")
    same = run_tool(sandbox, "office-convert same.docx docx")
    assert same.returncode == 2 and "already docx" in same.stderr
    unknown = run_tool(sandbox, "office-convert same.docx nosuchformat")
    assert unknown.returncode == 2 and "could not convert" in unknown.stderr


def test_open_check_reports_closed_and_stale_locks(sandbox, home):
    make_report(home / "locked.docx")
    closed = run_tool(sandbox, "office-open-check locked.docx")
    assert closed.returncode == 1 and closed.stdout.startswith("not open")
    (home / ".~lock.locked.docx#").write_text(",tester,host,01.01.2026 10:00,file:///no/such/profile;")
    stale = run_tool(sandbox, "office-open-check locked.docx")
    assert stale.returncode == 1 and "stale lock file" in stale.stdout
    assert run_tool(sandbox, "office-reload locked.docx").stdout.strip().endswith("nothing to reload")


def test_install_toolkit_uploads_working_programs(tmp_path):
    with LocalSandbox(tmp_path / "vmhome") as box:
        bin_dir = install_toolkit(box, install_missing_modules=False).bin_dir
        assert bin_dir == f"{box.home}/{TOOLKIT_REMOTE_DIR}"
        for program in toolkit_programs():
            assert (Path(bin_dir) / program).stat().st_mode & 0o111, program
        make_formula_book(Path(box.home) / "up.xlsx")
        dump = box.run(f"PATH=/usr/bin:/bin {shlex.quote(sys.executable)} {bin_dir}/xlsx-dump ~/up.xlsx")
        assert dump.ok and 'sheet "Sales"' in dump.stdout, dump.output
        direct = box.run(f"{bin_dir}/docx-dump --help")
        assert direct.ok and direct.stdout.startswith("usage: docx-dump")
        prior = box.run(f"{bin_dir}/app-priors vlc")  # the priors travel with the programs
        assert prior.ok and prior.stdout == (TOOLKIT_BIN / "priors" / "vlc.md").read_text(), prior.output


class _VenvMachine(LocalSandbox):
    """A machine whose python3 is a bare virtual environment (as some OSWorld VMs)."""

    venv: Path

    def run(self, command: str, timeout: float = 60.0):
        return super().run(f"PATH={shlex.quote(str(self.venv))}/bin:$PATH; {command}", timeout)


def test_install_toolkit_in_a_virtual_environment_installs_to_a_folder_and_warns(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(venv)], check=True)
    box = _VenvMachine(tmp_path / "vmhome")
    box.venv = venv  # before the start, whose image settings already run commands
    with box:
        installed = install_toolkit(box)
    assert installed.python_path == f"{box.home}/{TOOLKIT_REMOTE_LIB_DIR}"
    first, failed = installed.warnings  # the venv has no pip here: the install fails, and says so
    assert "virtual environment" in first and installed.python_path in first
    assert "--target" in failed and "failed" in failed


def test_docx_dump_marks_the_drawings_a_paragraph_holds(sandbox, home):
    Image.new("RGB", (40, 20), "navy").save(home / "bar.png")
    document = Document()
    document.add_paragraph("Spending by category")
    document.add_paragraph().add_run().add_picture(str(home / "bar.png"), width=Pt(72))
    document.save(home / "figure.docx")
    dump = run_tool(sandbox, "docx-dump figure.docx").stdout
    assert "[0] Normal: 'Spending by category'\n[1] Normal: '' [picture]" in dump
