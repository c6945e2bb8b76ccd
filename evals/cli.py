"""`stateact eval …` commands (a typer app the main CLI mounts) and the `stateact report` command.

app.add_typer(eval_app, name="eval")
app.command("report")(report)
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from evals import suite_settings

eval_app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="Run task suites and compare harnesses."
)
console = Console()

SUMMARY_MARKDOWN = "summary.md"
SUMMARY_CSV = "summary.csv"
TASKS_CSV = "tasks.csv"

RoleOption = Annotated[str | None, typer.Option(help="Model spec for this role (default: the main model).")]


@eval_app.command("run")
def run_command(
    suite: Annotated[Path, typer.Argument(help="A folder of OSWorld task files (<domain>/<id>.json).")],
    harness: Annotated[
        str, typer.Option(help="Comma-separated harness variants (see `stateact variants`).")
    ] = "stateact",
    model: Annotated[
        str,
        typer.Option(
            help="Main model spec (anthropic:MODEL, openai:MODEL@URL, scripted:PATH), or `reference` to play "
            "each task's own reference solution."
        ),
    ] = suite_settings.REFERENCE_MODEL,
    gui_model: RoleOption = None,
    web_model: RoleOption = None,
    gate_model: RoleOption = None,
    compactor_model: RoleOption = None,
    workers: Annotated[int, typer.Option(min=1, help="Tasks run at once, each on its own display.")] = (
        suite_settings.WORKERS
    ),
    results: Annotated[Path, typer.Option(help="Results folder (OSWorld layout); reused to resume.")] = Path(
        "results"
    ),
    cache: Annotated[
        Path | None,
        typer.Option(help="Download cache the task files resolve URLs to (default: <suite>/cache)."),
    ] = None,
    timeout_minutes: Annotated[float, typer.Option(help="Wall-time budget of one task's agent run.")] = (
        suite_settings.TASK_TIMEOUT_S / 60
    ),
    max_usd: Annotated[float, typer.Option(help="Dollar budget of one task.")] = suite_settings.TASK_MAX_USD,
    max_steps: Annotated[int, typer.Option(help="Main-agent turn budget of one task.")] = (
        suite_settings.TASK_MAX_TURNS
    ),
    display: Annotated[bool, typer.Option(help="Give each task's sandbox its own X display.")] = True,
    html: Annotated[bool, typer.Option(help="Also write the HTML report into <results>/report.")] = True,
) -> None:
    """Run every task of SUITE under each harness, then print and save the comparison table."""
    from evals.suite_progress import SuiteProgress
    from evals.suite_runner import SuiteOptions, plan_jobs, run_suite
    from evals.task import TaskError

    options = SuiteOptions(
        suite=suite,
        harnesses=tuple(h.strip() for h in harness.split(",") if h.strip()),
        model=model,
        results=results,
        cache=cache or suite / "cache",
        role_models={"gui": gui_model, "web": web_model, "gate": gate_model, "compactor": compactor_model},
        workers=workers,
        max_seconds=timeout_minutes * 60,
        max_usd=max_usd,
        max_turns=max_steps,
        display=display,
    )
    try:
        jobs = plan_jobs(options)
    except (TaskError, ValueError) as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    with SuiteProgress(console, len(jobs)) as progress:
        outcomes = run_suite(options, progress.on_job)
    failed = [o for o in outcomes if o.error]
    for outcome in failed:
        console.print(f"[red]{escape(outcome.job.label)}[/red]: {escape(outcome.error)}")
    write_tables(results, print_table=True)
    if html:
        report(results)
    if failed:
        raise typer.Exit(1)


def write_tables(results: Path, print_table: bool = False) -> list[Path]:
    """Write summary.md, summary.csv and tasks.csv into `results`; optionally print the table."""
    from evals.comparison import aggregate, tasks_csv, to_csv, to_markdown, to_rich
    from evals.task_metrics import collect_metrics

    metrics = collect_metrics(results)
    rows = aggregate(metrics)
    if print_table:
        console.print(to_rich(rows))
    written = []
    for name, text in (
        (SUMMARY_MARKDOWN, to_markdown(rows)),
        (SUMMARY_CSV, to_csv(rows)),
        (TASKS_CSV, tasks_csv(metrics)),
    ):
        path = Path(results) / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def report(
    results: Annotated[Path, typer.Argument(help="A results folder written by `stateact eval run`.")],
    out: Annotated[Path | None, typer.Option(help="Report folder (default: <results>/report).")] = None,
) -> None:
    """Write the static HTML report (summary with charts, one trajectory page per task) and the tables."""
    from evals.html_report import write_html_report

    if not Path(results).is_dir():
        console.print(f"[red]error:[/red] {escape(str(results))} is not a folder")
        raise typer.Exit(2)
    write_tables(results)
    index = write_html_report(results, out)
    console.print(f"report: {escape(str(index))}")
