"""The pixel harness: the screenshot loop as the top-level agent with the whole task.

    build_pixel_loop(context).run(context.task) -> LoopOutcome

No bash, no editor: the screenshot-driven counterpart the code-first harness is
compared against. It ends with `done` (a `SubagentClaim` DONE) or `fail` (FAIL, which
is how an infeasible task is declared).
"""

from __future__ import annotations

from stateact.kernel.loop import Budget
from stateact.kernel.runtime import RunContext
from stateact.subagents.screen_loop import ScreenLoop, build_screen_loop


def build_pixel_loop(context: RunContext, budget: Budget) -> ScreenLoop:
    """The pixel agent on the main model, with the run's budget (the `pixel` variant's turns by default)."""
    return build_screen_loop(context, scope="main", role="main", prompt="pixel", budget=budget)
