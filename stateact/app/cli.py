"""The `stateact` command line: run a task, show a run, check the machine."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from stateact.app.arguments import check_budgets, check_folder_can_be_made, check_models, relay_notes
from stateact.app.config import RunConfig, absolute_path
from stateact.app.exit_codes import ExitCode, exit_code_for
from stateact.app.renamed_options import RUN_RENAMES, group_with_renames
from stateact.app.role_options import DEFAULT_ROLE_OPTIONS, RoleOptions, settings_warnings, with_role_options
from stateact.app.signals import Terminated, stop_signals_as_interrupt
from stateact.app.terminal import reflow_help, whole_lines
from stateact.app.variants import FULL_HARNESS, default_turns_text, get_variant
from stateact.evals.osworld import bridge
from stateact.evals.osworld.task import load_task
from stateact.evals.running.step_budgets import CHECKPOINT_STEPS_HELP, parse_budgets
from stateact.kernel import settings
from stateact.kernel.runlog import RunFolderFull
from stateact.kernel.runtime import RoleModels
from stateact.sandbox.base import SandboxError
from stateact.sandbox.caps import DISK_HOME_HELP, DISK_TMP_HELP, disk_caps, size_text
from stateact.sandbox.isolation import NO_ISOLATION_WARNING
from stateact.sandbox.limits import DEFAULT_MEMORY_TEXT, LIMITS_HELP, SandboxLimits
from stateact.sandbox.netns import NETWORK_OPTION_HELP
from stateact.sandbox.settings import (
    DEFAULT_ISOLATION,
    DEFAULT_NETWORK,
    DISK_HOME_BYTES,
    DISK_TMP_BYTES,
    LIMIT_PROCESSES,
)

if TYPE_CHECKING:
    from stateact.app.run import RunResult

USER_HELP = (
    "Who answers the agent's questions (ask_user): terminal (the default when stdin is a terminal), "
    "scripted:FILE (a JSON list of answers), relay:DIR (answered in files: `stateact relay DIR`) or none. "
    "--user-model SPEC instead makes a simulated user play the task file's persona."
)

app = typer.Typer(
    cls=group_with_renames(RUN_RENAMES),
    add_completion=False,
    no_args_is_help=True,
    help="A code-first harness for computer-use agents.",
)
console = Console()
errors = Console(stderr=True, soft_wrap=True)
"""Error and warning lines."""
say = whole_lines(console)
"""Lines of paths and commands."""


@app.command()
@with_role_options
def run(
    instruction: Annotated[str | None, typer.Argument(help="The task, in words (or give --task).")] = None,
    task: Annotated[
        Path | None, typer.Option(help="An OSWorld task file: its setup, the agent, then its scoring.")
    ] = None,
    cache: Annotated[
        Path, typer.Option(help="Download cache of --task: URLs resolve here, fetched on a miss.")
    ] = Path("cache"),
    results: Annotated[Path, typer.Option(help="OSWorld-style results folder of --task runs.")] = Path(
        "results"
    ),
    cdp_url: Annotated[
        str | None, typer.Option(help="Attach the web subagent to a running Chrome (e.g. http://HOST:9222).")
    ] = None,
    model: Annotated[
        str,
        typer.Option(help="Main model: anthropic:MODEL, openai:MODEL@BASE_URL, scripted:PATH or relay:DIR."),
    ] = os.environ.get("STATEACT_MODEL", settings.DEFAULT_MODEL),
    role_options: RoleOptions = DEFAULT_ROLE_OPTIONS,
    harness: Annotated[str, typer.Option(help="Harness variant (see `stateact variants`).")] = FULL_HARNESS,
    sandbox: Annotated[str, typer.Option(help="`local` or osworld://HOST:PORT.")] = "local",
    workdir: Annotated[Path | None, typer.Option(help="Home folder of a local sandbox.")] = None,
    display: Annotated[bool, typer.Option(help="Start a private X display (local sandbox).")] = True,
    isolation: Annotated[
        str, typer.Option(help="Local sandbox isolation: `bwrap` (bubblewrap) or `none` (host processes).")
    ] = DEFAULT_ISOLATION,
    network: Annotated[str, typer.Option(help=NETWORK_OPTION_HELP)] = DEFAULT_NETWORK,
    max_processes: Annotated[int, typer.Option(help=LIMITS_HELP[0])] = LIMIT_PROCESSES,
    max_memory: Annotated[str, typer.Option(help=LIMITS_HELP[1])] = DEFAULT_MEMORY_TEXT,
    disk_home: Annotated[str, typer.Option(help=DISK_HOME_HELP)] = size_text(DISK_HOME_BYTES),
    disk_tmp: Annotated[str, typer.Option(help=DISK_TMP_HELP)] = size_text(DISK_TMP_BYTES),
    runs_root: Annotated[Path, typer.Option(help="Where run folders are made.")] = Path("runs"),
    max_steps: Annotated[
        int | None,
        typer.Option(help=f"Top-level agent turn budget (default: {default_turns_text()})."),
    ] = None,
    max_usd: Annotated[float, typer.Option(help="Dollar budget for the whole run.")] = settings.MAIN_MAX_USD,
    max_minutes: Annotated[float, typer.Option(help="Wall-time budget.")] = settings.MAIN_MAX_SECONDS / 60,
    osworld_python: Annotated[str | None, typer.Option(help=f"With --task: {bridge.OPTION_HELP}")] = None,
    record: Annotated[
        bool, typer.Option(help="Keep a video of the display (recording.mp4 in the run and results folders).")
    ] = True,
    watch: Annotated[
        bool, typer.Option(help="Serve the live view of the run on loopback while it runs (see `watch`).")
    ] = False,
    user: Annotated[str | None, typer.Option(help=USER_HELP)] = None,
    checkpoint_steps: Annotated[
        str | None, typer.Option(help=f"With --task: {CHECKPOINT_STEPS_HELP}")
    ] = None,
) -> None:
    """Run one task and save its trajectory, cost and verdict in a run folder.

    Exit codes: 0 finished and the gate passed (or confirmed an infeasibility claim, or could not
    decide); 1 the gate did not pass the work or the claim; 2 bad arguments or an unreachable sandbox; 3 an error that is not the agent's
    (provider, harness; with --task also setup and scoring: the results folder then has error.json and
    no result.txt, and the next run does the task again); 4 a budget ran out; 5 the agent stopped
    without calling finish; 130 Ctrl-C; 143 SIGTERM. With --task the score is printed and saved; the
    exit code says how the run ended, not the score.
    """
    from stateact.app.progress import ProgressPrinter
    from stateact.app.run import execute, new_run_id, run_dir_of
    from stateact.app.users import check_user, interactive_default
    from stateact.app.watch import live_view

    if (instruction is None) == (task is None):
        errors.print("[red]error:[/red] give an instruction or --task FILE (one of the two)")
        raise typer.Exit(2)
    try:
        bridge.use_python(osworld_python)
        specs = {"main": model, **role_options.models()}
        check_budgets(max_steps, max_usd, max_minutes)
        check_models(specs.values())
        check_user(user, bool(specs.get("user")))
        get_variant(harness)
        check_folder_can_be_made(runs_root, "--runs-root")
        if task is not None:
            load_task(task)
        budgets = parse_budgets(checkpoint_steps)
        if budgets and task is None:
            raise ValueError("--checkpoint-steps scores a task file: give --task")
        if budgets and role_options.best_of > 1:
            raise ValueError("--checkpoint-steps scores one run of a task: with --best-of, use `eval run`")
        role_settings = role_options.settings()
        disk = disk_caps(disk_home, disk_tmp)
        config = RunConfig(
            instruction=instruction or f"(from {task})",
            models=RoleModels(**specs, settings=role_settings),
            harness=harness,
            sandbox=sandbox,
            workdir=workdir,
            display=display,
            isolation=isolation,
            network=network,
            limits=SandboxLimits.from_options(max_processes, max_memory),
            disk_home=disk.home,
            disk_tmp=disk.tmp,
            cdp_url=cdp_url,
            runs_root=runs_root,
            max_turns=max_steps,
            max_usd=max_usd,
            max_seconds=max_minutes * 60,
            run_id=new_run_id(),
            record=record,
            user=interactive_default(user, bool(specs.get("user")), role_options.best_of),
        )
        for warning in settings_warnings(specs, role_settings):
            errors.print(f"[yellow]warning:[/yellow] {escape(warning)}")
        if config.isolation == "none" and config.sandbox.backend.on_this_machine:
            errors.print(f"[yellow]warning:[/yellow] {NO_ISOLATION_WARNING}")
        for note in relay_notes(specs):
            say(note)
        with stop_signals_as_interrupt(), live_view(config.runs_root / config.run_id, watch, say):
            if task is not None:
                _run_task_file(
                    task, config, absolute_path(cache), absolute_path(results), role_options.best_of, budgets
                )
                return
            if role_options.best_of > 1:
                result = _run_best_of(config, role_options.best_of)
            else:
                say(f"the agent's home: {config.workdir or run_dir_of(config) / 'home'}")
                result = execute(config, ProgressPrinter(console))
    except ValidationError as exc:
        for problem in exc.errors():
            errors.print(f"[red]error:[/red] {escape(problem['msg'].removeprefix('Value error, '))}")
        raise typer.Exit(2) from None
    except (ValueError, FileNotFoundError, SandboxError, bridge.BridgeError) as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    except RunFolderFull as exc:
        _folder_full(exc)
    except KeyboardInterrupt as exc:
        _interrupted(config.runs_root / config.run_id, exc)
    _report(result)


def _run_best_of(config: RunConfig, best_of: int) -> RunResult:
    """N rollouts and the judge's pick (evals/running/best_of_run.py); the pick's run result."""
    from stateact.evals.running.best_of_run import run_best_of

    console.print(f"best of {best_of}: rollouts in {config.runs_root / config.run_id}")
    done = run_best_of(config, best_of)
    console.print(f"picked rollout {done.pick.rollout} ({done.pick.by}): {escape(done.pick.reasons)}")
    return done.run


def _run_task_file(
    task: Path, config: RunConfig, cache: Path, results: Path, best_of: int = 1, budgets: tuple[int, ...] = ()
) -> None:
    from stateact.app.progress import ProgressPrinter
    from stateact.evals.osworld.task import SHIPPED_SUITES
    from stateact.evals.running.runner import run_task

    if task.resolve().is_relative_to(SHIPPED_SUITES):  # its downloads resolve to the shipped fixtures
        from stateact.evals.fixtures.build import build_fixtures

        build_fixtures(cache)  # as `eval run` builds them
    if best_of > 1:
        from stateact.evals.running.best_of_run import run_task_best_of

        outcome = run_task_best_of(task, config, cache, results, best_of)
    else:
        outcome = run_task(
            task, config, cache, results, listener=ProgressPrinter(console), checkpoint_steps=budgets
        )
    _report_task(outcome)


def _report_task(outcome) -> None:
    """Print a task file's score (or why it was not scored) and exit with the run's code."""
    from stateact.evals.osworld.metrics.explain import failed_checkpoints
    from stateact.evals.running.results import ERROR_FILE, read_score_parts

    if outcome.failure is not None:
        failure = outcome.failure
        console.print(
            f"[red]error in {failure.stage}[/red] ({escape(failure.what)}): {escape(failure.error)}\n"
            f"not scored — {outcome.result_dir / ERROR_FILE}"
        )
        raise typer.Exit(ExitCode.ERROR)
    if outcome.skipped:
        console.print(
            f"already scored: {outcome.score:g} — {outcome.result_dir} (remove result.txt to run again)"
        )
        return
    console.print(
        f"score [bold]{outcome.score:g}[/bold] — results in {outcome.result_dir}, run in {outcome.run_dir}"
    )
    for line in failed_checkpoints(read_score_parts(outcome.result_dir)):
        console.print(f"  [red]failed[/red] {escape(line)}", soft_wrap=True)
    raise typer.Exit(run_exit_code(outcome.run_dir))


def _interrupted(run_dir: Path, stop: KeyboardInterrupt) -> None:
    code = ExitCode.TERMINATED if isinstance(stop, Terminated) else ExitCode.INTERRUPTED
    console.print(
        f"[yellow]interrupted[/yellow]: the sandbox was closed. Resume with:\n  stateact resume {run_dir}"
    )
    raise typer.Exit(code)


def _folder_full(exc: RunFolderFull) -> None:
    """The run folder's disk was full before the run could start: one line, and the error's exit code."""
    errors.print(f"[red]error:[/red] {escape(str(exc))}")
    raise typer.Exit(ExitCode.ERROR) from None


def run_exit_code(run_dir: Path | None) -> ExitCode:
    """The exit code of the run whose folder is `run_dir`, from its result.json."""
    try:
        result = json.loads((Path(run_dir) / "result.json").read_text())
    except (TypeError, OSError, ValueError):
        return ExitCode.ERROR
    return exit_code_for(result.get("status", "error"), result.get("gate_passed"))


def _report(result) -> None:
    code = exit_code_for(result.status, result.gate_passed)
    colour = "green" if code == ExitCode.DONE else "red"
    gate = " (the finish gate did not pass the work)" if code == ExitCode.GATE_FAILED else ""
    console.print(
        f"[{colour}]{result.status}[/{colour}]{gate} after {result.turns} turns, ${result.usd:.4f}, "
        f"{result.seconds:.1f}s — {result.run_dir}"
    )
    if result.status == "error":
        errors.print(f"[red]error:[/red] {escape(result.text)}")
    raise typer.Exit(code)


@app.command()
def resume(
    run_dir: Annotated[Path, typer.Argument(help="The folder of a stopped run.")],
    max_steps: Annotated[int | None, typer.Option(help="Raise the main-agent turn budget.")] = None,
    max_usd: Annotated[float | None, typer.Option(help="Raise the dollar budget.")] = None,
    max_minutes: Annotated[float | None, typer.Option(help="Raise the wall-time budget.")] = None,
) -> None:
    """Continue a stopped run (crash, kill, Ctrl-C, spent budget, provider outage) from its log; a
    `--task` run has the programs of its setup started again and is scored at its end."""
    from stateact.app.progress import ProgressPrinter
    from stateact.app.resume import ResumeError, load_run_state
    from stateact.app.run import resume as resume_run

    try:
        check_budgets(max_steps, max_usd, max_minutes)
        budgets = {
            "max_turns": max_steps,
            "max_usd": max_usd,
            "max_seconds": max_minutes * 60 if max_minutes is not None else None,
        }
        with stop_signals_as_interrupt():
            if load_run_state(run_dir).config.task is not None:
                from stateact.evals.running.runner import resume_task

                _report_task(resume_task(run_dir, ProgressPrinter(console), **budgets))
                return
            result = resume_run(run_dir, ProgressPrinter(console), **budgets)
    except (ResumeError, ValueError) as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(ExitCode.USAGE) from None
    except RunFolderFull as exc:
        _folder_full(exc)
    except KeyboardInterrupt as exc:
        _interrupted(run_dir, exc)
    _report(result)


@app.command()
def show(
    run_dir: Annotated[
        Path, typer.Argument(help="A run folder, or a task's results folder (with score.json).")
    ],
) -> None:
    """A readable summary of a run: steps, tool calls, results, verdict and cost; for a task's results,
    its run and then each checkpoint with what it compared."""
    from stateact.app.show import render_run
    from stateact.evals.reports.checkpoints import render_checkpoints
    from stateact.evals.running.results import SCORE_FILE, linked_run_dir, read_json_object, read_score_parts
    from stateact.kernel.events import EventLogError

    task_dir = run_dir if (run_dir / SCORE_FILE).is_file() else None
    if task_dir is not None:
        run_dir = linked_run_dir(task_dir, read_json_object(task_dir / SCORE_FILE))
    if not (run_dir / "events.jsonl").exists():
        errors.print(f"[red]error:[/red] {run_dir} has no events.jsonl")
        raise typer.Exit(2)
    try:
        render_run(run_dir, console, lambda text: errors.print(f"[yellow]warning:[/yellow] {escape(text)}"))
    except EventLogError as exc:
        errors.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    if task_dir is not None:
        render_checkpoints(read_score_parts(task_dir), console)


@app.command()
def watch(
    folder: Annotated[
        Path, typer.Argument(help="A run folder, or a folder of runs (a runs or results folder).")
    ],
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1 (0: a free one).")] = 0,
) -> None:
    """Serve a live view of runs on loopback: the event log as it grows (turns, tool calls and results,
    plan, gate verdicts, spend) beside the run's display; it follows the newest live run. Ctrl-C stops it."""
    import threading

    from stateact.app.watch import WatchServer

    if not folder.is_dir():
        errors.print(f"[red]error:[/red] no folder {escape(str(folder))}")
        raise typer.Exit(ExitCode.USAGE)
    try:
        server = WatchServer(folder, port)
    except OSError as exc:
        errors.print(f"[red]error:[/red] cannot serve on 127.0.0.1:{port}: {escape(str(exc))}")
        raise typer.Exit(ExitCode.USAGE) from None
    try:
        with stop_signals_as_interrupt(), server:
            console.print(f"watching {escape(str(folder))} at {server.url} (Ctrl-C stops)")
            threading.Event().wait()
    except KeyboardInterrupt:
        raise typer.Exit(0) from None


@app.command()
def relay(
    directory: Annotated[Path, typer.Argument(help="The folder of a `relay:DIR` model.")],
    lines: Annotated[
        int, typer.Option(help="Lines of the request to show (0: all).")
    ] = settings.RELAY_TAIL_LINES,
    follow: Annotated[bool, typer.Option(help="Keep answering, request after request.")] = False,
) -> None:
    """Play a model: show the pending relay request, and send the reply typed on stdin (end: a line `.`)."""
    import sys

    from stateact.app.relay_player import play

    if not directory.is_dir():
        errors.print(
            f"[red]error:[/red] no relay folder {escape(str(directory))}: give the folder of a running "
            "`--model relay:DIR` run (the run makes it when it starts)"
        )
        raise typer.Exit(ExitCode.USAGE)
    try:
        play(directory, sys.stdin, typer.echo, lines, follow)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


@app.command()
def cleanup(
    runs_root: Annotated[Path, typer.Option(help="The runs folder whose stopped runs to list.")] = Path(
        "runs"
    ),
    remove: Annotated[
        bool, typer.Option("--remove", help="Remove the processes and temp folders of dead runs' sandboxes.")
    ] = False,
) -> None:
    """List what dead runs left (sandbox processes such as Xvfb, sandbox temp folders, run folders kept
    for a resume); --remove removes the first two. Run folders are never removed."""
    from stateact.app.cleanup import cleanup as clean

    clean(runs_root, remove, typer.echo)


def _version(show: bool) -> None:
    if show:
        from importlib.metadata import version

        typer.echo(f"stateact {version('stateact')}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """A code-first harness for computer-use agents."""


@app.command()
def doctor(
    fix: Annotated[
        bool, typer.Option("--fix", help="Build the sandbox's Python first if it is missing.")
    ] = False,
    pool: Annotated[
        Path | None, typer.Option(help="A pool file of `eval run --pool`: also check what its slots need.")
    ] = None,
) -> None:
    """Check every outside piece a feature uses on this machine (sandbox, network, display, recordings,
    apps, browser, keys, versions), each with the command that fixes it; exit 1 when one fails."""
    from stateact.app.doctor import checks_for, fix_sandbox_python, run_checks

    if fix and not fix_sandbox_python(say):
        raise typer.Exit(1)
    ok = run_checks(console, checks_for(pool))
    raise typer.Exit(0 if ok else 1)


@app.command()
def variants() -> None:
    """List the harness variants."""
    from stateact.app.variants import VARIANTS

    for variant in VARIANTS.values():
        console.print(f"[bold]{variant.name}[/bold]: {variant.description}")


def _register_suite_commands() -> None:
    """`stateact eval validate|run` and `stateact report` live with the task suites."""
    from stateact.evals.cli import eval_app, report

    app.add_typer(eval_app, name="eval")
    app.command("report")(report)


_register_suite_commands()
reflow_help(app)
