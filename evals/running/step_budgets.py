"""The `--checkpoint-steps` option of `eval run` and `run --task` (what it does: evals/running/budget_scores.py)."""

from __future__ import annotations

CHECKPOINT_STEPS_HELP = (
    "Score each task also when its step count (every tool call of every role) passes each of these "
    "budgets, e.g. 150,300: result_step_N.txt/.json in its results folder."
)


def parse_budgets(text: str | None) -> tuple[int, ...]:
    """`150,300` as (150, 300); ValueError naming what is not a positive whole number."""
    if not text:
        return ()
    budgets = []
    for part in text.split(","):
        if not part.strip().isdigit() or int(part) < 1:
            raise ValueError(
                f"--checkpoint-steps takes positive whole numbers separated by commas, not {part!r}"
            )
        budgets.append(int(part))
    return tuple(sorted(set(budgets)))
