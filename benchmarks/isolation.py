"""The cost of isolating the local sandbox with bubblewrap, against `--isolation none`.

Measures sandbox start-up, per-command latency in the persistent shell and for one-shot `run` commands
(and `run_read_only`, the gate shell's read-only view, where the sandbox has it), a LibreOffice cold start (`soffice --headless --convert-to pdf`) and the web subagent's
browser start (Chromium started in the sandbox and attached over CDP, or launched by Playwright on the
host; until its first blank page) inside and outside.
The last line prints key=value figures.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.sandbox.local import LocalSandbox  # noqa: E402
from stateact.subagents.browser import BrowserSession  # noqa: E402

SHELL_COMMANDS = 100
RUN_COMMANDS = 30
CONVERT = "printf 'hello\\n' > note.txt && soffice --headless --convert-to pdf note.txt >/dev/null 2>&1 && test -s note.pdf"


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def measure(isolation: str) -> dict[str, float]:
    """Start-up, median shell and run latency, and a LibreOffice cold start for one isolation mode."""
    with tempfile.TemporaryDirectory() as tmp:
        box = LocalSandbox(Path(tmp) / "home", isolation=isolation)
        started = time.perf_counter()
        box.start()
        startup = _ms(started)
        try:
            shell = box.open_shell(Path(tmp) / "scratch")
            shell_ms = []
            for _ in range(SHELL_COMMANDS):
                started = time.perf_counter()
                shell.run("echo hello", 10)
                shell_ms.append(_ms(started))
            run_ms = []
            for _ in range(RUN_COMMANDS):
                started = time.perf_counter()
                box.run("echo hello")
                run_ms.append(_ms(started))
            read_only_ms = []  # the gate shell's read-only view (isolated, root harness only)
            for _ in range(RUN_COMMANDS if box.run_read_only("true") is not None else 0):
                started = time.perf_counter()
                box.run_read_only("echo hello")
                read_only_ms.append(_ms(started))
            started = time.perf_counter()
            converted = box.run(CONVERT, timeout=180)
            office = _ms(started)
            if not converted.ok:
                raise SystemExit(f"LibreOffice conversion failed ({isolation}): {converted.output}")
            browser = BrowserSession(box)
            started = time.perf_counter()
            try:
                browser.page.goto("about:blank")
                browser_start = _ms(started)
            finally:
                browser.close()
        finally:
            box.close()
    return {
        "startup_ms": startup,
        "shell_ms": statistics.median(shell_ms),
        "run_ms": statistics.median(run_ms),
        **({"read_only_run_ms": statistics.median(read_only_ms)} if read_only_ms else {}),
        "office_cold_ms": office,
        "browser_start_ms": browser_start,
    }


def main() -> None:
    bwrap, plain = measure("bwrap"), measure("none")
    for name, figures in (("bwrap", bwrap), ("none", plain)):
        print(name, " ".join(f"{key}={value:.1f}" for key, value in figures.items()))
    print(
        " ".join(
            f"{mode}_{key}={value:.1f}"
            for mode, f in (("bwrap", bwrap), ("none", plain))
            for key, value in f.items()
        )
        + f" shell_ratio={bwrap['shell_ms'] / plain['shell_ms']:.2f} run_ratio={bwrap['run_ms'] / plain['run_ms']:.2f}"
    )


if __name__ == "__main__":
    main()
