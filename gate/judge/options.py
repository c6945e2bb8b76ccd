"""The command-line option of best-of-N runs, shared by `stateact run` and `stateact eval run` (the judge's
`--judge-model` comes with the other roles' model options, `stateact.kernel.roles`)."""

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
