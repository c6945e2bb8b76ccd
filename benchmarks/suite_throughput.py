"""Suite throughput: tasks per hour for 1 and 2 pool slots on the local and the Ray engine, playing each
task's reference solution on local sandboxes.

    python benchmarks/suite_throughput.py [SUITE] [HARNESSES] [COPIES]

SUITE defaults to the runner tests' suite (3 quick bash tasks), HARNESSES to `no-verify,bash-only`,
COPIES (how many times each task is in the run, under ids of its own) to 5: 30 jobs. Each configuration runs into a fresh results folder; the Ray cluster is started once (its
start-up is printed apart), its actors are started inside each run and counted. Prints one line per
configuration, then a last line of key=value pairs.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals.running.jobs import SuiteOptions  # noqa: E402
from evals.running.suite import discover  # noqa: E402
from evals.running.suite_runner import run_suite  # noqa: E402

DEFAULT_SUITE = ROOT / "tests" / "fixtures" / "evalsuite"
DEFAULT_HARNESSES = "no-verify,bash-only"
DEFAULT_COPIES = 5
SLOT_COUNTS = (1, 2)
SECONDS_PER_HOUR = 3600


def copied_suite(suite: Path, copies: int, out: Path) -> Path:
    """`suite` with each task `copies` times (ids `<id>-<n>`), its assets and solution beside each copy."""
    for task in discover(suite):
        folder = out / task.domain
        shutil.copytree(task.path.parent, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.json"))
        for n in range(1, copies + 1):
            raw = json.loads(task.path.read_text(encoding="utf-8"))
            (folder / f"{task.id}-{n}.json").write_text(json.dumps({**raw, "id": f"{task.id}-{n}"}))
            shutil.copyfile(task.solution_path, folder / f"{task.id}-{n}.solution.json")
    return out


def tasks_per_hour(
    suite: Path, harnesses: tuple[str, ...], engine: str, slots: int
) -> tuple[float, float, int]:
    """Jobs per hour over the whole run, and after the first result (the engine's start-up left out)."""
    ends: list[float] = []
    with tempfile.TemporaryDirectory(prefix="stateact-throughput-") as out:
        options = SuiteOptions(
            suite, harnesses, "reference", Path(out) / "results", Path(out) / "cache",
            workers=slots, display=False, engine=engine,
        )  # fmt: skip
        started = time.monotonic()
        outcomes = run_suite(options, lambda event, *_: event == "end" and ends.append(time.monotonic()))
        seconds = time.monotonic() - started
    failed = [o.job.label for o in outcomes if o.error]
    if failed:
        raise SystemExit(f"{engine} with {slots} slot(s): jobs failed: {', '.join(failed)}")
    steady = (len(ends) - 1) * SECONDS_PER_HOUR / (ends[-1] - ends[0])
    return len(outcomes) * SECONDS_PER_HOUR / seconds, steady, len(outcomes)


def main(source: Path, harnesses: tuple[str, ...], copies: int) -> None:
    import ray

    work = Path(tempfile.mkdtemp(prefix="stateact-throughput-suite-"))
    suite = copied_suite(source, copies, work / "suite")

    started = time.monotonic()
    ray.init(
        num_cpus=max(SLOT_COUNTS),
        include_dashboard=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}},
        log_to_driver=False,
    )
    print(f"ray cluster start-up: {time.monotonic() - started:.1f} s")
    rates = {}
    try:
        for engine in ("local", "ray"):
            for slots in SLOT_COUNTS:
                rate, steady, jobs = tasks_per_hour(suite, harnesses, engine, slots)
                rates[(engine, slots)] = rate
                print(
                    f"{engine:5} slots={slots} jobs={jobs} tasks_per_hour={rate:.0f} "
                    f"after_first_result={steady:.0f}"
                )
    finally:
        ray.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    pairs = " ".join(f"{engine}_{slots}={rate:.0f}" for (engine, slots), rate in rates.items())
    scaling = " ".join(
        f"{engine}_2_over_1={rates[(engine, 2)] / rates[(engine, 1)]:.2f}" for engine in ("local", "ray")
    )
    print(f"{pairs} {scaling} cpus={os.cpu_count()}")


if __name__ == "__main__":
    main(
        Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SUITE,
        tuple((sys.argv[2] if len(sys.argv) > 2 else DEFAULT_HARNESSES).split(",")),
        int(sys.argv[3]) if len(sys.argv) > 3 else DEFAULT_COPIES,
    )
