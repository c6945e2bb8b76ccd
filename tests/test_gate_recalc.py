"""The pre-gate's formula consistency check: saved formula values against a LibreOffice recalculation."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import openpyxl
import pytest

from stateact.gate import settings
from stateact.gate.inspect.deliverables import mentioned_paths
from stateact.gate.inspect.pregate import run_pregate
from stateact.sandbox.processes import tagged_pids
from stateact.sandbox.toolkit import TOOLKIT_BIN

pytest_plugins = ["tests.support.gate_fixtures"]

APP_FIXTURES = frozenset({"recalculated_book"})
SHEET_XML = "xl/worksheets/sheet1.xml"
ODS_CONTENT = """<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2">
<office:body><office:spreadsheet><table:table table:name="Costs"><table:table-row>
<table:table-cell office:value-type="float" office:value="4"><text:p>4</text:p></table:table-cell>
<table:table-cell office:value-type="float" office:value="5"><text:p>5</text:p></table:table-cell>
<table:table-cell table:formula="of:=[.A1]*[.B1]" office:value-type="float" office:value="21">
<text:p>21</text:p></table:table-cell>
</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"""
ODS_MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>
<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
</manifest:manifest>"""


@pytest.fixture(scope="module")
def recalculated_book(tmp_path_factory) -> Path:
    """A workbook recalculated by LibreOffice: B4 = SUM(B2:B3) = 30, a text formula, and RAND cells."""
    path = tmp_path_factory.mktemp("books") / "sales.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Item", "Amount", "Noise"])
    ws.append(["a", 10, "=RAND()"])
    ws.append(["b", 20, "=C2*1000"])
    ws["A4"] = '=A2&"+"&A3'
    ws["B4"] = "=SUM(B2:B3)"
    wb.save(path)
    subprocess.run([sys.executable, str(TOOLKIT_BIN / "office-recalc"), str(path)], check=True, timeout=180)
    return path


def with_cached_value(source: Path, target: Path, cell: str, value: str) -> None:
    """Copy the xlsx, replacing the cached value of `cell` in its first sheet's XML (formula kept)."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as copy:
        for item in original.infolist():
            data = original.read(item.filename)
            if item.filename == SHEET_XML:
                pattern = rf'(<c r="{cell}"[^>]*>.*?<v>)[^<]*(</v>)'
                data, count = re.subn(pattern.encode(), rb"\g<1>" + value.encode() + rb"\g<2>", data)
                assert count == 1
            copy.writestr(item, data)


def with_zero_caches(source: Path, target: Path) -> None:
    """Copy the xlsx openpyxl wrote, giving each formula of its first sheet the cached value 0."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as copy:
        for item in original.infolist():
            data = original.read(item.filename)
            if item.filename == SHEET_XML:
                data = re.sub(rb"(<f>[^<]*</f><v>)(</v>)", rb"\g<1>0\g<2>", data)
            copy.writestr(item, data)


def deliver(sandbox, source: Path, name: str) -> Path:
    path = Path(sandbox.home) / name
    shutil.copyfile(source, path)
    return path


def pregate_of(sandbox, path: Path):
    return run_pregate(sandbox, mentioned_paths(f"Save the workbook as {path}."), time.time() - 600)


@pytest.mark.apps
def test_stale_cached_total_fails_naming_the_cell_and_leaves_the_file_untouched(
    recalculated_book, sandbox, tmp_path
):
    stale = tmp_path / "stale.xlsx"
    with_cached_value(recalculated_book, stale, "B4", "99")
    home_before = sorted(os.listdir(sandbox.home))
    path = deliver(sandbox, stale, "sales.xlsx")
    before = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)

    result = pregate_of(sandbox, path)

    assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before
    assert sorted(os.listdir(sandbox.home)) == sorted([*home_before, "sales.xlsx"])
    [finding] = result.findings
    assert "disagree with their formulas" in finding.problem
    assert finding.evidence == "Sales!B4 =SUM(B2:B3): saved 99, recalculated 30"
    recalc = result.facts[0]["formula_recalc"]
    assert recalc["status"] == "checked" and recalc["mismatch_count"] == 1
    assert recalc["skipped_volatile"] == 2 and recalc["compared"] == 2


@pytest.mark.apps
def test_consistent_workbook_gives_no_finding(recalculated_book, sandbox):
    path = deliver(sandbox, recalculated_book, "sales.xlsx")

    result = pregate_of(sandbox, path)

    assert result.findings == []
    recalc = result.facts[0]["formula_recalc"]
    assert recalc == {
        "status": "checked",
        "compared": 2,
        "skipped_volatile": 2,
        "not_comparable": 0,
        "mismatch_count": 0,
        "mismatches": [],
        "scope": recalc["scope"],
        "ranges_stopping_short": [],
    }
    assert "Not checked: whether a formula is the one the task asks for" in recalc["scope"]


@pytest.mark.apps
def test_recalculation_that_times_out_is_a_fact_not_a_finding(
    recalculated_book, sandbox, tmp_path, monkeypatch
):
    stale = tmp_path / "stale.xlsx"
    with_cached_value(recalculated_book, stale, "B4", "99")
    path = deliver(sandbox, stale, "sales.xlsx")
    monkeypatch.setattr(settings, "GATE_RECALC_TIMEOUT_S", 0.2)

    result = pregate_of(sandbox, path)

    assert result.findings == []
    recalc = result.facts[0]["formula_recalc"]
    assert recalc["status"] == "could_not_check" and "did not finish" in recalc["reason"]
    assert [pid for pid in tagged_pids(sandbox.tag) if "stateact-gate-recalc-" in command_line(pid)] == []


def without_recalc(sandbox, tmp_path) -> None:
    """Point the sandbox at a copy of the toolkit without office-recalc (the formula check cannot run)."""
    toolkit = tmp_path / "toolkit"
    shutil.copytree(TOOLKIT_BIN, toolkit, ignore=shutil.ignore_patterns("office-recalc"))
    sandbox.toolkit_dir = str(toolkit)


def test_missing_toolkit_is_a_fact_not_a_finding(recalculated_book, sandbox, tmp_path):
    stale = tmp_path / "stale.xlsx"
    with_cached_value(recalculated_book, stale, "B4", "99")
    path = deliver(sandbox, stale, "sales.xlsx")
    without_recalc(sandbox, tmp_path)

    result = pregate_of(sandbox, path)

    assert result.findings == []
    recalc = result.facts[0]["formula_recalc"]
    assert recalc["status"] == "could_not_check"
    assert recalc["reason"] == "the office toolkit (office-recalc) is not installed"


@pytest.mark.slow
def test_total_whose_range_stops_short_of_a_data_row_is_noted(sandbox, tmp_path):
    path = Path(sandbox.home) / "costs.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Costs"
    ws.append(["Month", "Cost", "Running"])
    for row in range(2, 8):
        ws.append([f"m{row}", row * 10, f"=SUM(B$2:B{row})"])  # running totals end on their own row
    ws["A8"], ws["B8"] = "Total", "=SUM(B2:B6)"  # skips B7, the last data row
    ws["D2"], ws["E2"] = "=AVERAGE(B2:B3,B5:B7)", "=SUM(B2:B7)"  # skips B4; complete
    wb.save(tmp_path / "uncached.xlsx")
    with_zero_caches(tmp_path / "uncached.xlsx", path)
    without_recalc(sandbox, tmp_path)

    result = pregate_of(sandbox, path)

    assert result.findings == []
    recalc = result.facts[0]["formula_recalc"]
    assert recalc["ranges_stopping_short"] == [
        {"cell": "Costs!B8", "formula": "=SUM(B2:B6)", "left_out": ["B7"]},
        {"cell": "Costs!D2", "formula": "=AVERAGE(B2:B3,B5:B7)", "left_out": ["B4"]},
    ]
    assert any("Costs!B8 =SUM(B2:B6) leaves out B7" in note for note in result.notes)


@pytest.mark.slow
def test_workbook_without_formulas_is_not_recalculated(sandbox):
    path = Path(sandbox.home) / "plain.xlsx"
    wb = openpyxl.Workbook()
    wb.active.append(["x", 1])
    wb.save(path)

    result = pregate_of(sandbox, path)

    recalc = result.facts[0]["formula_recalc"]
    assert result.findings == [] and recalc["status"] == "nothing_to_check" and recalc["formula_cells"] == 0
    assert "not a problem unless the task asks for formulas" in recalc["scope"]


@pytest.mark.apps
def test_stale_ods_value_fails(sandbox):
    path = Path(sandbox.home) / "costs.ods"
    with zipfile.ZipFile(path, "w") as ods:
        ods.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        ods.writestr("META-INF/manifest.xml", ODS_MANIFEST)
        ods.writestr("content.xml", ODS_CONTENT)

    result = pregate_of(sandbox, path)

    [finding] = result.findings
    assert finding.evidence == "Costs!C1 of:=[.A1]*[.B1]: saved 21, recalculated 20"


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
