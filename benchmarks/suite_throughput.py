"""Suite throughput: tasks per hour for 1 and 2 pool slots, playing each task's reference solution on
local sandboxes.

    python benchmarks/suite_throughput.py                # quick bash tasks, local and Ray engines
    python benchmarks/suite_throughput.py --fixed-port   # tasks serving on fixed ports, own vs host network

The default run takes the runner tests' suite (3 quick bash tasks) under `no-verify,bash-only`, each
task 5 times under ids of its own (30 jobs), on the local and the Ray engine; the Ray cluster is
started once (its start-up is printed apart).

`--fixed-port` takes the office suite's tasks whose setup serves on a fixed loopback port (a web
shop's intranet on 18431, a desktop app's status port on 18611), each 3 times under one harness, on
the local engine with a display, once with every sandbox on a network of its own (`--network own`:
the copies run side by side) and once on the host's network (`--network host`: the engine runs the
copies of one task one after the other, since they would share the port).

Each configuration runs into a fresh results folder. Prints one line per configuration, then a last
line of key=value pairs: tasks per hour and the 2-over-1 scaling of each engine or network.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stateact.evals.fixtures.build import build_fixtures  # noqa: E402
from stateact.evals.running.jobs import SuiteOptions  # noqa: E402
from stateact.evals.running.suite import OFFICE_SUITE, discover  # noqa: E402
from stateact.evals.running.suite_runner import run_suite  # noqa: E402

QUICK_SUITE = ROOT / "tests" / "fixtures" / "evalsuite"
FIXED_PORT_TASKS = ("web-catalog-prices", "desktop-stock-keeper")
SLOT_COUNTS = (1, 2)
SECONDS_PER_HOUR = 3600


@dataclass(frozen=True)
class Setup:
    """One benchmark: its suite, tasks, harnesses and copies, and the configurations compared."""

    suite: Path
    only: tuple[str, ...]
    harnesses: tuple[str, ...]
    copies: int
    display: bool
    configurations: tuple[tuple[str, str], ...]
    """(engine, network) pairs; each runs on 1 and on 2 slots."""


QUICK = Setup(QUICK_SUITE, (), ("no-verify", "bash-only"), 5, False, (("local", "own"), ("ray", "own")))
FIXED_PORT = Setup(
    OFFICE_SUITE, FIXED_PORT_TASKS, ("no-verify",), 3, True, (("local", "own"), ("local", "host"))
)


def copied_suite(suite: Path, only: tuple[str, ...], copies: int, out: Path) -> Path:
    """The tasks of `suite` (those in `only`, or all) each `copies` times (ids `<id>-<n>`), with their
    assets and reference solution beside each copy."""
    for task in discover(suite, only=list(only) or None):
        folder = out / task.domain
        shutil.copytree(task.path.parent, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.json"))
        raw = json.loads(task.path.read_text(encoding="utf-8"))
        for n in range(1, copies + 1):
            (folder / f"{task.id}-{n}.json").write_text(json.dumps({**raw, "id": f"{task.id}-{n}"}))
            shutil.copyfile(task.solution_path, folder / f"{task.id}-{n}.solution.json")
    return out


def tasks_per_hour(options: SuiteOptions) -> tuple[float, float, int]:
    """Jobs per hour over the whole run, and after the first result (the engine's start-up left out)."""
    ends: list[float] = []
    with tempfile.TemporaryDirectory(prefix="stateact-throughput-") as out:
        started = time.monotonic()
        outcomes = run_suite(
            replace(options, results=Path(out) / "results"),
            lambda event, *_: event == "end" and ends.append(time.monotonic()),
        )
        seconds = time.monotonic() - started
    failed = [o.job.label for o in outcomes if o.error or o.score != 1.0]
    if failed:
        raise SystemExit(
            f"{options.engine}, {options.workers} slot(s): jobs did not score 1.0: {', '.join(failed)}"
        )
    steady = (len(ends) - 1) * SECONDS_PER_HOUR / (ends[-1] - ends[0])
    return len(outcomes) * SECONDS_PER_HOUR / seconds, steady, len(outcomes)


def run(setup: Setup, cache: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="stateact-throughput-suite-"))
    suite = copied_suite(setup.suite, setup.only, setup.copies, work / "suite")
    base = SuiteOptions(
        suite, setup.harnesses, "reference", work / "results", cache, display=setup.display, record=False
    )
    rates: dict[str, float] = {}
    engines = {engine for engine, _ in setup.configurations}
    try:
        if "ray" in engines:
            _start_ray()
        for engine, network in setup.configurations:
            name = engine if len(engines) > 1 else network
            for slots in SLOT_COUNTS:
                options = replace(base, engine=engine, network=network, workers=slots)
                rate, steady, jobs = tasks_per_hour(options)
                rates[f"{name}_{slots}"] = rate
                print(
                    f"{engine:5} network={network:4} slots={slots} jobs={jobs} tasks_per_hour={rate:.0f} "
                    f"after_first_result={steady:.0f}",
                    flush=True,
                )
    finally:
        if "ray" in engines:
            import ray

            ray.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    names = dict.fromkeys(key.rsplit("_", 1)[0] for key in rates)
    pairs = " ".join(f"{key}={rate:.0f}" for key, rate in rates.items())
    scaling = " ".join(f"{name}_2_over_1={rates[f'{name}_2'] / rates[f'{name}_1']:.2f}" for name in names)
    print(f"{pairs} {scaling} cpus={os.cpu_count()}")


def _start_ray() -> None:
    import ray

    started = time.monotonic()
    ray.init(
        num_cpus=max(SLOT_COUNTS),
        include_dashboard=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}},
        log_to_driver=False,
    )
    print(f"ray cluster start-up: {time.monotonic() - started:.1f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--fixed-port", action="store_true", help="the office tasks that serve on fixed ports"
    )
    parser.add_argument("--copies", type=int, help="runs of each task (default: 5, or 3 with --fixed-port)")
    parser.add_argument("--cache", type=Path, help="built fixtures (default: built into a temporary folder)")
    args = parser.parse_args()
    setup = FIXED_PORT if args.fixed_port else QUICK
    if args.copies:
        setup = replace(setup, copies=args.copies)
    if args.cache:
        run(setup, args.cache)
        return
    with tempfile.TemporaryDirectory(prefix="stateact-throughput-cache-") as cache:
        build_fixtures(Path(cache))
        run(setup, Path(cache))


if __name__ == "__main__":
    main()
