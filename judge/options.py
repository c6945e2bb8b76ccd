"""Command-line options of best-of-N runs, shared by `stateact run` and `stateact eval run`."""

from __future__ import annotations

from typing import Annotated

import typer

BestOfOption = Annotated[
    int,
    typer.Option(
        min=1,
        help="Run each task N times from the same start, each in its own sandbox, and let the judge "
        "pick one result from the final states.",
    ),
]
JudgeModelOption = Annotated[
    str | None,
    typer.Option(help="Model spec of the best-of-N judge (default: the main model)."),
]
