"""Run configuration: one pydantic model, saved as `config.json` in the run folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from sandbox.settings import DEFAULT_ISOLATION, SANDBOX_HOME
from stateact import settings
from stateact.app.variants import FULL_HARNESS
from stateact.runtime import RoleModels


def absolute_path(path: Path | str) -> Path:
    """`path` with `~` expanded, made absolute against the current folder (symlinks kept)."""
    return Path(os.path.abspath(Path(path).expanduser()))


class RunConfig(BaseModel):
    instruction: str
    models: RoleModels
    harness: str = FULL_HARNESS
    sandbox: str = "local"
    """`local`, or `osworld://HOST:PORT`."""
    workdir: Path | None = None
    """The local sandbox's home folder; a fresh folder in the run folder when empty."""
    display: bool = True
    """Start a private X display for a local sandbox."""
    isolation: Literal["bwrap", "none"] | None = DEFAULT_ISOLATION
    """How a local sandbox is isolated: `bwrap` (bubblewrap namespaces, home at /home/user) or `none`;
    None for a VM, which is a machine of its own."""
    cdp_url: str | None = None
    """A running Chrome's DevTools endpoint for the web subagent (an OSWorld VM's, e.g. http://HOST:9222);
    without it the web subagent launches its own headless Chromium."""
    runs_root: Path = Path("runs")
    run_id: str = ""
    max_turns: int | None = None
    """The top-level agent's turn budget; None takes the harness variant's default."""
    max_usd: float | None = settings.MAIN_MAX_USD
    max_seconds: float | None = settings.MAIN_MAX_SECONDS
    apps: list[str] = Field(default_factory=list)
    """The task's applications (an OSWorld task file's `related_apps`); they pick the app priors of the
    main prompt, with the instruction's words and the windows open at the start."""
    labels: dict[str, str] = Field(default_factory=dict)
    """Free-form tags (suite, task id) carried into results."""

    @field_validator("workdir", "runs_root")
    @classmethod
    def _absolute(cls, path: Path | None) -> Path | None:
        """Every path a run uses is absolute from here on: shells and sandboxes run in other folders."""
        return None if path is None else absolute_path(path)

    @field_validator("sandbox")
    @classmethod
    def _known_sandbox(cls, spec: str) -> str:
        from sandbox.base import SandboxError
        from sandbox.osworld import SCHEME, parse_osworld_spec

        if spec != "local":
            if not spec.startswith(SCHEME):
                raise ValueError(f"unknown sandbox {spec!r}: use `local` or `osworld://HOST:PORT`")
            try:
                parse_osworld_spec(spec)
            except SandboxError as exc:
                raise ValueError(str(exc)) from None
        return spec

    @model_validator(mode="after")
    def _isolation_of_local_sandboxes_only(self) -> RunConfig:
        if self.sandbox != "local":
            self.isolation = None
        return self

    def sandbox_home(self, host_home: Path) -> str:
        """The home folder of a local sandbox made at `host_home`, as the sandbox's processes see it."""
        return SANDBOX_HOME if self.sandbox == "local" and self.isolation == "bwrap" else str(host_home)
