"""Best-of-N against a single rollout on the two calc tasks of tests/fixtures/bestofn: wall time,
success of the pick, pass@N, the judge's pick accuracy and dollars per task.

The rollouts are scripted and differ (budget: right, wrong value; rates: wrong, right, wrong), played
in arrival order through a local Anthropic wire server, so a single rollout gets the first script of
each task. The judge is, by default, a wire model that decides from the state evidence of its request
(tests/support/best_of_scripts.py); `--judge-model SPEC` takes another (e.g. `relay:DIR`, played by hand).

    .venv/bin/python benchmarks/best_of.py [--judge-model relay:/tmp/judge] [--display]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stateact.evals.reports.comparison import aggregate  # noqa: E402
from stateact.evals.reports.task_metrics import collect_metrics  # noqa: E402
from stateact.evals.running.jobs import SuiteOptions  # noqa: E402
from stateact.evals.running.suite_runner import run_suite  # noqa: E402
from tests.support.best_of_scripts import MODEL, RolloutRouter, judge_turn, rollout  # noqa: E402
from tests.support.wire_servers import AnthropicWireServer  # noqa: E402

SUITE = ROOT / "tests" / "fixtures" / "bestofn"
HARNESS = "no-verify"
ROLLOUTS = (1, 3)
REQUESTS_PER_ROLLOUT = 4
"""Wire turns queued per rollout (a scripted rollout takes two; a refused one a few)."""


def scripts() -> dict:
    return {
        "budget.xlsx": [
            rollout("Costs", {"A5": "Total", "B5": 1440}),
            rollout("Costs", {"A5": "Total", "B5": 1404}),
        ],
        "rates.xlsx": [
            rollout("Rates", {"A3": "Converted", "B3": 350}),
            rollout("Rates", {"A3": "Converted", "B3": 300}),
            rollout("Rates", {"A3": "Converted", "B3": 250}),
        ],
    }


def run(best_of: int, judge_spec: str | None, display: bool, root: Path) -> tuple[float, dict]:
    """One suite run with `best_of` rollouts per task: wall seconds and the `all` row of the table."""
    turns = [RolloutRouter(scripts())] * (REQUESTS_PER_ROLLOUT * best_of * 2)
    with AnthropicWireServer(turns) as main, AnthropicWireServer([judge_turn] * 2) as judge:
        options = SuiteOptions(
            SUITE,
            (HARNESS,),
            f"anthropic:{MODEL}@{main.base_url}",
            root / f"results-{best_of}",
            root / "cache",
            role_models={"judge": judge_spec or f"anthropic:{MODEL}@{judge.base_url}"},
            workers=best_of,
            display=display,
            best_of=best_of,
        )
        started = time.monotonic()
        run_suite(options)
        seconds = time.monotonic() - started
    (row,) = [r for r in aggregate(collect_metrics(options.results)) if r.domain == "all"]
    return seconds, row.__dict__


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--judge-model", default=None, help="the judge's model spec (default: the wire judge)"
    )
    parser.add_argument("--display", action="store_true", help="give each sandbox an Xvfb display")
    args = parser.parse_args()
    figures = []
    with tempfile.TemporaryDirectory() as scratch:
        print("N  wall s  success  pass@N  pick acc  $/task")
        for best_of in ROLLOUTS:
            seconds, row = run(best_of, args.judge_model, args.display, Path(scratch))
            print(
                f"{best_of}  {seconds:6.1f}  {_pct(row['binary']):>7}  {_pct(row['pass_at_n']):>6}  "
                f"{_pct(row['pick_accuracy']):>8}  {row['usd']:.4f}"
            )
            figures.append(f"wall_s_n{best_of}={seconds:.1f} success_n{best_of}={row['binary']:.2f}")
            figures.append(f"pick_accuracy_n{best_of}={row['pick_accuracy']} usd_n{best_of}={row['usd']:.4f}")
    print(" ".join(figures))


if __name__ == "__main__":
    main()
