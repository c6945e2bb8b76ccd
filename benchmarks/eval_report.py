"""Time to collect metrics and write the HTML report for a large results folder.

Writes 6 harnesses x 18 tasks of long synthetic runs (150 main steps, a GUI
delegation with 20 screenshot steps, a compaction and a gate round each) through
RunLog and OSWorld's results writer, then times `collect_metrics` and
`write_html_report`. The last line prints key=value figures.
"""

from __future__ import annotations

import io
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image  # noqa: E402

from stateact.evals.reports.html_report import write_html_report  # noqa: E402
from stateact.evals.reports.task_metrics import collect_metrics  # noqa: E402
from stateact.evals.running.jobs import RUN_FOLDER  # noqa: E402
from stateact.evals.running.results import task_result_dir, write_results  # noqa: E402
from stateact.gate.events import GateVerdict  # noqa: E402
from stateact.kernel.events import Compaction, MessageEvent, Response, RunStart, ToolCall, ToolResultEvent  # noqa: E402
from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, Usage  # noqa: E402
from stateact.kernel.roles import role_of_scope  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402

HARNESSES = ("stateact", "pixel", "bash-only", "no-act", "no-verify", "no-sustain")
DOMAINS = ("calc", "writer", "impress", "web", "multi", "desktop")
TASKS_PER_DOMAIN = 3
MAIN_STEPS = 150
GUI_STEPS = 20


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 200), "navy").save(out, "PNG")
    return out.getvalue()


def _step(log: RunLog, scope: str, number: int, image: bytes | None) -> None:
    call_id = f"call{number}"
    log.emit(
        Response(
            scope=scope, role=role_of_scope(scope), turn=number, usage=Usage(input_tokens=900), usd=0.001
        )
    )
    log.emit(
        MessageEvent(
            scope=scope, message=Message(role="assistant", content=[TextBlock(text=f"step {number}")])
        )
    )
    log.emit(ToolCall(scope=scope, id=call_id, name="bash", input={"command": f"echo {number}"}))
    log.emit(ToolResultEvent(scope=scope, id=call_id, name="bash", text=f"{number}\n" * 20))
    content = [TextBlock(text=f"{number}\n" * 20)] + ([ImageBlock.from_bytes(image)] if image else [])
    message = Message(role="user", content=[ToolResultBlock(tool_use_id=call_id, content=content)])
    log.emit(log.message_event(message, scope))


def write_run(results: Path, harness: str, domain: str, task_id: str, image: bytes) -> None:
    task_dir = task_result_dir(results, harness, "bench", domain, task_id)
    log = RunLog(task_dir / RUN_FOLDER)
    log.emit(RunStart(instruction="a long task", harness=harness))
    for number in range(1, MAIN_STEPS + 1):
        _step(log, "main", number, None)
        if number == MAIN_STEPS // 2:
            log.emit(ToolCall(id="delegation", name="delegate_gui", input={"subgoal": "drag"}))
            for inner in range(1, GUI_STEPS + 1):
                _step(log, "gui#1", inner, image)
            log.emit(ToolResultEvent(id="delegation", name="delegate_gui", text="done"))
            log.emit(
                Compaction(summary="summary " * 100, replaced=0, tokens_before=150_000, tokens_after=20_000)
            )
    log.emit(GateVerdict(scope="gate#1", passed=True, round=1, source="model", summary="ok"))
    log.write_json("result.json", {"status": "finished", "usd": 0.5, "seconds": 600.0, "spend": {}})
    log.close()
    parts = [{"func": "check_cell", "score": float(i % 3 != 0)} for i in range(27)]
    write_results(task_dir, task_dir / RUN_FOLDER, 0.0, {"conj": "and", "parts": parts})


def main() -> None:
    image = _png()
    with tempfile.TemporaryDirectory(prefix="stateact-report-bench-") as folder:
        results = Path(folder)
        for harness in HARNESSES:
            for domain in DOMAINS:
                for index in range(TASKS_PER_DOMAIN):
                    write_run(results, harness, domain, f"{domain}-{index}", image)
        runs = len(HARNESSES) * len(DOMAINS) * TASKS_PER_DOMAIN
        started = time.perf_counter()
        metrics = collect_metrics(results)
        collect_s = time.perf_counter() - started
        started = time.perf_counter()
        index = write_html_report(results)
        report_s = time.perf_counter() - started
        pages = list((index.parent / "tasks").iterdir())
        page_kb = sum(p.stat().st_size for p in pages) / len(pages) / 1024
        assert len(metrics) == runs == len(pages)
        print(
            f"{runs} runs of {MAIN_STEPS + GUI_STEPS} steps: metrics {collect_s:.2f}s, report {report_s:.2f}s"
        )
        print(
            f"runs={runs} collect_s={collect_s:.2f} report_s={report_s:.2f} "
            f"ms_per_page={1000 * report_s / runs:.1f} page_kb={page_kb:.0f}"
        )


if __name__ == "__main__":
    main()
