"""Cost of the pre-gate's formula consistency check on a small workbook.

    PYTHONPATH=. python benchmarks/gate_recalc.py [rows] [repeats]

Writes a workbook of `rows` rows with one formula each plus a total, recalculates it once
with office-recalc, then times `formula_consistency` (copy, LibreOffice recalculation,
comparison) on a LocalSandbox. Last line: key=value pairs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openpyxl

from stateact.gate.inspect.pregate import formula_consistency
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.toolkit import TOOLKIT_BIN


def main(rows: int = 50, repeats: int = 3) -> None:
    with tempfile.TemporaryDirectory() as root:
        sandbox = LocalSandbox(Path(root) / "home")
        sandbox.start()
        try:
            path = Path(sandbox.home) / "book.xlsx"
            wb = openpyxl.Workbook()
            ws = wb.active
            for row in range(1, rows + 1):
                ws.append([row, row * 2, f"=A{row}*B{row}"])
            ws.append(["", "", f"=SUM(C1:C{rows})"])
            wb.save(path)
            subprocess.run([sys.executable, str(TOOLKIT_BIN / "office-recalc"), str(path)], check=True)
            seconds, fact = [], {}
            for _ in range(repeats):
                fact = {"path": str(path), "resolved": str(path)}
                started = time.perf_counter()
                findings = formula_consistency(sandbox, fact)
                seconds.append(time.perf_counter() - started)
                print(f"check {seconds[-1]:.2f}s findings={len(findings)} {fact['formula_recalc']['status']}")
        finally:
            sandbox.close()
    print(
        f"rows={rows} formulas={fact['formula_recalc'].get('compared')} repeats={repeats} "
        f"median_s={statistics.median(seconds):.2f} max_s={max(seconds):.2f}"
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
