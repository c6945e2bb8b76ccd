"""Checks of command-line values made before anything starts: each problem is a ValueError of one line."""

from __future__ import annotations

from collections.abc import Iterable

from stateact.kernel.models import missing_api_key, parse_spec


def check_budgets(
    max_steps: int | None,
    max_usd: float | None,
    minutes: float | None,
    minutes_option: str = "--max-minutes",
) -> None:
    """ValueError for a budget that would end a run before it starts (None: not given); `minutes_option`
    names the wall-time option of the command."""
    if max_steps is not None and max_steps < 1:
        raise ValueError(f"--max-steps must be at least 1 (got {max_steps})")
    for option, value in (("--max-usd", max_usd), (minutes_option, minutes)):
        if value is not None and not value > 0:
            raise ValueError(f"{option} must be more than 0 (got {value:g})")


def check_models(specs: Iterable[str | None]) -> None:
    """ValueError for a bad model spec, or one whose API key is not in the environment."""
    for spec in filter(None, specs):
        parse_spec(spec)
        if (key := missing_api_key(spec)) is not None:
            raise ValueError(f"{spec} needs {key} in the environment (export {key}=...)")
