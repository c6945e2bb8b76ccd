"""What scoring at step budgets costs: the long tier's trainer-claims-correction played by its reference
solution with `--checkpoint-steps`, and the seconds each mid-run scoring held the agent (from the run's
events: the `step_budget_score` event's time less the event before it).

    python benchmarks/step_budget_scoring.py [--workers N]

The last lines print key=value figures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.evals.authoring.long_correction_task import LONG_SUITE, TASK_ID  # noqa: E402
from stateact.evals.running.jobs import SuiteOptions  # noqa: E402
from stateact.evals.running.midrun_events import StepBudgetScored  # noqa: E402
from stateact.evals.running.suite_runner import run_suite  # noqa: E402
from stateact.kernel.events import read_events  # noqa: E402

BUDGETS = (4, 8, 10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stateact-bench-budgets-") as scratch:
        results = Path(scratch) / "results"
        options = SuiteOptions(
            suite=LONG_SUITE,
            only=(TASK_ID,),
            harnesses=("stateact",),
            model="reference",
            results=results,
            cache=Path(scratch) / "cache",
            workers=args.workers,
            display=False,
            checkpoint_steps=BUDGETS,
        )
        (outcome,) = run_suite(options)
        events = list(read_events(outcome.result_dir / "run" / "events.jsonl"))
        held = {
            event.budget: event.t - before.t
            for before, event in zip(events, events[1:], strict=False)
            if isinstance(event, StepBudgetScored)
        }
        for budget in BUDGETS:
            score = (outcome.result_dir / f"result_step_{budget}.txt").read_text().strip()
            print(f"score_at_step_{budget}={score}")
        print(f"final_score={outcome.score}")
        print(f"task_seconds={outcome.seconds:.1f}")
        for budget, seconds in sorted(held.items()):
            print(f"midrun_scoring_seconds_step_{budget}={seconds:.1f}")


if __name__ == "__main__":
    main()
