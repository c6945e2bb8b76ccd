"""A suite's jobs: what each (harness, task) job is, where its results go, and running one job on a slot.

The whole suite runs through `evals.running.suite_runner.run_suite`.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from stateact.app.config import RunConfig
from stateact.app.users import RELAY, parse_user_spec
from stateact.app.variants import get_variant
from stateact.evals import settings
from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.task import step_budget
from stateact.evals.running.check import preflight
from stateact.evals.running.failures import SETUP, TaskFailure
from stateact.evals.running.results import (
    ERROR_FILE,
    RESULT_FILE,
    RUN_FOLDER,
    is_done,
    model_key,
    read_score,
    task_result_dir,
    write_error,
)
from stateact.evals.running.rollouts import best_of_key, rollout_budget, rollout_dir, task_dir_of
from stateact.evals.running.runner import resume_task, run_task
from stateact.evals.running.stopped_jobs import StoppedRun, keep_for_resume, remove_work_folder, stopped_run
from stateact.evals.running.suite import SuiteTask, discover, mapped_solution, plays_user
from stateact.kernel.models.role_settings import RoleSettings
from stateact.kernel.runtime import RoleModels
from stateact.kernel.users import USER_ROLE
from stateact.sandbox.caps import DEFAULT_CAPS, DiskCaps
from stateact.sandbox.limits import DEFAULT_LIMITS, SandboxLimits
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.pool import LocalSlot, Slot, SlotRetired
from stateact.sandbox.settings import DEFAULT_ISOLATION, DEFAULT_NETWORK

REFERENCE_COPY = "reference_solution.json"
"""The reference solution a job played, its paths mapped onto the job's sandbox."""
SANDBOXES_FOLDER = ".sandboxes"
"""Where the jobs' sandbox homes live (under the results folder) while they run."""


@dataclass(frozen=True)
class SuiteOptions:
    """What `stateact eval run` was asked to do."""

    suite: Path
    harnesses: tuple[str, ...]
    model: str
    """A model spec, or `reference`: each task's own reference solution through the scripted provider."""
    results: Path
    cache: Path
    role_models: dict[str, str | None] = field(default_factory=dict)
    """Specs for the roles gui, web, gate, compactor (empty: the main model)."""
    role_settings: dict[str, RoleSettings] = field(default_factory=dict)
    """Per-role model settings (`stateact.kernel.models.role_settings`)."""
    workers: int = settings.WORKERS
    max_seconds: float = settings.TASK_TIMEOUT_S
    max_usd: float = settings.TASK_MAX_USD
    max_turns: int | None = None
    """The main agent's step budget (None: each task's `max_steps`, else settings.TASK_MAX_TURNS)."""
    display: bool = True
    only: tuple[str, ...] = ()
    """Task ids to run (empty: every task of the suite)."""
    pool: tuple[Slot, ...] = ()
    """Where jobs run (sandbox/pool.py); empty: `workers` local slots."""
    engine: str = settings.ENGINE_LOCAL
    """`local` (threads on this machine) or `ray` (evals/running/engines/ray_engine.py)."""
    address: str | None = None
    """The Ray cluster to join (None: start one on this machine)."""
    isolation: str = DEFAULT_ISOLATION
    """How local slots isolate their sandboxes: `bwrap` (bubblewrap, home at /home/user) or `none`."""
    network: str = DEFAULT_NETWORK
    """The network of isolated local sandboxes: `own` (jobs serve on any port side by side) or `host`."""
    limits: SandboxLimits = DEFAULT_LIMITS
    """Processes and memory each local sandbox may use (sandbox/cgroups.py)."""
    disk: DiskCaps = DEFAULT_CAPS
    """The disk caps of isolated local sandboxes' homes and /tmp (sandbox/mounts.py)."""
    best_of: int = 1
    """Rollouts of each task (evals/running/best_of.py); the judge picks the one that becomes the result."""
    record: bool = True
    """Keep a video of each task's display (`recording.mp4`)."""
    user: str | None = None
    """Who answers `ask_user` (`stateact.app.users`: scripted:FILE, relay:DIR, none); None: nobody, unless
    the `user` role has a model (a simulated user playing each task's persona)."""
    checkpoint_steps: tuple[int, ...] = ()
    """Step budgets each task is scored at while it runs (evals/running/budget_scores.py)."""


@dataclass(frozen=True)
class SuiteJob:
    task: SuiteTask
    harness: str
    rollout: int = 0
    """1..N for a rollout of a best-of-N task; 0 for a plain job."""

    @property
    def label(self) -> str:
        label = f"{self.harness}/{self.task.domain}/{self.task.id}"
        return f"{label}#{self.rollout}" if self.rollout else label


@dataclass
class JobOutcome:
    job: SuiteJob
    result_dir: Path
    score: float | None = None
    skipped: bool = False
    error: str = ""
    seconds: float = 0.0
    earlier: str = ""
    """What became of a run an earlier attempt left unfinished: resumed, or started over and why."""


JobListener = Callable[[str, SuiteJob, JobOutcome | None], None]
"""Called with ("start", job, None) and ("end", job, outcome), from worker threads."""
RetiredListener = Callable[[SlotRetired], None]
"""Called when a slot leaves the pool (it failed its reset or health check, or its worker died)."""


def plan_jobs(options: SuiteOptions) -> list[SuiteJob]:
    """Every (task, harness) pair, task by task (a suite stopped early still compares the harnesses on
    the same tasks); raises ValueError on an unknown harness, TaskError on a bad or empty suite."""
    for harness in options.harnesses:
        get_variant(harness)
    tasks = discover(options.suite, only=list(options.only) or None)
    if options.best_of < 1:
        raise ValueError(f"--best-of must be at least 1, got {options.best_of}")
    if (
        options.best_of > 1
        and options.model == settings.REFERENCE_MODEL
        and not options.role_models.get("judge")
    ):
        raise ValueError(
            "--best-of with --model reference needs a --judge-model (the reference plays scripts)"
        )
    rollouts = range(1, options.best_of + 1) if options.best_of > 1 else (0,)
    return [
        SuiteJob(task, harness, rollout)
        for task in tasks
        for harness in options.harnesses
        for rollout in rollouts
    ]


def job_result_dir(options: SuiteOptions, job: SuiteJob) -> Path:
    """The job's results folder; a rollout's is inside its task's (evals/running/best_of.py)."""
    folder = task_result_dir(options.results, job.harness, options_key(options), job.task.domain, job.task.id)
    return rollout_dir(folder, job.rollout) if job.rollout else folder


def options_key(options: SuiteOptions) -> str:
    """The results folder name of the suite's models (`evals.running.results.model_key`)."""
    others = {role: spec for role, spec in options.role_models.items() if spec}
    key = model_key(options.model, RoleModels(main="scripted:none", **others, settings=options.role_settings))
    return best_of_key(key, options.best_of)


def role_models(options: SuiteOptions, task: SuiteTask, home: str, result_dir: Path) -> RoleModels:
    """The models of a job: the given spec, or the task's reference solution mapped onto `home`.

    The solution's `/home/user` paths are rewritten to the sandbox's home in a copy kept in the
    task's results folder, which the scripted provider plays.
    """
    main = options.model
    if main == settings.REFERENCE_MODEL:
        main = f"scripted:{mapped_solution(task.solution_path, home, Path(result_dir) / REFERENCE_COPY)}"
    others = {role: spec for role, spec in options.role_models.items() if spec}
    if options.model == settings.REFERENCE_MODEL and options.user is None and plays_user(task.solution_path):
        others.setdefault(USER_ROLE, main)  # the solution's own simulated user answers its questions
    return RoleModels(main=main, **others, settings=options.role_settings)


def local_slot(options: SuiteOptions, name: str) -> LocalSlot:
    """A slot on this machine whose sandboxes are isolated as `options` says and see none of the suite's
    task files, results or cache (the folder of a suite given as one file)."""
    suite = Path(options.suite).resolve()
    folders = (suite if suite.is_dir() else suite.parent, options.results, options.cache)
    hidden = tuple(Path(p).resolve() for p in folders)
    return LocalSlot(
        name, options.display, options.isolation, hidden, options.network, options.limits, options.disk
    )


def unrun_outcome(options: SuiteOptions, job: SuiteJob, reason: str) -> JobOutcome:
    """A job no slot could run (every slot retired, or its worker kept dying): an error row that runs
    again next time."""
    result_dir = job_result_dir(options, job)
    failure = TaskFailure(SETUP, "sandbox pool", reason)
    write_error(result_dir, failure, {"task_id": job.task.id, "harness": job.harness})
    return JobOutcome(job, result_dir, error=failure.summary)


def done_outcome(options: SuiteOptions, job: SuiteJob) -> JobOutcome | None:
    """A skipped outcome when the job is done already (a rollout also when its task was judged)."""
    result_dir = job_result_dir(options, job)
    if is_done(result_dir):
        return JobOutcome(job, result_dir, read_score(result_dir), skipped=True)
    if job.rollout and is_done(task_dir_of(result_dir)):
        return JobOutcome(job, result_dir, skipped=True)
    return None


def run_job(options: SuiteOptions, job: SuiteJob, slot: Slot | None = None) -> JobOutcome:
    """One task under one harness on a fresh sandbox leased from `slot` (default: a local one); never
    raises for a task's own failure. A run an earlier attempt left unfinished goes on where it stopped
    when it can (evals/running/stopped_jobs.py), else the job starts over and its outcome says why.
    Raises SlotRetired when the slot cannot give a fresh sandbox, or stops answering during a job that
    then failed: the job is to run on another slot."""
    result_dir = job_result_dir(options, job)
    if (done := done_outcome(options, job)) is not None:
        return done
    slot = slot or local_slot(options, "local")
    sandboxes = Path(options.results) / SANDBOXES_FOLDER
    stopped = stopped_run(result_dir, slot, sandboxes, bool(job.rollout))
    kept_home = stopped.work_folder if stopped is not None and stopped.state is not None else None
    if kept_home is None:
        clear_attempt(result_dir)
    if (failure := job_preflight(options, job)) is not None:  # before any slot, sandbox or model work
        write_error(result_dir, failure, {"task_id": job.task.id, "harness": job.harness})
        return JobOutcome(job, result_dir, error=failure.summary)
    sandboxes.mkdir(parents=True, exist_ok=True)
    work = kept_home or Path(tempfile.mkdtemp(dir=sandboxes, prefix=f"{job.task.id}-"))
    ended = False
    try:
        outcome = _run_on_slot(options, job, slot, work, stopped)
        ended = True
        return outcome
    finally:
        if ended or not keep_for_resume(result_dir, slot, sandboxes, bool(job.rollout)):
            remove_work_folder(work, sandboxes)  # a job stopped before its end keeps its home to resume
        if stopped is not None and kept_home is None:
            remove_work_folder(stopped.work_folder, sandboxes)


def _run_on_slot(
    options: SuiteOptions, job: SuiteJob, slot: Slot, work: Path, stopped: StoppedRun | None
) -> JobOutcome:
    """The job on a sandbox of `slot` whose home is in `work`: the stopped run resumed, or a new run."""
    result_dir = job_result_dir(options, job)
    earlier = stopped.summary() if stopped is not None else ""
    started = time.monotonic()
    sandbox = slot.lease(work)
    try:
        if stopped is not None and stopped.state is not None:
            budgets = job_config(options, job, stopped.state.config.models, result_dir)
            outcome = resume_task(
                stopped.run_dir,
                sandbox=sandbox,
                max_turns=budgets.max_turns,
                max_usd=budgets.max_usd,
                max_seconds=budgets.max_seconds,
            )
        else:
            models = role_models(options, job.task, sandbox.home, result_dir)
            sandbox.start()
            config = job_config(options, job, models, result_dir)
            if isinstance(sandbox, LocalSandbox):  # named in config.json, for a resume
                config = config.model_copy(update={"workdir": Path(sandbox.host_home)})
            outcome = run_task(
                job.task.path,
                config,
                options.cache,
                options.results,
                sandbox=sandbox,
                model=options_key(options),
                result_dir=result_dir,
                rollout=bool(job.rollout),
                domain=job.task.domain,
                checkpoint_steps=options.checkpoint_steps,
            )
        error = outcome.failure.summary if outcome.failure else ""
        if error and not slot.healthy():
            raise SlotRetired(slot.name, f"it stopped answering during {job.label}: {error}")
        seconds = time.monotonic() - started
        return JobOutcome(job, result_dir, outcome.score, error=error, seconds=seconds, earlier=earlier)
    except SlotRetired:
        raise
    except Exception as exc:  # a task's failure is recorded, the suite goes on
        failure = TaskFailure.from_exception(SETUP, exc)
        write_error(result_dir, failure, {"task_id": job.task.id, "harness": job.harness})
        seconds = time.monotonic() - started
        return JobOutcome(job, result_dir, error=failure.summary, seconds=seconds, earlier=earlier)
    finally:
        slot.give_back(sandbox)


def job_preflight(options: SuiteOptions, job: SuiteJob) -> TaskFailure | None:
    """Why the job's task cannot run: its file cannot be read, or the pre-flight check fails."""
    if job.task.task is None:
        return TaskFailure(SETUP, "task file", job.task.problem)
    return preflight(job.task.task, FileCache(options.cache))


def job_config(options: SuiteOptions, job: SuiteJob, models: RoleModels, result_dir: Path) -> RunConfig:
    """The harness's run of a job: its models, variant and budgets (a rollout's share of the dollars);
    its run folder in the results."""
    return RunConfig(
        instruction=job.task.task.instruction,
        models=models,
        harness=job.harness,
        display=options.display,
        isolation=options.isolation,
        network=options.network,
        limits=options.limits,
        disk_home=options.disk.home,
        disk_tmp=options.disk.tmp,
        runs_root=result_dir,
        run_id=RUN_FOLDER,
        max_turns=step_budget(job.task.task, options.max_turns, settings.TASK_MAX_TURNS),
        max_usd=rollout_budget(options.max_usd, options.best_of) if job.rollout else options.max_usd,
        max_seconds=options.max_seconds,
        record=options.record,
        user=job_user(options.user, job),
        labels={"suite": str(options.suite), "domain": job.task.domain, "task": job.task.id},
    )


def job_user(spec: str | None, job: SuiteJob) -> str | None:
    """The job's `--user`: a relay folder gets a subfolder per job (jobs run side by side, and a relay
    folder waits for one answer at a time); a script is read from its start in every job."""
    if spec is not None and parse_user_spec(spec)[0] == RELAY:
        return f"{RELAY}:{Path(parse_user_spec(spec)[1]).expanduser().absolute() / job.label}"
    return spec


def clear_attempt(result_dir: Path) -> None:
    """Remove what an unfinished earlier attempt left, so the new run starts a fresh log."""
    shutil.rmtree(result_dir / RUN_FOLDER, ignore_errors=True)
    for name in (ERROR_FILE, RESULT_FILE):
        (result_dir / name).unlink(missing_ok=True)
