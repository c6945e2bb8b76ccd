"""`stateact run --best-of N`: N rollouts of one task in parallel (one after another for a task that
serves on fixed ports when the sandboxes share this machine's network), each in its own local sandbox from the same start, and the judge's pick as the
result.

    result, pick = run_best_of(config, 3)                     # an instruction
    outcome = run_task_best_of(task, config, cache, results, 3)  # an OSWorld task file (--task)

An instruction's rollouts live in `runs/<run_id>/rollouts/<k>/`: `home/` (a copy of the work folder,
or empty), `run/` (a normal run folder), `start/` and `evidence.json` (what the judge sees). The
judgement is in `runs/<run_id>/judge/`, the summary in `runs/<run_id>/best_of.json`. The picked
rollout's home is then copied back into the work folder (`--workdir`): files the picked rollout
removed are removed there, so the work folder ends as the pick left its home (every rollout's home
stays in the run folder). A task file runs as a one-task suite of N rollouts (evals/running/best_of.py) in
OSWorld's results layout. Only local sandboxes: a VM pool runs best-of-N through `stateact eval run`.
"""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from stateact.app.config import RunConfig
from stateact.app.run import RunResult, execute
from stateact.app.signals import shielded
from stateact.evals.osworld.task import load_task, standalone_domain
from stateact.evals.running.best_of import BEST_OF_FILE, JUDGE_FOLDER, finish_task
from stateact.evals.running.engines.local import run_on_threads
from stateact.evals.running.failures import TaskFailure
from stateact.evals.running.jobs import RUN_FOLDER, SuiteJob, SuiteOptions
from stateact.evals.running.results import ERROR_FILE
from stateact.evals.running.rollouts import rollout_budget, rollout_dir, run_rollout
from stateact.evals.running.runner import TaskOutcome
from stateact.evals.running.suite import SuiteTask
from stateact.gate.judge.evidence import Evidence, load_evidence
from stateact.gate.judge.judge import Pick, judge_rollouts
from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.pool import LocalSlot

HOME_FOLDER = "home"
LOCAL_ONLY = "--best-of runs local sandboxes; for VMs use `stateact eval run --best-of N` with a pool of VMs"


@dataclass
class BestOfResult:
    """The picked rollout's run result, the pick, and where the rollouts are."""

    run: RunResult
    pick: Pick
    folder: Path


def run_best_of(config: RunConfig, best_of: int) -> BestOfResult:
    """Run the instruction `best_of` times in parallel, judge, and copy the pick's home to the work folder."""
    if not config.sandbox.backend.on_this_machine:
        raise SandboxError(LOCAL_ONLY)
    folder = Path(config.runs_root) / config.run_id
    folder.mkdir(parents=True)
    with ThreadPoolExecutor(max_workers=best_of, thread_name_prefix="rollout") as pool:
        results = list(pool.map(lambda k: _rollout(config, folder, k, best_of), range(1, best_of + 1)))
    evidence: list[Evidence | None] = [load_evidence(rollout_dir(folder, k)) for k in range(1, best_of + 1)]
    spent = sum(result.usd for result in results)
    budget = None if config.max_usd is None else max(0.0, config.max_usd - spent)
    pick = judge_rollouts(config.instruction, evidence, config.models, folder / JUDGE_FOLDER, budget)
    winner = rollout_dir(folder, pick.rollout) / HOME_FOLDER
    if config.workdir is not None:
        mirror(winner, Path(config.workdir))
    summary = {
        "best_of": best_of,
        "pick": asdict(pick),
        "rollouts": [{"rollout": k, **asdict(r)} for k, r in enumerate(results, 1)],
        "usd": round(spent + pick.usd, 6),
        "home": str(config.workdir or winner),
    }
    (folder / BEST_OF_FILE).write_text(json.dumps(summary, indent=1, ensure_ascii=False), encoding="utf-8")
    return BestOfResult(results[pick.rollout - 1], pick, folder)


def _rollout(config: RunConfig, folder: Path, k: int, best_of: int) -> RunResult:
    place = rollout_dir(folder, k)
    home = place / HOME_FOLDER
    if config.workdir is not None and Path(config.workdir).is_dir():
        shutil.copytree(config.workdir, home, symlinks=True)
    home.mkdir(parents=True, exist_ok=True)
    rollout = config.model_copy(
        update={
            "runs_root": place,
            "run_id": RUN_FOLDER,
            "workdir": home,
            "max_usd": rollout_budget(config.max_usd, best_of),
        }
    )
    sandbox = config.make_sandbox(home)
    results: list[RunResult] = []
    try:
        sandbox.start()
        run_rollout(rollout, sandbox, place, lambda: _run(rollout, sandbox, results))
    finally:
        with shielded():
            sandbox.close()
    return results[0]


def _run(config: RunConfig, sandbox: Sandbox, results: list[RunResult]) -> str:
    results.append(execute(config, sandbox=sandbox))
    return results[0].run_dir


def mirror(source: Path, target: Path) -> None:
    """Make `target` hold what `source` holds: entries `source` lacks are removed, the rest copied over."""
    target.mkdir(parents=True, exist_ok=True)
    for entry in target.iterdir():
        twin = source / entry.name
        if not (twin.exists() or twin.is_symlink()) or _is_folder(entry) != _is_folder(twin):
            if _is_folder(entry):
                shutil.rmtree(entry)
            else:
                entry.unlink()
    for entry in source.iterdir():
        destination = target / entry.name
        if _is_folder(entry):
            mirror(entry, destination)
        else:
            destination.unlink(missing_ok=True)
            shutil.copy2(entry, destination, follow_symlinks=False)


def _is_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def run_task_best_of(
    task_path: Path, config: RunConfig, cache_dir: Path, results_dir: Path, best_of: int
) -> TaskOutcome:
    """An OSWorld task file run `best_of` times and judged, as a one-task suite (evals/running/best_of.py)."""
    if not config.sandbox.backend.on_this_machine:
        raise SandboxError(LOCAL_ONLY)
    task = load_task(task_path)
    options = SuiteOptions(
        suite=Path(task_path).resolve().parent,
        harnesses=(config.harness,),
        model=config.models.main,
        results=results_dir,
        cache=cache_dir,
        role_models=config.models.others(),
        role_settings=config.models.settings,
        workers=best_of,
        max_seconds=config.max_seconds,
        max_usd=config.max_usd,
        max_turns=config.max_turns,
        display=config.display,
        isolation=config.isolation,
        limits=config.limits,
        disk=config.disk,
        best_of=best_of,
    )
    suite_task = SuiteTask(Path(task_path), task, standalone_domain(task_path, task))
    jobs = [SuiteJob(suite_task, config.harness, k) for k in range(1, best_of + 1)]
    hidden = (Path(config.runs_root),)
    slots = [
        LocalSlot(
            f"rollout{k}",
            config.display,
            config.isolation,
            hidden,
            config.network,
            config.limits,
            config.disk,
        )
        for k in range(1, best_of + 1)
    ]
    outcomes = run_on_threads(options, jobs, slots, lambda *_: None, lambda _: None)
    outcome = finish_task(options, SuiteJob(suite_task, config.harness), outcomes)
    failure = None
    if outcome.error:
        record = json.loads((outcome.result_dir / ERROR_FILE).read_text(encoding="utf-8"))
        failure = TaskFailure(record["stage"], record["what"], record["error"])
    run_dir = outcome.result_dir / RUN_FOLDER
    return TaskOutcome(outcome.score, outcome.result_dir, outcome.skipped, run_dir=run_dir, failure=failure)
