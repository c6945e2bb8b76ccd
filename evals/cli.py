"""`stateact eval ...`: commands about task suites (`validate` replays every reference solution)."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from evals.suite import OFFICE_SUITE, discover
from evals.task import TaskError
from evals.validate import ValidationRow, validate_suite

eval_app = typer.Typer(help="Task suites: validate reference solutions.", no_args_is_help=True)
console = Console()


@eval_app.callback()
def _suite_commands() -> None:
    """Task suites: validate reference solutions."""


@eval_app.command()
def validate(
    suite: Annotated[
        Path, typer.Argument(help="Suite folder: <domain>/<task_id>.json with solutions.")
    ] = OFFICE_SUITE,
    task: Annotated[
        list[str] | None, typer.Option("--task", help="Validate only this task id (repeatable).")
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="Tasks validated at once, each on its own display.")
    ] = 1,
    out: Annotated[
        Path | None, typer.Option(help="Folder for homes, runs and results (default runs/validate-<time>).")
    ] = None,
    cache: Annotated[
        Path | None, typer.Option(help="Fixture cache folder (default <out>/cache; rebuilt every time).")
    ] = None,
) -> None:
    """Replay every reference solution through the full harness on a local sandbox; each must score 1.0."""
    try:
        tasks = discover(suite, only=task or None)
    except TaskError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None
    out = out or Path("runs") / f"validate-{datetime.now():%Y%m%d-%H%M%S}"
    console.print(f"Validating {len(tasks)} task(s) from {suite} into {out} with {workers} worker(s)")
    started = time.monotonic()
    rows = validate_suite(tasks, out, cache_dir=cache, workers=workers, on_row=_progress)
    console.print(validation_table(rows))
    elapsed = time.monotonic() - started
    passed = sum(row.valid for row in rows)
    console.print(f"{passed}/{len(rows)} tasks valid; total time {elapsed:.0f} s ({elapsed / 60:.1f} min)")
    if passed != len(rows):
        raise typer.Exit(1)


def _progress(row: ValidationRow) -> None:
    mark = "[green]ok[/green]" if row.valid else "[red]FAIL[/red]"
    console.print(f"  {mark} {row.task_id} score={row.score:.2f} ({row.seconds:.0f} s)")


def validation_table(rows: list[ValidationRow]) -> Table:
    table = Table(title="Reference solution validation")
    columns = (
        "task",
        "domain",
        "score",
        "checkpoints",
        "run",
        "gate",
        "turns",
        "unplayed",
        "seconds",
        "problem",
    )
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            row.task_id,
            row.domain,
            f"[{'green' if row.valid else 'red'}]{row.score:.2f}[/]",
            f"{row.met}/{row.checkpoints}",
            row.status,
            {None: "-", True: "PASS", False: "FAIL"}[row.gate_passed],
            str(row.turns),
            " ".join(f"{role}:{count}" for role, count in row.unplayed.items()) or "-",
            f"{row.seconds:.0f}",
            row.error[:160],
        )
    return table
