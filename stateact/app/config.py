"""Run configuration: one pydantic model, saved as `config.json` in the run folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, PlainSerializer, PlainValidator, field_validator, model_validator

from stateact.app.variants import FULL_HARNESS
from stateact.kernel import settings
from stateact.kernel.runtime import RoleModels
from stateact.sandbox.backends import SandboxOptions, SandboxSpec, make_sandbox, parse_spec
from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.caps import DiskCaps
from stateact.sandbox.limits import DEFAULT_LIMITS, SandboxLimits
from stateact.sandbox.settings import DEFAULT_ISOLATION, DEFAULT_NETWORK, DISK_HOME_BYTES, DISK_TMP_BYTES


def absolute_path(path: Path | str) -> Path:
    """`path` with `~` expanded, made absolute against the current folder (symlinks kept)."""
    return Path(os.path.abspath(Path(path).expanduser()))


def _sandbox_spec(value: SandboxSpec | str) -> SandboxSpec:
    """A `--sandbox` spec parsed once, when the config is made; a spec no backend takes is a ValueError."""
    if isinstance(value, SandboxSpec):
        return value
    try:
        return parse_spec(str(value))
    except SandboxError as exc:
        raise ValueError(str(exc)) from None


SandboxSpecField = Annotated[
    SandboxSpec, PlainValidator(_sandbox_spec), PlainSerializer(str, return_type=str)
]
"""A sandbox spec in a config: text in config.json, parsed in memory."""


class TaskRun(BaseModel):
    """The task file a run does (`stateact run --task`), so its resume sets it up again and scores it."""

    file: Path
    cache: Path
    results: Path
    model: str
    """The model's name in the results folder."""
    result_dir: Path | None = None
    """Where its results go when not in the results folder's layout (a best-of-N rollout's folder)."""
    domain: str | None = None
    """The domain folder its results are filed under (None: a run of an older version)."""
    checkpoint_steps: list[int] = Field(default_factory=list)
    """The step budgets it is scored at while it runs (`--checkpoint-steps`)."""


class RunConfig(BaseModel):
    instruction: str
    models: RoleModels
    harness: str = FULL_HARNESS
    sandbox: SandboxSpecField = Field("local", validate_default=True)
    """`local`, or `osworld://HOST:PORT` (sandbox/backends.py)."""
    workdir: Path | None = None
    """The local sandbox's home folder; a fresh folder in the run folder when empty."""
    display: bool = True
    """Start a private X display for a local sandbox."""
    isolation: Literal["bwrap", "none"] | None = DEFAULT_ISOLATION
    """How a local sandbox is isolated: `bwrap` (bubblewrap namespaces, home at /home/user) or `none`;
    None for a VM, which is a machine of its own."""
    network: Literal["own", "host"] = DEFAULT_NETWORK
    """An isolated local sandbox's network: `own` (a namespace of its own: the host's loopback out of
    reach, the sites the task names forwarded in) or `host` (this machine's, loopback included)."""
    limits: SandboxLimits = DEFAULT_LIMITS
    """Processes and memory a local sandbox may use (sandbox/cgroups.py)."""
    disk_home: int = DISK_HOME_BYTES
    """The most an isolated local sandbox's home may hold, in bytes (0: no cap; sandbox/mounts.py)."""
    disk_tmp: int = DISK_TMP_BYTES
    """The most its /tmp may hold, in bytes (0: no cap)."""
    cdp_url: str | None = None
    """A running Chrome's DevTools endpoint for the web subagent (an OSWorld VM's, e.g. http://HOST:9222);
    without it the web subagent launches its own headless Chromium."""
    runs_root: Path = Path("runs")
    run_id: str = ""
    max_turns: int | None = None
    """The top-level agent's turn budget; None takes the harness variant's default."""
    max_usd: float | None = settings.MAIN_MAX_USD
    max_seconds: float | None = settings.MAIN_MAX_SECONDS
    record: bool = True
    """Keep a video of the sandbox's display during the agent's run (`recording.mp4` in the run folder)."""
    apps: list[str] = Field(default_factory=list)
    """The task's applications (an OSWorld task file's `related_apps`); they pick the app priors of the
    main prompt, with the instruction's words and the windows open at the start."""
    user: str | None = None
    """Who answers the agent's `ask_user` (`stateact.app.users`): `terminal`, `scripted:FILE`,
    `relay:DIR`, `none`; None: nobody. A model for the `user` role (`--user-model`) wins: a simulated user."""
    persona: str = ""
    """The simulated user's persona (a task file's `user`); "": it knows only the instruction."""
    labels: dict[str, str] = Field(default_factory=dict)
    """Free-form tags (suite, task id) carried into results."""
    task: TaskRun | None = None

    @field_validator("workdir", "runs_root")
    @classmethod
    def _absolute(cls, path: Path | None) -> Path | None:
        """Every path a run uses is absolute from here on: shells and sandboxes run in other folders."""
        return None if path is None else absolute_path(path)

    @model_validator(mode="after")
    def _isolation_of_local_sandboxes_only(self) -> RunConfig:
        if not self.sandbox.backend.on_this_machine:
            self.isolation = None
        return self

    def sandbox_options(self, workdir: Path) -> SandboxOptions:
        """What the run's sandbox is made with, its home (on this machine) at `workdir`; the run's
        folders are hidden from it."""
        return SandboxOptions(
            workdir=workdir,
            display=self.display,
            isolation=self.isolation,
            hidden=(self.runs_root,),
            network=self.network,
            limits=self.limits,
            disk=self.disk,
            cdp_url=self.cdp_url,
        )

    @property
    def disk(self) -> DiskCaps:
        """The disk caps of an isolated local sandbox."""
        return DiskCaps(self.disk_home, self.disk_tmp)

    def make_sandbox(self, workdir: Path) -> Sandbox:
        """The run's sandbox, unstarted (see `sandbox_options`)."""
        return make_sandbox(self.sandbox, self.sandbox_options(workdir))

    def sandbox_home(self, host_home: Path) -> str:
        """The home folder of a sandbox made at `host_home`, as the sandbox's processes see it."""
        return self.make_sandbox(host_home).home
