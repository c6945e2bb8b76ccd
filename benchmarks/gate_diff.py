"""Cost and size of the gate's state diff: baseline, diff and its tokens for a mid-sized workbook.

    PYTHONPATH=. python benchmarks/gate_diff.py [rows] [changed_cells]

Builds a home folder with a 1,000-row, 10-column workbook, takes the baseline on a LocalSandbox,
changes 10 cells, and times the diff the gate reads. Last line: key=value pairs.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openpyxl  # noqa: E402

from stateact.gate.inspect.changes import describe_changes, take_baseline  # noqa: E402
from stateact.kernel.context.token_counter import counter  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402

COLUMNS = 10


def write_book(path: Path, rows: int) -> None:
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Data"
    ws.append([f"col{c}" for c in range(COLUMNS)])
    for row in range(rows):
        ws.append([row * COLUMNS + c for c in range(COLUMNS - 1)] + [f"=SUM(A{row + 2}:I{row + 2})"])
    book.save(path)


def change_cells(path: Path, count: int, rows: int) -> None:
    book = openpyxl.load_workbook(path)
    for index in range(count):
        book["Data"].cell(2 + index * (rows // count), 2).value = -1
    book.save(path)


def main(rows: int = 1000, changed: int = 10) -> None:
    with tempfile.TemporaryDirectory() as root:
        with LocalSandbox(Path(root) / "home") as sandbox:
            book = Path(sandbox.home) / "Documents" / "book.xlsx"
            book.parent.mkdir()
            write_book(book, rows)
            log = RunLog(Path(root) / "run")
            started = time.perf_counter()
            take_baseline(sandbox, log.run_dir, f"Fix the values in {book}.", log, task_started_at=None)
            baseline_s = time.perf_counter() - started
            change_cells(book, changed, rows)
            started = time.perf_counter()
            text = describe_changes(sandbox, log.run_dir, log, "gate#1")
            diff_s = time.perf_counter() - started
            log.close()
        tokens = counter().text(text)
        print(text)
        print(f"workbook: {rows} rows x {COLUMNS} columns, {changed} cells changed")
        print(f"baseline_s={baseline_s:.2f} diff_s={diff_s:.2f} diff_chars={len(text)} diff_tokens={tokens}")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
