"""What confining the metric calls costs, and what real checks need of its limits.

Every metric call runs in a child forked from a worker that has imported the metric modules
(evals/osworld/metric_call.py). This prints, as key=value:

- `metric_worker_start_s`: the first call, which starts the worker;
- `metric_call_direct_p50_ms` / `metric_call_confined_p50_ms` (and p90): one `exact_match` in this
  process and confined; `metric_call_overhead_p50_ms` their difference;
- per family of the differential metric corpus (tests/metrics_corpus/, built here: LibreOffice makes
  some of its files), each case run once in a child forked the same way: the largest wall time, CPU time
  and peak resident memory (`corpus_<family>_max_wall_s`, `_max_cpu_s`, `_max_rss_mb`), beside the
  worker's own resident memory (`metric_worker_rss_mb`), and the limits (`limit_*`);
- `corpus_confined_mismatches`: cases whose confined score (or raising) differs from the direct one;
- the same three figures for checks on files larger than the corpus's (`probe_<name>_*`): a 20,000-row
  workbook (`compare_table` sheet_data), a 60-page PDF (`compare_pdfs`) and two 2560x1440 pictures
  (`compare_images`, SSIM).

    python benchmarks/confined_metrics.py [--calls N]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.evals import settings  # noqa: E402
from stateact.evals.osworld.metric_call import call_metric  # noqa: E402
from stateact.evals.osworld.metrics import METRICS  # noqa: E402
from tests.support.documents import encoded, scanned_letter, text_pdf  # noqa: E402

FAMILIES = ("cases", "cases_general", "cases_chrome", "cases_docs", "cases_slides", "cases_media")
RULES = {"expected": "stateact"}


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[int(share * (len(ordered) - 1))]


def timed_ms(call: Callable[[], object], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def confined_metric(name: str, *args: Any, **options: Any) -> float:
    return call_metric(name, args, options)[0]


CONFINED = {name: functools.partial(confined_metric, name) for name in METRICS}
"""The metric table as scoring calls it: each name through a limited child."""


def outcome(call: Callable[[], float]) -> float | str:
    """The score, or the name of what was raised (a confined call raises MetricFailed naming it)."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - a case where OSWorld raises raises here too
        message = str(exc)
        return message.split(":", 1)[0] if type(exc).__name__ == "MetricFailed" else type(exc).__name__


def in_child(call: Callable[[], object]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak resident MB) of `call` run in a child forked from this process."""
    started = time.perf_counter()
    child = os.fork()
    if child == 0:
        try:
            call()
        finally:
            os._exit(0)
    _, _, usage = os.wait4(child, 0)
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def quietly(call: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        try:
            return call()
        except Exception:  # noqa: BLE001 - raising cases are measured too
            return None

    return run


def probes(folder: Path) -> dict[str, Callable[[], object]]:
    """Checks on files as large as real tasks' deliverables, by name."""
    from openpyxl import Workbook

    book = Workbook()
    rows = random.Random(7)
    for row in range(20_000):
        book.active.append([f"item {row}", *(rows.random() * 1000 for _ in range(7))])
    book.save(folder / "big.xlsx")
    lines = [
        [f"Page {page} line {line}: the quarterly figures, as reported" for line in range(40)]
        for page in range(60)
    ]
    (folder / "long.pdf").write_bytes(text_pdf(lines))
    (folder / "big.png").write_bytes(encoded(scanned_letter((2560, 1440)), "PNG"))
    sheet_data = {"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}]}
    return {
        "table_20k_rows": functools.partial(
            METRICS["compare_table"], str(folder / "big.xlsx"), str(folder / "big.xlsx"), **sheet_data
        ),
        "pdf_60_pages": functools.partial(
            METRICS["compare_pdfs"], str(folder / "long.pdf"), str(folder / "long.pdf")
        ),
        "images_2560x1440": functools.partial(
            METRICS["compare_images"], str(folder / "big.png"), str(folder / "big.png")
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    arguments = parser.parse_args()
    started = time.perf_counter()
    call_metric("exact_match", ("stateact", RULES), {})
    print(f"metric_worker_start_s={time.perf_counter() - started:.2f}")
    direct = timed_ms(lambda: METRICS["exact_match"]("stateact", RULES), arguments.calls)
    confined = timed_ms(lambda: call_metric("exact_match", ("stateact", RULES), {}), arguments.calls)
    for name, samples in (("direct", direct), ("confined", confined)):
        print(f"metric_call_{name}_p50_ms={statistics.median(samples):.2f}")
        print(f"metric_call_{name}_p90_ms={percentile(samples, 0.9):.2f}")
    print(f"metric_call_overhead_p50_ms={statistics.median(confined) - statistics.median(direct):.2f}")
    print(f"metric_worker_rss_mb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}")
    mismatches = 0
    with tempfile.TemporaryDirectory(prefix="confined-metrics-") as folder:
        for family in FAMILIES:
            module = importlib.import_module(f"tests.metrics_corpus.{family}")
            built = module.build(Path(folder) / family)
            figures = [
                in_child(quietly(functools.partial(module.call, METRICS, case))) for case in built.values()
            ]
            for case_id, case in built.items():
                ours = outcome(functools.partial(module.call, METRICS, case))
                theirs = outcome(functools.partial(module.call, CONFINED, case))
                if ours != theirs:
                    mismatches += 1
                    print(f"# {family} {case_id}: direct {ours!r}, confined {theirs!r}", file=sys.stderr)
            for index, key in enumerate(("wall_s", "cpu_s", "rss_mb")):
                print(f"corpus_{family}_max_{key}={max(figure[index] for figure in figures):.2f}")
        for name, probe in probes(Path(folder)).items():
            for key, value in zip(("wall_s", "cpu_s", "rss_mb"), in_child(probe), strict=True):
                print(f"probe_{name}_{key}={value:.2f}")
    print(f"corpus_confined_mismatches={mismatches}")
    print(f"limit_wall_s={settings.METRIC_WALL_S:g}")
    print(f"limit_cpu_s={settings.METRIC_CPU_S}")
    print(f"limit_memory_mb={settings.METRIC_MEMORY_MB}")


if __name__ == "__main__":
    main()
