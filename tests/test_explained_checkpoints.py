"""Explained checkpoints: what each metric compared, noted beside its unchanged score, and the
checkpoint's readable name and inputs in score.json."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy
import openpyxl
import pytest
from docx import Document
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.evals.osworld.metrics.docs import compare_docx_files
from stateact.evals.osworld.metrics.explain import change, collect, explanation_text, note
from stateact.evals.osworld.metrics.table import compare_table
from stateact.evals.osworld.metrics.text import (
    check_include_exclude,
    compare_csv,
    diff_text_file,
    exact_match,
)
from stateact.evals.osworld.scoring import checkpoint_name, preview
from stateact.evals.osworld.task import Getter
from stateact.evals.reports.task_metrics import collect_metrics
from tests.support.file_server import served_files
from tests.test_eval_errors import run_task_command
from tests.test_eval_runner import run_cli

STOCK = [["SKU", "Item", "Qty", "Value"], ["A1", "Pen", 3, 4.5], ["A2", "Ink", 10, 20.0]]
STOCK += [["A3", "Pad", 2, 7.0], ["A4", "Glue", 6, 9.0], ["A5", "Tape", 5, 122.5]]
SHEET_DATA = {"rules": [{"type": "sheet_data", "sheet_idx0": "RNStock", "sheet_idx1": "ENStock"}]}


def stock_book(path, wrong: dict[str, object] | None = None):
    """A Stock sheet (D6 holds 122.5), with `wrong` cells overwritten."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Stock"
    for row in STOCK:
        sheet.append(row)
    for coordinate, value in (wrong or {}).items():
        sheet[coordinate] = value
    book.save(path)
    return str(path)


def explained(metric, *args, **options) -> tuple[float, str]:
    with collect() as notes:
        score = metric(*args, **options)
    return score, explanation_text(notes)


def test_a_note_outside_collect_is_dropped_and_never_computes_its_differences():
    def never():
        raise AssertionError("computed")

    note("nobody listens", never)
    with collect() as notes:
        note("listened", lambda: iter(["a", "b"]))
    assert notes == [{"summary": "listened", "differences": ["a", "b"]}]


def test_differences_that_raise_are_reported_not_raised_and_long_lists_are_capped():
    def broken():
        yield "first"
        raise ValueError("torn")

    with collect() as notes:
        note("broken", broken)
        note("many", [str(n) for n in range(20)])
    assert notes[0]["differences"][-1].startswith("(the differences could not be listed: ValueError: torn")
    assert len(notes[1]["differences"]) == 8 and notes[1]["more"] == 12
    assert "… and 12 more" in explanation_text(notes)


def test_sheet_data_names_the_cell_with_the_observed_and_expected_value(tmp_path):
    wrong = stock_book(tmp_path / "wrong.xlsx", {"D6": 1})
    right = stock_book(tmp_path / "right.xlsx")
    assert compare_table(wrong, right, **SHEET_DATA) == 0.0  # no collector: the score alone
    score, text = explained(compare_table, wrong, right, **SHEET_DATA)
    assert score == 0.0
    assert text == "sheet_data Stock (result) against Stock (expected): does not hold\n  Stock!D6: 1 → 122.5"
    assert explained(compare_table, right, right, **SHEET_DATA) == (1.0, "")


def test_sheet_data_reports_header_shape_and_type_differences(tmp_path):
    right = stock_book(tmp_path / "right.xlsx")
    renamed = stock_book(tmp_path / "renamed.xlsx", {"C1": "Count"})
    shorter = stock_book(tmp_path / "shorter.xlsx", {"A6": None, "B6": None, "C6": None, "D6": None})
    typed = stock_book(tmp_path / "typed.xlsx", {"C2": 3.00001})
    assert "Stock!C1: Count → Qty" in explained(compare_table, renamed, right, **SHEET_DATA)[1]
    assert "Stock: 4 rows × 4 columns → 5 × 4" in explained(compare_table, shorter, right, **SHEET_DATA)[1]
    typed_text = explained(compare_table, typed, right, **SHEET_DATA)[1]
    assert "Stock!C: values equal, types float64 → int64" in typed_text
    assert change("Stock!C2", "3", numpy.int64(3)) == "Stock!C2: 3 (str) → 3 (int)"


def test_check_cell_fuzzy_style_and_sheet_names_say_what_failed(tmp_path):
    wrong = stock_book(tmp_path / "wrong.xlsx", {"D6": 1, "B2": "Pencil"})
    right = stock_book(tmp_path / "right.xlsx")
    cell = {"type": "check_cell", "sheet_idx": "RNStock", "coordinate": "D6"}
    cell["props"] = {"value": {"method": "eq", "ref": 122.5}}
    assert explained(compare_table, wrong, right, rules=[cell])[1].splitlines() == [
        "check_cell Stock (result)!D6: does not hold",
        "  Stock!D6 value: 1 → eq 122.5",
    ]
    fuzzy = {"type": "sheet_fuzzy", "sheet_idx0": "RNStock", "sheet_idx1": "ENStock"}
    fuzzy["rules"] = [{"range": ["B2:B6"], "type": "exact_match"}]
    assert (
        "  Stock!B2 (exact_match): Pencil → Pen" in explained(compare_table, wrong, right, rules=[fuzzy])[1]
    )
    book = openpyxl.load_workbook(right)
    book["Stock"]["A1"].font = openpyxl.styles.Font(bold=True)
    book.save(tmp_path / "bold.xlsx")
    style = {"type": "style", "sheet_idx0": "RNStock", "sheet_idx1": "ENStock", "props": ["font_bold"]}
    style_text = explained(compare_table, str(tmp_path / "bold.xlsx"), right, rules=[style])[1]
    assert "Stock!A1 font_bold: True → False" in style_text
    names = {"type": "sheet_name"}
    book = openpyxl.load_workbook(right)
    book.create_sheet("Notes")
    book.save(tmp_path / "two.xlsx")
    assert (
        "sheet names: Stock, Notes → Stock"
        in explained(compare_table, str(tmp_path / "two.xlsx"), right, rules=[names])[1]
    )
    missing = explained(compare_table, str(tmp_path / "absent.xlsx"), right, **SHEET_DATA)
    assert missing == (0.0, f"the result workbook {tmp_path / 'absent.xlsx'} does not exist")


def test_a_document_names_its_first_differing_paragraph(tmp_path):
    def document(name, paragraphs):
        doc = Document()
        for text in paragraphs:
            doc.add_paragraph(text)
        doc.save(tmp_path / name)
        return str(tmp_path / name)

    ours = document("ours.docx", ["Memo", "", "The launch is on  Tuesday."])
    theirs = document("theirs.docx", ["Memo", "The launch is on Monday."])
    score, text = explained(compare_docx_files, ours, theirs)
    assert score == compare_docx_files(ours, theirs) == 0.0
    assert "paragraph 2: The launch is on Tuesday. → The launch is on Monday." in text
    strict = explained(compare_docx_files, ours, theirs, ignore_blanks=False)[1]
    assert "3 paragraphs → 2 paragraphs" not in strict and "paragraph 2: (empty)" not in strict
    assert "paragraph 2: '' → The launch is on Monday." in strict


def test_csv_and_text_files_name_their_first_differing_line(tmp_path):
    (tmp_path / "out.csv").write_text("name,qty\npen,3\nink,4\n")
    (tmp_path / "gold.csv").write_text("name,qty\npen,3\nink,5\n")
    (tmp_path / "short.csv").write_text("name,qty\npen,3\n")
    ours, gold, short = (str(tmp_path / n) for n in ("out.csv", "gold.csv", "short.csv"))
    assert explained(compare_csv, ours, gold) == (0.0, "out.csv against gold.csv\n  line 3: ink,4 → ink,5")
    assert explained(compare_csv, short, gold)[1].endswith("2 lines → 3 lines")
    ratio, text = explained(diff_text_file, ours, gold)
    assert ratio == diff_text_file(ours, gold) < 1.0 and "line 3: ink,4 → ink,5" in text


def test_string_metrics_show_the_observed_and_expected_text():
    assert explained(exact_match, "NW-1001", {"expected": "NW-1000"}) == (
        0.0,
        "the observed text is not the expected one\n  text: NW-1001 → NW-1000",
    )
    score, text = explained(check_include_exclude, "total 12 EUR", {"include": ["13"], "exclude": ["EUR"]})
    assert score == 0.0
    assert text.splitlines() == [
        "observed text: total 12 EUR",
        "  missing: 13",
        "  present, but excluded: EUR",
    ]


@pytest.mark.parametrize(
    ("func", "options", "getter", "name"),
    [
        (
            "compare_table",
            SHEET_DATA,
            {"type": "vm_file", "path": "/home/user/a/stock.xlsx"},
            "compare_table sheet_data on stock.xlsx",
        ),
        (
            "exact_match",
            {},
            {"type": "vm_command_line", "command": "cat ~/id.txt"},
            "exact_match on cat ~/id.txt",
        ),
        ("compare_csv", {}, None, "compare_csv"),
    ],
)
def test_a_checkpoint_is_named_by_metric_rules_and_target(func, options, getter, name):
    assert checkpoint_name(func, options, Getter(**getter) if getter else None) == name


def test_inputs_are_previewed_readably_never_as_a_python_repr():
    assert preview({"expected": "NW-1000 Ink"}) == "expected: NW-1000 Ink"
    assert preview({"include": ["a", "b"], "exclude": []}) == 'include: ["a", "b"]; exclude: []'
    assert preview(None) == "(none)" and preview(["x.csv", "y.csv"]) == "x.csv, y.csv"


@pytest.mark.slow
# -- end to end: `stateact run --task`, score.json, `stateact report` ---------------------------
def test_a_wrong_cell_is_named_in_score_json_the_report_and_the_run_output(tmp_path):
    """The inventory task with Stock!D6 holding 1 where 122.5 is due, run from a `tasks/` folder."""
    files = {
        "/start/stock.xlsx": Path(stock_book(tmp_path / "start.xlsx", {"D6": 1})).read_bytes(),
        "/gold/stock.xlsx": Path(stock_book(tmp_path / "gold.xlsx")).read_bytes(),
    }
    with served_files(files) as server:
        task = tmp_path / "tasks" / "calc-inventory.json"
        task.parent.mkdir()
        book = {"type": "vm_file", "path": "/home/user/stock.xlsx", "dest": "stock.xlsx"}
        download = {"url": server.url("/start/stock.xlsx"), "path": "/home/user/stock.xlsx"}
        task.write_text(
            json.dumps(
                {
                    "id": "calc-inventory",
                    "instruction": "Value the stock.",
                    "related_apps": ["libreoffice_calc"],
                    "config": [{"type": "download", "parameters": {"files": [download]}}],
                    "evaluator": {
                        "func": ["compare_table", "exact_match"],
                        "result": [book, {"type": "vm_command_line", "command": "echo NW-1001"}],
                        "expected": [
                            {
                                "type": "cloud_file",
                                "path": server.url("/gold/stock.xlsx"),
                                "dest": "gold.xlsx",
                            },
                            {"type": "rule", "rules": {"expected": "NW-1000"}},
                        ],
                        "options": [SHEET_DATA, {}],
                    },
                }
            )
        )
        script = tmp_path / "finish.json"
        script.write_text(json.dumps([{"tool_calls": [{"name": "finish", "input": {"summary": "valued"}}]}]))
        done = run_task_command(tmp_path, task, f"scripted:{script}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "compare_table sheet_data on stock.xlsx: Stock!D6: 1 → 122.5" in done.stdout
    [score_file] = (tmp_path / "results").rglob("score.json")
    # a task outside a suite is filed under its app's domain, not its folder's name
    assert score_file.parent.relative_to(tmp_path / "results").parts[2] == "libreoffice_calc"
    parts = json.loads(score_file.read_text())["parts"]
    assert [p["name"] for p in parts] == [
        "compare_table sheet_data on stock.xlsx",
        "exact_match on echo NW-1001",
    ]
    assert parts[0]["explanation"][0]["differences"] == ["Stock!D6: 1 → 122.5"]
    assert parts[1]["inputs"] == ["NW-1001\n", "expected: NW-1000"]
    shown = CliRunner().invoke(app, ["show", str(score_file.parent)], catch_exceptions=False)
    shown_run = " ".join(shown.output.split())
    assert shown.exit_code == 0 and "finish" in shown_run, shown_run
    assert "0.00 compare_table sheet_data on stock.xlsx" in shown_run and "Stock!D6: 1 → 122.5" in shown_run
    code, output = run_cli("report", str(tmp_path / "results"))
    assert code == 0, output
    [page] = (tmp_path / "results" / "report" / "tasks").glob("*calc-inventory.html")
    checkpoints = re.search(r'<table id="checkpoints">.*?</table>', page.read_text(), re.S).group(0)
    assert "Stock!D6: 1 → 122.5" in checkpoints and "NW-1001" in checkpoints and "{'" not in checkpoints
    # the report reads the run `run --task` left under its runs root
    [metrics] = collect_metrics(tmp_path / "results")
    assert metrics.run_dir.parent == tmp_path / "runs" and metrics.status == "finished"
    assert metrics.main_turns == 1 and metrics.input_tokens > 0 and metrics.seconds > 0
    meta = re.search(r'<p class="meta">(.*?)</p>', page.read_text(), re.S).group(1)
    assert "status finished; main turns 1" in meta and "0.0s" not in meta


def test_report_on_a_folder_without_results_exits_2_and_writes_nothing(tmp_path):
    (tmp_path / "runs" / "20260101-000000-abc").mkdir(parents=True)
    code, output = run_cli("report", str(tmp_path / "runs"))
    assert code == 2 and "holds no task results" in output
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["20260101-000000-abc"]
