"""A real run context for tool tests: a LocalSandbox (no display) and a run folder."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from stateact.kernel.meter import Meter
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.netns import loopback_ports


@contextmanager
def run_context(root: Path, isolation: str = "none", task: str = "test task") -> Iterator[RunContext]:
    """A started sandbox whose home is `root/home`, with a run log in `root/run`, for `task` (the sites on
    this machine it names forwarded in, as a run does); closed on exit."""
    sandbox = LocalSandbox(root / "home", isolation=isolation)
    sandbox.start()
    sandbox.reach_host_ports(loopback_ports(task))
    log = RunLog(root / "run")
    try:
        yield RunContext(
            run_dir=root / "run",
            task=task,
            sandbox=sandbox,
            log=log,
            meter=Meter(),
            models=RoleModels(main="scripted:unused.json"),
        )
    finally:
        log.close()
        sandbox.close()
