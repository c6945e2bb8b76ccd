"""`stateact run --task T.json`: an OSWorld task file's setup, the agent, and its scoring."""

from __future__ import annotations

from pathlib import Path

from evals.results import model_key
from evals.runner import TaskOutcome, run_task_file
from evals.task import load_task
from sandbox.base import Sandbox
from sandbox.osworld import sandbox_from_spec
from stateact.app.config import RunConfig
from stateact.app.run import execute
from stateact.app.signals import shielded
from stateact.runlog import EventListener


def run_task(
    task_path: Path,
    config: RunConfig,
    cache_dir: Path,
    results_dir: Path,
    listener: EventListener | None = None,
) -> TaskOutcome:
    """Set up the task on a fresh sandbox, run the agent on it, score it, write OSWorld-style results."""
    run_dir = Path(config.runs_root) / config.run_id
    apps = load_task(task_path).related_apps

    def run_agent(instruction: str, sandbox: Sandbox) -> Path:
        result = execute(
            config.model_copy(update={"instruction": instruction, "apps": apps}), listener, sandbox=sandbox
        )
        return Path(result.run_dir)

    sandbox = sandbox_from_spec(
        config.sandbox,
        config.workdir or run_dir / "home",
        config.display,
        config.isolation,
        [config.runs_root],
    )
    try:
        sandbox.start()
        return run_task_file(
            task_path,
            sandbox,
            run_agent,
            cache_dir,
            results_dir,
            model=model_key(config.models.main, config.models),
            harness=config.harness,
        )
    finally:
        with shielded():
            sandbox.close()
