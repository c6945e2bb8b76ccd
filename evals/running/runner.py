"""Running one OSWorld task file end to end: setup, the agent, scoring, results.

    outcome = run_task(task_path, config, cache_dir, results_dir)     # the harness, as `config` says
    outcome = run_task_file(task_path, sandbox, run_agent, cache_dir, results_dir, model="anthropic:...")

Before any sandbox starts or model is called, the pre-flight check (evals/running/check.py) fails a task
that cannot be scored here (an unsupported step, getter, metric or option; a file to download or an
expected file that is neither cached nor downloadable) with error.json.

`run_task` is the one way the harness runs a task file: `stateact run --task`, every suite job
(evals/running/suite_runner.py) and every validation (evals/running/validate.py) go through it. `run_task_file` takes
any agent: `run_agent(instruction, sandbox) -> run_dir` runs it on the (path-mapped) instruction in
the started sandbox and returns the run folder. If the run's `result.json` carries `"infeasible": true`, the agent
declared the task infeasible. The three stages are also callable one by one:
`prepare_task` (load, map paths, run `config`), `score_prepared` (postconfig,
metrics; the files it scored are kept in the task's `artifacts/`), `write_results` (evals/running/results.py).

On a VM, a setup or postconfig step that failed is only recorded, as OSWorld does: `score.json`'s
`setup_degraded` lists them, and the reports mark the task (on a local sandbox such a step fails the
setup, evals/osworld/setup.py). A stage that fails for a reason that is not the agent's (evals/running/failures.py) ends
the task with `error.json` and no `result.txt`: the setup raised, the harness
raised or its run ended with an error before the first turn (`result.json`
status `error`, `turns` 0), or scoring raised (ScoringError). The outcome then
carries the failure instead of a score, and the task runs again next time.

`resume_task` continues a `--task` run that was stopped (its run folder's config names the task): in a
new local sandbox the task's setup steps that start programs are run again, and those of the scheduled
changes made before the stop (not those that place
files or run commands: the agent may have changed what they made), the harness waits for the ports
those programs serve on, the agent goes on, and the task is scored as any other.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from stateact.app.config import RunConfig, TaskRun
from stateact.app.resume import ResumeError
from stateact.app.run import execute, load_resumable, new_run_id, resume_in, run_dir_of
from stateact.app.signals import shielded
from stateact.app.survival import CARRIED_TMP, carry_tmp, drop_staged_tmp, end_leftovers, resume_note
from stateact.app.variants import FULL_HARNESS
from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.needs import missing_needs
from stateact.evals.osworld.paths import HomeMap
from stateact.evals.osworld.scoring import ScoreReport, check_evaluator_known, score_task
from stateact.evals.osworld.setup import (
    SetupContext,
    SetupError,
    command_text,
    degraded_steps,
    launch_ending,
    run_steps,
)
from stateact.evals.osworld.setup_files import SETUP_FILES, SetupFiles, put_back
from stateact.evals.osworld.task import Task, load_task, standalone_domain, step_budget, task_domain
from stateact.evals.osworld.vm_image import give_home_settings
from stateact.evals.running.budget_scores import BudgetScorer, clear_budget_results, fill_unreached, steps_in
from stateact.evals.running.check import local_gaps, preflight
from stateact.evals.running.failures import AGENT, SCORING, SETUP, TaskFailure
from stateact.evals.running.midrun import MidRun, made_changes
from stateact.evals.running.results import (
    RUN_DIR_KEY,
    fresh_artifacts_dir,
    is_done,
    model_key,
    read_score,
    task_result_dir,
    write_args,
    write_error,
    write_results,
)
from stateact.evals.running.rollouts import run_rollout
from stateact.evals.running.schedule import Schedule
from stateact.evals.running.task_ports import check_ports_free, command_ports, named_host_ports
from stateact.kernel.runlog import EventListener
from stateact.sandbox.base import Sandbox, SandboxError

RunAgent = Callable[[str, Sandbox], Path]
PROGRAM_STEPS = {"launch", "open", "chrome_open_tabs", "activate_window", "sleep"}
"""Setup steps that start programs (or act on their windows), and pauses: what a resume in a new sandbox
redoes. Commands (`execute`, `command`) are not redone: their changes to files are kept, and running one
again could undo the agent's work (an `rm`, an overwrite) or fail on what it already did."""
PORT_WAIT_S = 20.0
"""How long a resume waits for the ports the relaunched programs serve on (evals/running/task_ports.py)."""
PORT_PROBE = """\
import json, socket
closed = []
for port in {ports!r}:
    try:
        socket.create_connection(("127.0.0.1", port), 0.2).close()
    except OSError:
        closed.append(port)
print(json.dumps(closed))
"""
"""Run in the sandbox: the ports that accept no connection (a JSON list)."""
PORT_PROBE_INTERVAL_S = 0.2
PROCESS_MATCH = """\
import pathlib
command, words = {targets!r}
def argv(path):
    try:
        return path.read_bytes().decode(errors="replace").rstrip("\\0").split("\\0")
    except OSError:
        return []
lines = [argv(p) for p in pathlib.Path("/proc").glob("[0-9]*/cmdline")]
print("yes" if any(command in a or " ".join(a) == words for a in lines) else "no")
"""
"""Run in the sandbox: whether a process runs a launched command (`yes` or `no`)."""


@dataclass
class PreparedTask:
    """A task mapped onto a sandbox, its setup done."""

    task: Task
    path: Path
    domain: str
    cache: FileCache
    setup_records: list[dict]

    @property
    def instruction(self) -> str:
        return self.task.instruction


@dataclass
class TaskOutcome:
    """A scored task (`score`), or one that failed for a reason that is not the agent's (`failure`)."""

    score: float | None
    result_dir: Path
    skipped: bool = False
    report: ScoreReport | None = None
    run_dir: Path | None = None
    failure: TaskFailure | None = None


def map_task(task: Task, sandbox: Sandbox) -> Task:
    """The task with `/home/user` paths pointing at the sandbox's home (see evals/osworld/paths.py)."""
    home_map = HomeMap(sandbox.home)
    return Task.model_validate(home_map.apply(task.model_dump(mode="json", exclude_unset=True)))


def prepare_task(
    task_path: Path, sandbox: Sandbox, cache_dir: Path, setup_dir: Path | None = None
) -> PreparedTask:
    """Load the task file, map its paths for `sandbox`, and run its setup steps there; raises PortTaken
    (evals/running/task_ports.py) first when the sandbox shares this machine's network and a port of the task is
    served already, forwards the sites on this machine that the task names into a sandbox with a network
    of its own, and raises SetupError when the task needs a VM the sandbox is not (evals/osworld/needs.py) or, on a
    local sandbox, what this machine lacks (an application, a site that does not answer). On a local
    sandbox, what the steps place or create is recorded in `setup_dir` for a resume
    (evals/osworld/setup_files.py; None: recorded in the setup's records only)."""
    raw = load_task(task_path)
    check_evaluator_known(raw)
    if sandbox.shares_host_network:
        check_ports_free(raw)
    needs = missing_needs(raw, sandbox)
    if needs:
        raise SetupError(needs)
    cache = FileCache(cache_dir)
    if not sandbox.full_system and (gaps := local_gaps(raw, cache)):
        raise SetupError(f"this machine lacks what the task needs: {'; '.join(gaps)}")
    sandbox.reach_host_ports(named_host_ports(raw))
    task = map_task(raw, sandbox)
    files = None if sandbox.full_system else SetupFiles(setup_dir)
    if not sandbox.full_system:
        give_home_settings(sandbox)
    context = SetupContext(cache=cache, task_dir=Path(task_path).resolve().parent, files=files)
    run_steps(task.config, sandbox, context)
    if files is not None:
        files.finish(sandbox)
    return PreparedTask(task, Path(task_path), task_domain(task_path, raw), cache, context.records)


def restart_programs(
    task_path: Path, sandbox: Sandbox, cache_dir: Path, setup_dir: Path, made: set[str] = frozenset()
) -> PreparedTask:
    """The task mapped onto a new sandbox over its kept files, with the setup steps that start programs
    run again (see PROGRAM_STEPS), and those of the scheduled changes made before the stop (ids `made`),
    once what they need and is gone is put back from `setup_dir` (evals/osworld/setup_files.py), then a
    wait for the ports they serve on. An `open` of a file that is gone (the agent moved or removed it) is
    skipped. Raises SetupError naming a program that exited or does not answer on its port."""
    raw = load_task(task_path)
    task = map_task(raw, sandbox)
    cache = FileCache(cache_dir)
    context = SetupContext(cache=cache, task_dir=Path(task_path).resolve().parent)
    scheduled = [step for change in task.schedule if change.id in made for step in change.steps]
    programs = [step for step in [*task.config, *scheduled] if step.type in PROGRAM_STEPS]
    named = " ".join(
        command_text(step.parameters.get("command", "")) for step in programs if step.type == "launch"
    )
    placed = put_back(setup_dir, sandbox, named)
    if placed:
        context.records.append({"type": "put_back", "files": placed})
    for step in programs:
        if step.type == "open" and not sandbox.exists(str(step.parameters.get("path", ""))):
            context.records.append({"type": "open", "path": step.parameters.get("path", ""), "skipped": True})
        else:
            run_steps([step], sandbox, context)
    _wait_for_ports(sandbox, context.records)
    for record in context.records:
        if record["type"] == "launch" and not _running(sandbox, record["command"]):
            record["exited"] = launch_ending(sandbox, record) or "exited"
    return PreparedTask(task, Path(task_path), task_domain(task_path, raw), cache, context.records)


def _wait_for_ports(sandbox: Sandbox, records: list[dict]) -> None:
    """Wait for the ports the relaunched programs serve on; raises SetupError naming the program of a
    port that does not answer: at once when it exited (with its exit status and output), or after
    PORT_WAIT_S when it runs and does not answer."""
    launches = [record for record in records if record["type"] == "launch"]
    closed = sorted(frozenset().union(*(command_ports(r["command"]) for r in launches)))
    deadline = time.monotonic() + PORT_WAIT_S
    while closed:
        probe = sandbox.run_python(PORT_PROBE.format(ports=closed), timeout=PORT_WAIT_S)
        with contextlib.suppress(ValueError):
            closed = json.loads(probe.stdout) if probe.ok else closed
        if not closed:
            return
        serving = [r for r in launches if command_ports(r["command"]) & set(closed)] or launches
        ended = [(r, ending) for r in serving if (ending := launch_ending(sandbox, r))]
        if ended or time.monotonic() > deadline:
            problems = ended or [(r, "runs and does not answer") for r in serving]
            named = "; ".join(f"`{record['command']}` {state}" for record, state in problems)
            raise SetupError(
                f"a relaunched program does not serve its port {', '.join(map(str, closed))}: {named}"
            )
        time.sleep(PORT_PROBE_INTERVAL_S)


def _running(sandbox: Sandbox, command: str) -> bool:
    """Whether a process of the sandbox runs `command` (a launched program still alive): as a shell
    runs it (`sh -c COMMAND`), or, for a simple command the shell replaced itself with, as its words."""
    try:
        words = " ".join(shlex.split(command))
    except ValueError:
        return True  # not a command line we can match: take the launch at its word
    found = sandbox.run_python(PROCESS_MATCH.format(targets=(command, words)), timeout=10)
    return not found.ok or found.stdout.strip() == "yes"


def restarted_programs(records: list[dict]) -> list[str]:
    """What the redone steps started or placed again, as the resume notice names it."""
    named = {"launch": "command", "open": "path", "chrome_open_tabs": "urls"}
    lines = []
    for record in records:
        if record["type"] not in named:
            continue
        line = f"{record['type']} {record[named[record['type']]]}"
        if record.get("exited"):
            line += f" (it {record['exited']}: it is not running)"
        if record.get("skipped"):
            line += " (not opened again: the file is gone)"
        lines.append(line)
    placed = [path for r in records if r["type"] == "put_back" for path in r["files"]]
    if placed:
        lines.append(
            f"first placed again, since these programs read them and they were gone: {', '.join(placed)}"
        )
    return lines


def _run_result(run_dir: Path | None) -> dict:
    """The run's result.json, or {} when there is none (or it is torn)."""
    if run_dir is None:
        return {}
    try:
        result = json.loads((Path(run_dir) / "result.json").read_text())
    except (OSError, ValueError):
        return {}
    return result if isinstance(result, dict) else {}


def declared_infeasible(run_dir: Path | None) -> bool:
    """Whether the run's result.json says the agent declared the task infeasible."""
    return bool(_run_result(run_dir).get("infeasible", False))


def failed_before_first_turn(run_dir: Path | None) -> TaskFailure | None:
    """The failure of a run whose result.json has status `error` and 0 turns (e.g. the provider failed)."""
    result = _run_result(run_dir)
    if result.get("status") != "error" or result.get("turns") != 0:
        return None
    message = str(result.get("text") or "the run ended with an error before the agent's first turn")
    return TaskFailure(AGENT, "agent run, before its first turn", message)


def score_prepared(
    prepared: PreparedTask, sandbox: Sandbox, run_dir: Path | None, work_dir: Path
) -> ScoreReport:
    """Score the task; every file a getter fetches (the agent's and the expected ones) lands in `work_dir`."""
    return score_task(
        prepared.task,
        sandbox,
        prepared.cache,
        work_dir,
        declared_infeasible(run_dir),
        task_dir=prepared.path.resolve().parent,
    )


def run_task_file(
    task_path: Path,
    sandbox: Sandbox,
    run_agent: RunAgent,
    cache_dir: Path,
    results_dir: Path,
    model: str = "unknown",
    harness: str = FULL_HARNESS,
    result_dir: Path | None = None,
    start: Callable[[], None] | None = None,
    domain: str | None = None,
    setup_dir: Path | None = None,
) -> TaskOutcome:
    """Pre-flight check (evals/running/check.py), setup, agent, scoring and results for one task file; a task
    with result.txt is skipped. `result_dir`: where its results go (default: its folder of the OSWorld
    layout; a best-of-N rollout's own folder otherwise). `start`: starts `sandbox`, called once the
    pre-flight check passed (None: it is started already). `domain`: the task's domain in its suite
    (None: a task run on its own, `standalone_domain`). `setup_dir`: where the setup's files are kept
    for a resume (the run folder's SETUP_FILES; None: not kept).

    Raises TaskError only when the task file cannot be read (there is no task id to file an error
    under); any later failure that is not the agent's is written to error.json and returned."""
    raw = load_task(task_path)
    domain = domain or standalone_domain(task_path, raw)
    layout_dir = task_result_dir(results_dir, harness, model, domain, raw.id)
    result_dir = result_dir or layout_dir
    if is_done(result_dir):
        return TaskOutcome(read_score(result_dir), result_dir, skipped=True)
    write_args(
        layout_dir.parent.parent, {"harness": harness, "model": model, "results_dir": str(results_dir)}
    )
    checked = preflight(raw, FileCache(cache_dir))
    if checked is not None:  # before any sandbox or model work
        return _failed(result_dir, raw, None, checked)
    if start is not None:
        start()
    return _set_up_and_run(
        result_dir,
        raw,
        sandbox,
        lambda: prepare_task(task_path, sandbox, cache_dir, setup_dir),
        lambda prepared: run_agent(prepared.instruction, sandbox),
    )


def _failed(result_dir: Path, raw: Task, run_dir: Path | None, failure: TaskFailure) -> TaskOutcome:
    where = str(Path(run_dir).resolve()) if run_dir else None
    write_error(result_dir, failure, {"task_id": raw.id, RUN_DIR_KEY: where})
    return TaskOutcome(None, result_dir, run_dir=run_dir, failure=failure)


def _set_up_and_run(
    result_dir: Path,
    raw: Task,
    sandbox: Sandbox,
    prepare: Callable[[], PreparedTask],
    run_agent: Callable[[PreparedTask], Path],
) -> TaskOutcome:
    """Setup (`prepare`), the agent, scoring and results; a failure that is not the agent's is error.json."""
    try:
        prepared = prepare()
    except Exception as exc:  # the task could not be set up: not the agent's failure
        return _failed(result_dir, raw, None, TaskFailure.from_exception(SETUP, exc))
    try:
        run_dir = run_agent(prepared)
    except Exception as exc:  # the harness itself raised
        return _failed(result_dir, raw, None, TaskFailure.from_exception(AGENT, exc))
    early = failed_before_first_turn(run_dir)
    if early is not None:
        return _failed(result_dir, raw, run_dir, early)
    screenshot = _final_screenshot(sandbox)
    try:
        report = score_prepared(prepared, sandbox, run_dir, fresh_artifacts_dir(result_dir))
    except Exception as exc:  # ScoringError, or a fault of the scorer itself
        return _failed(result_dir, raw, run_dir, TaskFailure.from_exception(SCORING, exc))
    details = {"task_id": raw.id, RUN_DIR_KEY: str(Path(run_dir).resolve()), "setup": prepared.setup_records}
    details.update(report.as_dict())
    details["setup_degraded"] = degraded_steps(prepared.setup_records + report.postconfig)
    write_results(result_dir, run_dir, report.score, details, screenshot)
    return TaskOutcome(report.score, result_dir, report=report, run_dir=run_dir)


def run_task(
    task_path: Path,
    config: RunConfig,
    cache_dir: Path,
    results_dir: Path,
    *,
    sandbox: Sandbox | None = None,
    model: str | None = None,
    listener: EventListener | None = None,
    result_dir: Path | None = None,
    rollout: bool = False,
    domain: str | None = None,
    checkpoint_steps: tuple[int, ...] = (),
) -> TaskOutcome:
    """The harness on one task file: setup, a run of `config` on the task's instruction (the task's
    apps named), scoring, results (`run_task_file`).

    sandbox: a started sandbox to run in (None: a fresh one as `config` says, closed at the end).
    model: the model's name in the results folder (None: `config`'s models).
    domain: the task's domain in its suite (None: a task run on its own).
    result_dir, rollout: a best-of-N rollout's folder, where the start state and the final state's
    evidence for the judge are saved around the run (evals/running/rollouts.py).
    checkpoint_steps: the step budgets the task is scored at while it runs (evals/running/budget_scores.py).
    The task's scheduled changes are made while it runs (evals/running/schedule.py)."""
    raw = load_task(task_path)
    apps, max_turns = raw.related_apps, step_budget(raw, config.max_turns, None)
    key = model or model_key(config.models.main, config.models)
    config = config.model_copy(update={"run_id": config.run_id or new_run_id()})
    domain = domain or standalone_domain(task_path, raw)
    task_run = TaskRun(
        file=Path(task_path).resolve(),
        cache=Path(cache_dir).resolve(),
        results=Path(results_dir).resolve(),
        model=key,
        result_dir=Path(result_dir).resolve() if result_dir else None,
        domain=domain,
        checkpoint_steps=list(checkpoint_steps),
    )
    scored_in = result_dir or task_result_dir(results_dir, config.harness, key, domain, raw.id)

    def run_agent(instruction: str, sandbox: Sandbox) -> Path:
        clear_budget_results(scored_in)  # a task run anew is scored anew at its budgets
        watch = mid_run(task_run, map_task(raw, sandbox), sandbox, scored_in)
        run = config.model_copy(
            update={
                "instruction": instruction,
                "apps": apps,
                "task": task_run,
                "max_turns": max_turns,
                "persona": raw.persona,
            }
        )
        watchers = [watch.attach]
        try:
            if rollout and result_dir is not None:
                return run_rollout(
                    run,
                    sandbox,
                    result_dir,
                    lambda: execute(run, listener, sandbox=sandbox, watchers=watchers).run_dir,
                )
            return Path(execute(run, listener, sandbox=sandbox, watchers=watchers).run_dir)
        finally:
            watch.stop()

    def run_in(sandbox: Sandbox, start: Callable[[], None] | None = None) -> TaskOutcome:
        return run_task_file(
            task_path,
            sandbox,
            run_agent,
            cache_dir,
            results_dir,
            model=key,
            harness=config.harness,
            result_dir=result_dir,
            start=start,
            domain=domain,
            setup_dir=run_dir_of(config) / SETUP_FILES,
        )

    if sandbox is not None:
        return scored_at_budgets(run_in(sandbox), task_run)
    home = config.workdir or run_dir_of(config) / "home"
    own = config.make_sandbox(home)
    try:
        return scored_at_budgets(run_in(own, start=own.start), task_run)
    finally:
        with shielded():
            own.close()


def mid_run(task_run: TaskRun, task: Task, sandbox: Sandbox, result_dir: Path) -> MidRun:
    """What the harness does while the task (mapped onto `sandbox`) runs: its scheduled changes and its
    scores at the run's step budgets."""
    cache, task_dir = FileCache(task_run.cache), task_run.file.parent
    schedule = Schedule(task.schedule, sandbox, cache, task_dir) if task.schedule else None
    budgets = tuple(task_run.checkpoint_steps)
    scorer = BudgetScorer(task, sandbox, cache, task_dir, result_dir, budgets) if budgets else None
    return MidRun(schedule, scorer)


def scored_at_budgets(outcome: TaskOutcome, task_run: TaskRun) -> TaskOutcome:
    """The outcome, once every step budget the run did not reach has its final score."""
    if task_run.checkpoint_steps and outcome.score is not None and not outcome.skipped and outcome.run_dir:
        budgets, steps = tuple(task_run.checkpoint_steps), steps_in(outcome.run_dir)
        fill_unreached(outcome.result_dir, budgets, outcome.report, outcome.score, steps)
    return outcome


def resume_task(
    run_dir: Path,
    listener: EventListener | None = None,
    sandbox: Sandbox | None = None,
    **budget_overrides: float | None,
) -> TaskOutcome:
    """Continue a stopped `--task` run (or suite job) and score it. What the stopped sandbox left is ended
    (its /tmp carried over); a VM is used as it is, a new local sandbox gets the task's programs started
    again; the agent is told what survived. `sandbox`: an unstarted sandbox over the run's home, which
    the caller closes (None: one made as the run's config says). Raises ResumeError when the run is not a
    task's or not resumable."""
    run_dir = Path(run_dir)
    state = load_resumable(run_dir)
    task = state.config.task
    if task is None:
        raise ResumeError(f"{run_dir} is not a task file's run")
    raw = load_task(task.file)
    domain = task.domain or standalone_domain(task.file, raw)  # where its first run filed it
    layout_dir = task_result_dir(task.results, state.config.harness, task.model, domain, raw.id)
    result_dir = task.result_dir or layout_dir
    if is_done(result_dir):
        return TaskOutcome(read_score(result_dir), result_dir, skipped=True)
    leftovers = end_leftovers(state.sandbox_tags, run_dir / CARRIED_TMP)
    own = sandbox is None
    sandbox = sandbox or state.config.make_sandbox(state.config.workdir or run_dir / "home")
    carried: list[str] = []

    def prepare() -> PreparedTask:
        sandbox.start()
        carried.extend(carry_tmp(leftovers, sandbox))
        if sandbox.full_system:  # the machine kept running: nothing to start again
            drop_staged_tmp(leftovers)
            return PreparedTask(
                map_task(raw, sandbox), task.file, task_domain(task.file, raw), FileCache(task.cache), []
            )
        made = made_changes(run_dir)
        prepared = restart_programs(task.file, sandbox, task.cache, run_dir / SETUP_FILES, made)
        drop_staged_tmp(leftovers)  # up, with the stopped sandbox's /tmp: a failure before keeps it
        return prepared

    def run_agent(prepared: PreparedTask) -> Path:
        note = resume_note(sandbox, leftovers, carried, restarted_programs(prepared.setup_records))
        watch = mid_run(task, prepared.task, sandbox, result_dir)
        try:
            resumed = resume_in(state, run_dir, sandbox, note, listener, [watch.attach], **budget_overrides)
        finally:
            watch.stop()
        return Path(resumed.run_dir)

    try:
        return scored_at_budgets(_set_up_and_run(result_dir, raw, sandbox, prepare, run_agent), task)
    finally:
        if own:
            with shielded():
                sandbox.close()


def _final_screenshot(sandbox: Sandbox) -> bytes | None:
    try:
        return sandbox.screenshot()
    except (SandboxError, OSError):
        return None
