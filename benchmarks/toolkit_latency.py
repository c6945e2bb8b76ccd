"""Wall-clock time of the office toolkit's programs on a mid-sized workbook and document.

Builds a 1,000-row workbook with a formula per row and a 200-paragraph document, then times
each program once through a LocalSandbox (the way the agent's shell runs them). The last line
prints key=value figures (seconds).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openpyxl  # noqa: E402
from docx import Document  # noqa: E402

from stateact.sandbox.local import LocalSandbox  # noqa: E402

ROWS = 1000
PARAGRAPHS = 200
COMMANDS = {
    "xlsx_dump": "xlsx-dump book.xlsx --max-cells 50",
    "xlsx_set": "xlsx-set book.xlsx B2=5 C2=7",
    "office_recalc": "office-recalc book.xlsx",
    "docx_dump": "docx-dump report.docx",
    "docx_edit": "docx-edit report.docx --replace 'line 7 ' 'row 7 '",
    "office_convert_pdf": "office-convert report.docx pdf",
}


def make_files(home: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["n", "a", "b", "sum"])
    for row in range(2, ROWS + 2):
        sheet.append([row, row * 2, row * 3, f"=B{row}+C{row}"])
    book.save(home / "book.xlsx")
    document = Document()
    for n in range(PARAGRAPHS):
        document.add_paragraph(f"line {n} of the benchmark report")
    document.save(home / "report.docx")


def main() -> None:
    figures = {}
    with tempfile.TemporaryDirectory() as tmp, LocalSandbox(Path(tmp)) as sandbox:
        make_files(Path(sandbox.home))
        for name, command in COMMANDS.items():
            started = time.perf_counter()
            result = sandbox.run(command, timeout=300)
            figures[name] = time.perf_counter() - started
            if not result.ok:
                raise SystemExit(f"{command} failed: {result.output}")
            print(f"{command:<55} {figures[name]:6.2f} s")
    print(" ".join(f"{name}_s={seconds:.2f}" for name, seconds in figures.items()))


if __name__ == "__main__":
    main()
