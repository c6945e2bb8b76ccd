"""The finish gate's accuracy on the corpus of right and wrong deliverables (evals/authoring/gate_corpus/).

    PYTHONPATH=. python benchmarks/gate_accuracy.py [--cases ID,ID] [--model SPEC] [--workers N] [--out DIR]

Each case is staged as a run would be (evals/authoring/gate_corpus.py: the task's setup on a fresh local
sandbox, the gate's baseline, the case's steps); then the pre-gate alone judges it, and with
`--model` (e.g. `relay:DIR` or `anthropic:MODEL`) the full FinishGate does too, with that model in
the gate role. Per case: expected and actual verdicts. Last line: key=value pairs (catch rate =
wrong deliverables failed / wrong ones; false-fail rate = correct ones failed / correct ones; an
undecided gate counts in neither, but in `gate_undecided`). Run folders stay in `--out`.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.evals.authoring.gate_corpus import (  # noqa: E402
    GateCase,
    gate_verdict,
    load_cases,
    pregate_verdict,
    rates,
    staged_case,
)
from stateact.evals.fixtures.build import build_fixtures  # noqa: E402


@dataclass
class Row:
    case: GateCase
    pregate: str = "error"
    gate: str = "-"
    seconds: float = 0.0
    error: str = ""


def judge(case: GateCase, out: Path, cache: Path, model: str | None) -> Row:
    """Stage one case and judge it; a case that cannot be staged is a row with its error."""
    row = Row(case)
    started = time.monotonic()
    try:
        with staged_case(case, out / case.id, cache, gate_model=model) as staged:
            row.pregate = pregate_verdict(staged)
            if model:
                row.gate = gate_verdict(staged)
    except Exception as exc:  # one broken case is a row, not the end of the benchmark
        row.error = f"{type(exc).__name__}: {exc}"
        (out / case.id).mkdir(parents=True, exist_ok=True)
        (out / case.id / "error.txt").write_text(traceback.format_exc(), encoding="utf-8")
    row.seconds = time.monotonic() - started
    mark = lambda verdict: verdict if verdict in ("-", case.expected) else f"{verdict}(!)"  # noqa: E731
    print(
        f"{case.id:48} {case.kind:20} expected={case.expected} pregate={mark(row.pregate)} "
        f"gate={mark(row.gate)} {row.seconds:.0f}s {row.error[:200]}",
        flush=True,
    )
    return row


def run(cases: list[GateCase], out: Path, model: str | None, workers: int) -> list[Row]:
    """Judge every case; cases of one task run one after another (a web task's site has one port)."""
    cache = out / "cache"
    build_fixtures(cache)
    by_task: dict[str, list[GateCase]] = defaultdict(list)
    for case in cases:
        by_task[case.task].append(case)

    def task_rows(group: list[GateCase]) -> list[Row]:
        return [judge(case, out, cache, model) for case in group]

    if workers <= 1:  # in the main thread, so Ctrl-C stops a case waiting for its model at once
        return [row for group in by_task.values() for row in task_rows(group)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [row for group in pool.map(task_rows, by_task.values()) for row in group]


def summary(rows: list[Row], with_gate: bool) -> str:
    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    judged = [r for r in rows if not r.error]
    expected = [r.case.expected for r in judged]
    pre_catch, pre_false = rates(expected, [r.pregate for r in judged])
    parts = [f"pregate_catch_rate={fmt(pre_catch)}", f"pregate_false_fail_rate={fmt(pre_false)}"]
    if with_gate:
        decided = [r for r in judged if r.gate != "undecided"]
        catch, false_fail = rates([r.case.expected for r in decided], [r.gate for r in decided])
        parts += [
            f"gate_catch_rate={fmt(catch)}",
            f"gate_false_fail_rate={fmt(false_fail)}",
            f"gate_undecided={len(judged) - len(decided)}",
        ]
    return " ".join(parts + [f"cases={len(judged)}", f"errors={len(rows) - len(judged)}"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", help="comma-separated case ids (default: all)")
    parser.add_argument("--model", help="model spec of the gate role; without it only the pre-gate runs")
    parser.add_argument("--workers", type=int, default=1, help="tasks staged in parallel")
    parser.add_argument("--out", type=Path, help="folder for the cases' homes and run folders")
    args = parser.parse_args()
    cases = load_cases(only=args.cases.split(",") if args.cases else None)
    out = (args.out or Path("runs") / "gate_accuracy" / time.strftime("%Y%m%d-%H%M%S")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(f"{len(cases)} cases; run folders in {out}", flush=True)
    rows = run(cases, out, args.model, args.workers)
    print(summary(rows, with_gate=bool(args.model)))


if __name__ == "__main__":
    main()
