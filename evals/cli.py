"""`stateact eval ...`: commands about task suites (`validate` replays every reference solution)."""

from __future__ import annotations

import csv
import io
import json
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from stateact.app.arguments import check_budgets, check_models, relay_notes
from stateact.app.exit_codes import ExitCode
from stateact.app.renamed_options import EVAL_RENAMES, group_with_renames
from stateact.app.role_options import DEFAULT_ROLE_OPTIONS, RoleOptions, with_role_options
from stateact.app.signals import Terminated, stop_signals_as_interrupt
from stateact.app.terminal import whole_lines
from stateact.app.users import RELAY, check_user
from stateact.app.variants import FULL_HARNESS
from stateact.evals import settings
from stateact.evals.osworld import bridge
from stateact.evals.osworld.task import TaskError
from stateact.evals.plain_table import print_table
from stateact.evals.running.step_budgets import CHECKPOINT_STEPS_HELP, parse_budgets
from stateact.evals.running.suite import OFFICE_SUITE, discover
from stateact.sandbox.caps import DISK_HOME_HELP, DISK_TMP_HELP, disk_caps, size_text
from stateact.sandbox.isolation import NO_ISOLATION_WARNING, bwrap_problem, check_isolation
from stateact.sandbox.limits import DEFAULT_MEMORY_TEXT, LIMITS_HELP, SandboxLimits
from stateact.sandbox.netns import NETWORK_OPTION_HELP, check_network
from stateact.sandbox.settings import (
    DEFAULT_ISOLATION,
    DEFAULT_NETWORK,
    DISK_HOME_BYTES,
    DISK_TMP_BYTES,
    LIMIT_PROCESSES,
)

if TYPE_CHECKING:
    from stateact.evals.running.validate import ValidationRow

eval_app = typer.Typer(
    cls=group_with_renames(EVAL_RENAMES),
    help="Task suites: validate reference solutions, run and compare harnesses.",
    no_args_is_help=True,
)
console = Console()
errors = Console(stderr=True, soft_wrap=True)
"""Error and warning lines."""
say = whole_lines(console)
"""Lines of paths and commands."""


@eval_app.callback()
def _suite_commands() -> None:
    """Task suites: validate reference solutions, run and compare harnesses."""


@eval_app.command()
def validate(
    suite: Annotated[
        Path, typer.Argument(help="Suite folder: <domain>/<task_id>.json with solutions.")
    ] = OFFICE_SUITE,
    task: Annotated[
        list[str] | None,
        typer.Option("--task-id", help="Validate only this task: DOMAIN/ID, or an ID (repeatable)."),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="Tasks validated at once, each on its own display.")
    ] = 1,
    results: Annotated[
        Path | None,
        typer.Option(help="Folder for the homes, runs and results (default: runs/validate-<time>)."),
    ] = None,
    cache: Annotated[
        Path | None, typer.Option(help="Fixture cache folder (default: <results>/cache, built anew).")
    ] = None,
) -> None:
    """Replay every reference solution through the full harness on a local sandbox; each must score 1.0."""
    try:
        tasks = discover(suite, only=task or None)
    except TaskError as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    results = results or Path("runs") / f"validate-{datetime.now():%Y%m%d-%H%M%S}"
    console.print(f"Validating {len(tasks)} task(s) from {suite} into {results} with {workers} worker(s)")
    started = time.monotonic()
    from stateact.evals.running.validate import validate_suite

    rows = validate_suite(tasks, results, cache_dir=cache, workers=workers, on_row=_progress)
    print_table(console, validation_table(rows), VALIDATION_HEADERS, [validation_cells(row) for row in rows])
    elapsed = time.monotonic() - started
    passed = sum(row.valid for row in rows)
    console.print(f"{passed}/{len(rows)} tasks valid; total time {elapsed:.0f} s ({elapsed / 60:.1f} min)")
    if passed != len(rows):
        raise typer.Exit(1)


def _progress(row: ValidationRow) -> None:
    mark = "[green]ok[/green]" if row.valid else "[red]FAIL[/red]"
    console.print(f"  {mark} {row.task_id} score={row.score:.2f} ({row.seconds:.0f} s)")


VALIDATION_TITLE = "Reference solution validation"
VALIDATION_HEADERS = (
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


def validation_cells(row: ValidationRow) -> list[str]:
    """A validated task's cells, as VALIDATION_HEADERS name them."""
    return [
        row.task_id,
        row.domain,
        f"{row.score:.2f}",
        f"{row.met}/{row.checkpoints}",
        row.status,
        {None: "-", True: "PASS", False: "FAIL"}[row.gate_passed],
        str(row.turns),
        " ".join(f"{role}:{count}" for role, count in row.unplayed.items()) or "-",
        f"{row.seconds:.0f}",
        row.error[:160],
    ]


def validation_table(rows: list[ValidationRow]) -> Table:
    table = Table(title=VALIDATION_TITLE)
    for column in VALIDATION_HEADERS:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(escape(cell) for cell in validation_cells(row)), style=None if row.valid else "red")
    return table


@eval_app.command("check")
def check_command(
    suite: Annotated[
        Path,
        typer.Argument(
            help="A folder of task files, or OSWorld's evaluation_examples folder or a meta file."
        ),
    ],
    task: Annotated[
        list[str] | None,
        typer.Option("--task-id", help="Check only this task: DOMAIN/ID, or an ID (repeatable)."),
    ] = None,
    cache: Annotated[
        Path, typer.Option(help="Download cache the files are looked up in (as `eval run --cache`).")
    ] = Path("results") / "cache",
    as_json: Annotated[bool, typer.Option("--json", help="Print the rows as JSON lines.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print the rows as CSV.")] = False,
    osworld_python: Annotated[str | None, typer.Option(help=bridge.OPTION_HELP)] = None,
) -> None:
    """Read every task without running an agent: one row per task (loads; unsupported steps, getters and
    metrics; unreachable files; what it needs of the machine), then `scorable=N/M local=K/M`."""
    from stateact.evals.running.check import check_suite, summary_line

    try:
        bridge.use_python(osworld_python)
        checks = check_suite(suite, cache, only=task or None)
    except (TaskError, bridge.BridgeError) as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    rows = [check.row() for check in checks]
    if as_json:
        for row in rows:
            print(json.dumps(row))
    elif as_csv:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else [], lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "; ".join(v) if isinstance(v, list) else v for k, v in r.items()} for r in rows)
        print(out.getvalue(), end="")
    else:
        for check in checks:
            print(check.line())
    if as_json or as_csv:  # the output is data only: the summary goes to stderr
        errors.print(summary_line(checks), highlight=False)
    else:
        print(summary_line(checks))


# -- running suites under several harnesses, and their reports ----------------------------
EVAL_USER_HELP = (
    "Who answers the agents' questions (ask_user) in every task: scripted:FILE (a JSON list of answers, "
    "from the first in each task), relay:DIR (answered in files, a subfolder per task: `stateact relay "
    "DIR/HARNESS/DOMAIN/TASK`) or none (the default: no one can be asked). --user-model SPEC instead makes "
    "a simulated user play each task's persona (its `user`)."
)
SUMMARY_MARKDOWN = "summary.md"
SUMMARY_CSV = "summary.csv"
TASKS_CSV = "tasks.csv"


@eval_app.command("run")
@with_role_options
def run_command(
    suite: Annotated[
        Path,
        typer.Argument(
            help="A folder of OSWorld task files (<domain>/<id>.json), or OSWorld's evaluation_examples folder "
            "(test_all.json) or one of its meta files."
        ),
    ],
    harness: Annotated[
        str, typer.Option(help="Comma-separated harness variants (see `stateact variants`).")
    ] = FULL_HARNESS,
    task: Annotated[
        list[str] | None,
        typer.Option("--task-id", help="Run only this task: DOMAIN/ID, or an ID (repeatable)."),
    ] = None,
    model: Annotated[
        str,
        typer.Option(
            help="Main model spec (anthropic:MODEL, openai:MODEL@URL, scripted:PATH), or `reference` to play "
            "each task's own reference solution."
        ),
    ] = settings.REFERENCE_MODEL,
    role_options: RoleOptions = DEFAULT_ROLE_OPTIONS,
    workers: Annotated[int, typer.Option(min=1, help="Tasks run at once, each on its own display.")] = (
        settings.WORKERS
    ),
    results: Annotated[Path, typer.Option(help="Results folder (OSWorld layout); reused to resume.")] = Path(
        "results"
    ),
    cache: Annotated[
        Path | None,
        typer.Option(help="Fixture cache for downloads (default: <results>/cache, built anew)."),
    ] = None,
    max_minutes: Annotated[float, typer.Option(help="Wall-time budget of one task's agent run.")] = (
        settings.TASK_TIMEOUT_S / 60
    ),
    max_usd: Annotated[float, typer.Option(help="Dollar budget of one task.")] = settings.TASK_MAX_USD,
    max_steps: Annotated[
        int | None,
        typer.Option(
            help=f"Main-agent turn budget of one task (default: the task's max_steps, else {settings.TASK_MAX_TURNS})."
        ),
    ] = None,
    display: Annotated[bool, typer.Option(help="Give each task's sandbox its own X display.")] = True,
    html: Annotated[bool, typer.Option(help="Also write the HTML report into <results>/report.")] = True,
    engine: Annotated[
        str, typer.Option(help="`local` (threads on this machine) or `ray` (one Ray actor per pool slot).")
    ] = settings.ENGINE_LOCAL,
    address: Annotated[
        str | None, typer.Option(help="Ray cluster to join with --engine ray (default: start one here).")
    ] = None,
    pool: Annotated[
        Path | None, typer.Option(help="TOML pool file of OSWorld VMs and their reset commands.")
    ] = None,
    vm: Annotated[
        list[str] | None, typer.Option(help="An OSWorld VM (osworld://HOST:PORT) of the pool (repeatable).")
    ] = None,
    reset_command: Annotated[
        str | None,
        typer.Option(
            help="Shell command that restores a --vm's snapshot (sees STATEACT_SLOT, STATEACT_VM_HOST)."
        ),
    ] = None,
    isolation: Annotated[
        str,
        typer.Option(help="Local sandbox isolation: `bwrap` (bubblewrap) or `none` (host processes)."),
    ] = DEFAULT_ISOLATION,
    network: Annotated[str, typer.Option(help=NETWORK_OPTION_HELP)] = DEFAULT_NETWORK,
    max_processes: Annotated[int, typer.Option(help=LIMITS_HELP[0])] = LIMIT_PROCESSES,
    max_memory: Annotated[str, typer.Option(help=LIMITS_HELP[1])] = DEFAULT_MEMORY_TEXT,
    disk_home: Annotated[str, typer.Option(help=DISK_HOME_HELP)] = size_text(DISK_HOME_BYTES),
    disk_tmp: Annotated[str, typer.Option(help=DISK_TMP_HELP)] = size_text(DISK_TMP_BYTES),
    osworld_python: Annotated[str | None, typer.Option(help=bridge.OPTION_HELP)] = None,
    record: Annotated[
        bool, typer.Option(help="Keep a video of each task's display (recording.mp4 in its results folder).")
    ] = True,
    watch: Annotated[
        bool,
        typer.Option(help="Serve the live view of the results folder on loopback (see `stateact watch`)."),
    ] = False,
    user: Annotated[str | None, typer.Option(help=EVAL_USER_HELP)] = None,
    checkpoint_steps: Annotated[str | None, typer.Option(help=CHECKPOINT_STEPS_HELP)] = None,
) -> None:
    """Run every task of SUITE under each harness, then print and save the comparison table."""
    from stateact.app.watch import live_view
    from stateact.evals.fixtures.build import build_fixtures
    from stateact.evals.running.jobs import SuiteOptions, plan_jobs
    from stateact.evals.running.suite_progress import SuiteProgress
    from stateact.evals.running.suite_runner import run_suite
    from stateact.sandbox.pool_file import pool_from_options

    try:
        bridge.use_python(osworld_python)
        check_budgets(max_steps, max_usd, max_minutes)
        check_models([None if model == settings.REFERENCE_MODEL else model, *role_options.models().values()])
        check_user(user, bool(role_options.models().get("user")), unattended=True)
        settings_of_roles = role_options.settings()
        slots = pool_from_options(pool, vm or [], reset_command)
        check_engine(engine, address)
        if check_isolation(isolation) == "bwrap" and not slots and (problem := bwrap_problem()):
            raise ValueError(problem)
        check_network(network)
        limits = SandboxLimits.from_options(max_processes, max_memory)
        disk = disk_caps(disk_home, disk_tmp)
        budgets = parse_budgets(checkpoint_steps)
    except (ValueError, bridge.BridgeError) as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    options = SuiteOptions(
        suite=suite,
        only=tuple(task or ()),
        harnesses=tuple(dict.fromkeys(h.strip() for h in harness.split(",") if h.strip())),
        model=model,
        results=results,
        cache=cache or results / "cache",
        role_models=role_options.models(),
        role_settings=settings_of_roles,
        workers=workers,
        max_seconds=max_minutes * 60,
        max_usd=max_usd,
        max_turns=max_steps,
        display=display,
        pool=tuple(slots),
        engine=engine,
        address=address,
        isolation=isolation,
        network=network,
        limits=limits,
        disk=disk,
        best_of=role_options.best_of,
        record=record,
        user=user,
        checkpoint_steps=budgets,
    )
    try:
        jobs = plan_jobs(options)
    except (TaskError, ValueError) as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    if isolation == "none" and not slots:
        errors.print(f"[yellow]warning:[/yellow] {NO_ISOLATION_WARNING}")
    for note in relay_notes(
        {"main": None if model == settings.REFERENCE_MODEL else model, **role_options.models()}
    ):
        say(note)
    if user is not None and user.startswith(f"{RELAY}:"):
        folder = Path(user.partition(":")[2]).expanduser().absolute()
        say(f"relay: the agents' questions to the user appear in {folder}/HARNESS/DOMAIN/TASK (one per task)")
    if cache is None:
        build_fixtures(options.cache)
    try:
        with (
            stop_signals_as_interrupt(),
            live_view(results, watch, say),
            SuiteProgress(console, len(jobs)) as progress,
        ):
            outcomes = run_suite(options, progress.on_job, _report_retired)
    except KeyboardInterrupt as stop:
        console.print(
            "[yellow]stopped[/yellow]: the running tasks were interrupted and their sandboxes closed; "
            f"the same command resumes into {escape(str(results))}"
        )
        raise typer.Exit(
            ExitCode.TERMINATED if isinstance(stop, Terminated) else ExitCode.INTERRUPTED
        ) from None
    failed = [o for o in outcomes if o.error]
    for outcome in failed:
        console.print(f"[red]{escape(outcome.job.label)}[/red]: {escape(outcome.error)}")
    write_tables(results, show=True)
    if html:
        report(results)
    if failed:
        raise typer.Exit(1)


def check_engine(engine: str, address: str | None) -> None:
    """ValueError for an unknown engine, an --address without Ray, or Ray not installed."""
    engines = (settings.ENGINE_LOCAL, settings.ENGINE_RAY)
    if engine not in engines:
        raise ValueError(f"unknown engine {engine!r}: use one of {', '.join(engines)}")
    if address and engine != settings.ENGINE_RAY:
        raise ValueError("--address is for --engine ray")
    if engine == settings.ENGINE_RAY:
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ValueError("--engine ray needs Ray: pip install 'stateact[ray]'") from None


def _report_retired(retired) -> None:
    console.print(f"[yellow]retired[/yellow] {escape(str(retired))}")


def write_tables(results: Path, show: bool = False) -> list[Path]:
    """Write summary.md, summary.csv and tasks.csv into `results`; optionally print the table (the
    terminal's view on a terminal, every column elsewhere)."""
    from stateact.evals.reports.comparison import COLUMNS, aggregate, tasks_csv, to_csv, to_markdown, to_rich
    from stateact.evals.reports.task_metrics import collect_metrics

    metrics = collect_metrics(results)
    rows = aggregate(metrics)
    if show:
        print_table(
            console, to_rich(rows), [c.header for c in COLUMNS], [[c.show(r) for c in COLUMNS] for r in rows]
        )
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
    from stateact.evals.reports.html_report import write_html_report
    from stateact.evals.reports.task_metrics import task_folders

    if not Path(results).is_dir():
        errors.print(f"[red]error:[/red] {escape(str(results))} is not a folder")
        raise typer.Exit(2)
    if not task_folders(results):
        errors.print(
            f"[red]error:[/red] {escape(str(results))} holds no task results "
            "(<harness>/<model>/<domain>/<task>/result.txt or error.json): give the folder "
            "`stateact eval run` or `stateact run --task` wrote (its --results)"
        )
        raise typer.Exit(2)
    write_tables(results)
    index = write_html_report(results, out)
    console.print(f"report: {escape(str(index))}")
