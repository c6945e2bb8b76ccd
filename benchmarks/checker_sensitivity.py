"""Checker sensitivity of a suite: mutate each task's reference deliverable, check the score drops.

    python benchmarks/checker_sensitivity.py [SUITE | --suite SUITE] [--task ID ...] [--out DIR] [--validated DIR]
    python benchmarks/checker_sensitivity.py --suite evals/suites/long

Every task's reference solution is replayed (evals/running/validate.py, one task at a time) unless
`--validated` names the output folder of an earlier `stateact eval validate --results DIR`, whose homes
then hold the deliverables. Each deliverable is mutated once per requirement kind it has (a wrong
value, a missing row, a wrong format, an extra change: evals/authoring/mutators.py) and the task re-scored
(evals/authoring/sensitivity.py). Prints one line per mutation, per task `caught/total`, the mutations that
were missed, and last `checker_sensitivity=<caught>/<total>` (with the share). Checkpoints that read
a running program (a desktop app's status port) are not re-scored and are counted per task as `live`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.evals.authoring.sensitivity import TaskSensitivity, task_sensitivity  # noqa: E402
from stateact.evals.fixtures.build import build_fixtures  # noqa: E402
from stateact.evals.running.suite import OFFICE_SUITE, SuiteTask, discover  # noqa: E402
from stateact.evals.running.validate import validate_task  # noqa: E402


def measure(task: SuiteTask, out: Path, validated: Path | None) -> TaskSensitivity:
    """Replay the task's reference solution (unless `validated` has its home) and mutate its deliverable."""
    root = validated or out
    if validated is None:
        row = validate_task(task, out / "cache", out)
        if not row.valid:
            return TaskSensitivity(task.id, skipped=f"the reference solution is not valid: {row.error[:200]}")
    home = root / "homes" / task.id
    if not home.is_dir():
        return TaskSensitivity(task.id, skipped=f"no replayed home {home}")
    work = out / "mutations" / task.id
    shutil.rmtree(work, ignore_errors=True)
    return task_sensitivity(task, home, root / "cache", work)


def print_task(result: TaskSensitivity) -> None:
    for outcome in result.outcomes:
        mark = "caught" if outcome.caught else "MISSED"
        print(
            f"  {mark:6} {result.task_id} {outcome.file} {outcome.kind}: {outcome.note} (partial {outcome.partial:.2f})"
        )
    extra = f" inconclusive: {', '.join(result.inconclusive)}" if result.inconclusive else ""
    extra += f" live checkpoints not re-scored: {result.live}" if result.live else ""
    if result.skipped:
        print(f"{result.task_id}: not measured: {result.skipped}")
    else:
        print(f"{result.task_id}: {result.caught}/{len(result.outcomes)} caught{extra}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", nargs="?", type=Path, help="Suite folder (default: the office suite).")
    parser.add_argument("--suite", dest="suite_option", type=Path, help="The suite folder, as an option.")
    parser.add_argument("--task", action="append", help="Only this task id (repeatable).")
    parser.add_argument(
        "--out", type=Path, help="Folder for replays and mutated scorings (default: a temporary one)."
    )
    parser.add_argument(
        "--validated", type=Path, help="Output folder of an earlier `stateact eval validate --results`."
    )
    args = parser.parse_args(argv)
    if args.suite and args.suite_option and args.suite != args.suite_option:
        parser.error("name the suite once: as an argument or with --suite")
    tasks = discover(args.suite or args.suite_option or OFFICE_SUITE, only=args.task)
    with tempfile.TemporaryDirectory(prefix="stateact-sensitivity-") as scratch:
        out = Path(args.out or scratch)
        if args.validated is None:
            build_fixtures(out / "cache")
        results = []
        for task in tasks:
            results.append(measure(task, out, args.validated))
            print_task(results[-1])
    measured = [r for r in results if not r.skipped]
    caught, total = sum(r.caught for r in measured), sum(len(r.outcomes) for r in measured)
    missed = [f"{r.task_id}:{o.kind}" for r in measured for o in r.outcomes if not o.caught]
    print(f"missed: {', '.join(missed) or 'none'}")
    print(f"tasks_measured={len(measured)}/{len(results)} mutations={total} caught={caught}")
    share = f" ({100 * caught / total:.1f}%)" if total else ""
    print(f"checker_sensitivity={caught}/{total}{share}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
