"""Cells named in an instruction, resolved on the sheets its sentences name, read from a real workbook."""

from __future__ import annotations

import json
import time
from pathlib import Path

import openpyxl
import pytest

from stateact.gate.inspect.cell_refs import cell_references
from stateact.gate.inspect.probes import run_probe
from stateact.gate.review import FinishGate
from stateact.gate.settings import GATE_NAMED_CELLS_MAX
from tests.test_gate import make_context, verdict

pytest_plugins = ["tests.support.gate_fixtures"]

STOCK = [("Item", "Qty", "Value")] + [(f"item{i}", i, i * 10) for i in range(1, 11)]

PARSED = [
    ('Add a second sheet named Summary with "Total value" in A1.', [("A1", ("Summary",))]),
    ('On the Summary sheet, write "Total" in A1.', [("A1", ("Summary",))]),
    ("Put the total in Summary!B2 and 'My Sheet'!C3.", [("B2", ("Summary",)), ("C3", ("My Sheet",))]),
    ("In the 'Q3 Data' tab, B2 should hold the revenue.", [("B2", ("Q3 Data",))]),
    ('Create a worksheet called "Totals" and put =SUM(Stock!C2:C11) in B2.', [("C2:C11", ("Stock",)), ("B2", ("Totals",))]),
    ("Copy the values from the Stock sheet into B2 of the Summary sheet.", [("B2", ("Summary",))]),
    ("Set A1 on Sheet2 to 'Name'.", [("A1", ("Sheet2",))]),
    ("Put 5 in C3.", [("C3", ())]),
    ("In the Summary tab put X in A1. In the Data worksheet put Y in B2.", [("A1", ("Summary",)), ("B2", ("Data",))]),
    ("Add sheet Report and fill A1:C1 with headers.", [("A1:C1", ("Report",))]),
    ("The data sheet has the numbers; compute the mean in E2.", [("E2", ())]),
    ("Copy from the Stock sheet to the Summary sheet, starting at B2.", [("B2", ("Stock", "Summary"))]),
    ("Rename the tab to “Q4 plan” and bold A1.", [("A1", ("Q4 plan",))]),
    ("Put the sum in D6, not in SUM(x) or $D$6.", [("D6", ())]),
    ("Average the assessment columns A1 to A4 into the Final column, from F2 down.", [("F2", ())]),
    ("Name the best quarter (Q1 to Q4) in B9, and chart Q1:Q4 of the Data sheet.", [("B9", ("Data",)), ("Q1:Q4", ("Data",))]),
    ("Put 'A1' as the header of C1.", [("C1", ())]),
    ("Write the Q3 total in Q3.", [("Q3", ())]),
    ("Prepare the Q4 2024 sales review and put the total in B2.", [("B2", ())]),
    ("Audit ~/audit/expenses_2024-Q4.xlsx and /data/A1/notes.txt; put the total in B2.", [("B2", ())]),
    ("Save it as report_B7.docx, with the total in C3.", [("C3", ())]),
    ("One record per budget line with Line (e.g. L1) and Actual. Total in B2.", [("B2", ())]),
    ("Budget lines L1, L2 and L3 go in C4:C6; codes such as AB12 stay.", [("C4:C6", ())]),
]  # fmt: skip


@pytest.mark.parametrize(("instruction", "expected"), PARSED)
def test_cells_get_the_sheets_their_sentence_names(instruction, expected):
    assert [(r.cells, r.sheets) for r in cell_references(instruction)] == expected


@pytest.fixture
def book(sandbox) -> str:
    path = Path(sandbox.home) / "stock.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "Stock"
    for row in STOCK:
        wb.active.append(row)
    summary = wb.create_sheet("Summary")
    summary["A1"], summary["B1"] = "Total value", 550
    wb.save(path)
    return str(path)


def shown(sandbox, path: str, instruction: str) -> list[dict]:
    refs = [ref.as_probe_arg() for ref in cell_references(instruction)]
    return run_probe(sandbox, "named_cells", path=path, refs=refs, limit=GATE_NAMED_CELLS_MAX)["refs"]


def values(group: dict) -> list[tuple[str, object]]:
    return [(cell["cell"], cell["value"]) for cell in group["cells"]]


RESOLVED = [
    ('…a second sheet named Summary with "Total value" in A1 and the sum in B1.',
     [[("Summary!A1", "Total value")], [("Summary!B1", 550)]]),
    ('On the Summary sheet, write "Total value" in A1.', [[("Summary!A1", "Total value")]]),
    ("Put 'Total value' in Summary!A1.", [[("Summary!A1", "Total value")]]),
    ("In the 'Summary' tab, A1 should read Total value.", [[("Summary!A1", "Total value")]]),
    ("In the worksheet named summary, A1 says Total value.", [[("Summary!A1", "Total value")]]),
    ("Copy the header from the Stock sheet into A1 of the Summary sheet.", [[("Summary!A1", "Total value")]]),
    ("In the Stock sheet, check A1; in the Summary sheet, check A1.",
     [[("Stock!A1", "Item")], [("Summary!A1", "Total value")]]),
    ('Create a worksheet called "Summary" and put =SUM(Stock!C2:C4) in B1.',
     [[("Stock!C2", 10), ("Stock!C3", 20), ("Stock!C4", 30)], [("Summary!B1", 550)]]),
    ("Put the header in A1.", [[("Stock!A1", "Item"), ("Summary!A1", "Total value")]]),
    ("Copy from the Stock sheet to the Summary sheet, starting at B1.", [[("Stock!B1", "Qty"), ("Summary!B1", 550)]]),
]  # fmt: skip


@pytest.mark.parametrize(("instruction", "expected"), RESOLVED)
def test_named_cells_are_read_on_the_named_sheet(sandbox, book, instruction, expected):
    assert [values(group) for group in shown(sandbox, book, instruction)] == expected


@pytest.mark.slow
def test_unnamed_or_missing_sheets_say_so_and_show_every_candidate(sandbox, book):
    [unnamed] = shown(sandbox, book, "Put the header in A1.")
    assert "no sheet is named for it" in unnamed["note"] and "each of the 2 sheets" in unnamed["note"]
    [missing] = shown(sandbox, book, "Add a sheet named Totals with the sum in B2.")
    assert (
        "names sheet 'Totals', which the workbook does not have (its sheets: Stock, Summary)"
        in missing["note"]
    )
    assert values(missing) == [("Stock!B2", 1), ("Summary!B2", None)]
    [explicit] = shown(sandbox, book, "Put 5 in Sheet3!B3.")
    assert "'Sheet3'" in explicit["note"] and len(explicit["cells"]) == 2
    [several] = shown(sandbox, book, "Copy from the Stock sheet to the Summary sheet at B1.")
    assert "names several sheets" in several["note"]
    [named] = shown(sandbox, book, 'On the Summary sheet, write "Total value" in A1.')
    assert "note" not in named and "more" not in named


@pytest.mark.slow
def test_truncated_cells_say_how_many_more(sandbox, book):
    big, after = shown(
        sandbox, book, "List the stock in A1:C40 of the Stock sheet. Then sum it in Summary!B1."
    )
    assert len(big["cells"]) == GATE_NAMED_CELLS_MAX and big["more"].startswith(
        f"... and {120 - GATE_NAMED_CELLS_MAX} more cells"
    )
    assert big["cells"][0] == {"cell": "Stock!A1", "value": "Item"}
    assert after["cells"] == [] and after["more"].startswith("... and 1 more cells")
    [ambiguous] = shown(sandbox, book, "Check A1:A50.")  # 2 sheets x 50 cells
    assert len(ambiguous["cells"]) == GATE_NAMED_CELLS_MAX and ambiguous["more"].startswith(
        "... and 40 more cells"
    )


@pytest.mark.slow
def test_the_gate_request_shows_the_cell_on_the_sheet_the_task_names(tmp_path, sandbox, book):
    task = f'In {book}, add a second sheet named Summary with "Total value" in A1 and the total value in B1.'
    context = make_context(tmp_path, sandbox, task, [verdict(True, summary="ok")])
    result = FinishGate(context, task_started_at=time.time() - 60).review()
    assert result.passed
    first = context.provider("gate").requests[0].messages[0].text()
    facts = next(json.loads(line) for line in first.splitlines() if "cells_named_in_the_instruction" in line)
    groups = facts["cells_named_in_the_instruction"]
    assert [values(g) for g in groups] == [[("Summary!A1", "Total value")], [("Summary!B1", 550)]]
    assert "Stock!A1" not in first


@pytest.mark.slow
def test_the_spreadsheet_probe_counts_the_cells_it_leaves_out(sandbox, book):
    ranged = run_probe(sandbox, "spreadsheet", path=book, sheet="Stock", cells="A1:C40", max_cells=10)
    assert (
        len(ranged["cells"]) == 10 and ranged["truncated"] and ranged["more"].startswith("... and 110 more")
    )
    whole = run_probe(sandbox, "spreadsheet", path=book, sheet="Stock", max_cells=10)  # 33 non-empty cells
    assert len(whole["cells"]) == 10 and whole["more"].startswith("... and 23 more")
    complete = run_probe(sandbox, "spreadsheet", path=book, sheet="Summary", max_cells=10)
    assert not complete["truncated"] and "more" not in complete
