"""What the terminal shows: `eval run`'s progress line (ETA, spend, mean partial score) and the failed
checkpoints under a job's line, complete tables when the output is not a terminal, and a line while a
model thinks."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from stateact.app.progress import ProgressPrinter
from stateact.evals.plain_table import plain_table, print_table
from stateact.evals.running.jobs import JobOutcome, SuiteJob
from stateact.evals.running.results import RUN_FOLDER
from stateact.evals.running.suite import SuiteTask
from stateact.evals.running.suite_progress import SuiteProgress
from stateact.kernel.events import Request, Response, RunEnd

WIDE = ["harness", "model", "domain", "a column with a long header", "another long header", "and one more"]


def finished_job(
    folder: Path, task_id: str, score: float, partial: float, usd: float, parts: list
) -> JobOutcome:
    (folder / RUN_FOLDER).mkdir(parents=True)
    (folder / RUN_FOLDER / "result.json").write_text(json.dumps({"usd": usd, "status": "finished"}))
    (folder / "score.json").write_text(json.dumps({"score": score, "partial": partial, "parts": parts}))
    job = SuiteJob(SuiteTask(folder / f"{task_id}.json", None, "calc"), "bash-only")
    return JobOutcome(job, folder, score=score, seconds=12.5)


def test_progress_counts_spend_and_mean_partial_and_prints_failed_checkpoints(tmp_path):
    out = io.StringIO()
    wrong = {
        "func": "compare_table",
        "name": "compare_table sheet_data on stock.xlsx",
        "score": 0.0,
        "explanation": [{"summary": "sheet_data …: does not hold", "differences": ["Stock!D6: 1 → 122.5"]}],
    }
    right = {"func": "exact_match", "name": "exact_match on echo", "score": 1.0}
    progress = SuiteProgress(Console(file=out, width=200), total=3)
    columns = [type(column).__name__ for column in progress.progress.columns]
    assert "TimeRemainingColumn" in columns
    with progress:
        first = finished_job(tmp_path / "a", "a", 0.0, 0.5, 0.01, [wrong, right])
        second = finished_job(tmp_path / "b", "b", 1.0, 1.0, 0.02, [right])
        for outcome in (first, second):
            progress.on_job("start", outcome.job, None)
            progress.on_job("end", outcome.job, outcome)
        assert progress.so_far() == "$0.0300 spent, mean partial 75%"
        assert progress.progress.tasks[0].fields["so_far"] == progress.so_far()
    printed = out.getvalue()
    assert "0.00 bash-only/calc/a (12.5s wall)" in printed
    assert "failed compare_table sheet_data on stock.xlsx: Stock!D6: 1 → 122.5" in printed
    assert "1.00 bash-only/calc/b" in printed and "exact_match on echo" not in printed


def test_a_table_is_whole_when_the_output_is_not_a_terminal():
    rows = [["stateact", "anthropic:claude-sonnet-4-5", "libreoffice_calc", "12.5", "3,456,789", "100.0%"]]
    table = Table(title="Harness comparison")
    for header in WIDE:
        table.add_column(header)
    table.add_row(*rows[0])
    piped = io.StringIO()
    print_table(Console(file=piped, width=80), table, WIDE, rows)
    lines = piped.getvalue().splitlines()
    assert lines[0] == "Harness comparison" and max(map(len, lines)) > 80
    assert (
        lines[1]
        == "| " + " | ".join(f"{h:<{max(len(h), len(c))}}" for h, c in zip(WIDE, rows[0], strict=True)) + " |"
    )
    assert "| stateact | anthropic:claude-sonnet-4-5 | libreoffice_calc |" in lines[3]
    terminal = io.StringIO()
    print_table(Console(file=terminal, width=80, force_terminal=True, color_system=None), table, WIDE, rows)
    assert max(map(len, terminal.getvalue().splitlines())) <= 80


def test_plain_table_pads_columns_to_their_widest_cell():
    assert plain_table(["a", "bb"], [["xxx", "y"]]).splitlines() == [
        "| a   | bb |",
        "|-----|----|",
        "| xxx | y  |",
    ]


@pytest.mark.slow
def test_a_line_tells_a_model_is_thinking_once_it_takes_longer_than_the_notice(tmp_path):
    out = io.StringIO()
    printer = ProgressPrinter(Console(file=out, width=200), thinking_after_s=0.3)
    printer(Request(scope="main"))
    printer(Response(scope="main", turn=1))  # a quick answer: no notice
    printer(Request(scope="gui#1"))
    time.sleep(1.0)
    printer(Response(scope="gui#1", turn=1))
    printer(Request(scope="main"))
    printer(RunEnd(status="finished"))  # the run's end ends every wait
    time.sleep(0.6)
    lines = [line for line in out.getvalue().splitlines() if "thinking" in line]
    assert len(lines) == 1 and lines[0].startswith("gui#1 thinking… (") and "without an answer" in lines[0]
