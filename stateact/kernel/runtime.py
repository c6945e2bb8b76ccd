"""What every part of one run shares: the run folder, the sandbox, the log, the meter and the models."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, model_validator

from stateact.kernel.context.manager import ContextManager
from stateact.kernel.context.pipeline import build_context_manager
from stateact.kernel.context.processors import Processor
from stateact.kernel.events import ModelSettingsWarning
from stateact.kernel.loop import AgentLoop, LoopSpec
from stateact.kernel.meter import Meter
from stateact.kernel.models import ModelProvider, RoleSettings, create_model, parse_spec
from stateact.kernel.models.role_settings import settings_model, settings_of, unknown_model_warning
from stateact.kernel.roles import other_roles, role_names
from stateact.kernel.runlog import RunLog
from stateact.sandbox.base import Sandbox

LoopT = TypeVar("LoopT", bound=AgentLoop)


class RoleModels(BaseModel):
    """The model spec of each role (a role left empty uses the main model) and each role's settings.

    Each role besides main is a keyword of its own (`RoleModels(main=SPEC, gui=SPEC)`), one of the
    registered roles (`stateact.kernel.roles`); any other is refused."""

    model_config = ConfigDict(extra="allow")

    main: str
    settings: dict[str, SerializeAsAny[RoleSettings]] = Field(default_factory=dict)
    """Per-role model settings, each of its role's settings model (`stateact.kernel.models.role_settings`);
    a role without an entry uses defaults."""

    @model_validator(mode="before")
    @classmethod
    def _known_roles(cls, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        specs = {key: value for key, value in values.items() if key != "settings"}
        settings = values.get("settings") or {}
        unknown = sorted((set(specs) | set(settings)) - set(role_names()))
        if unknown:
            raise ValueError(f"unknown role(s) {', '.join(unknown)}; roles are {', '.join(role_names())}")
        for role, spec in specs.items():
            if not (spec is None or isinstance(spec, str)):
                raise ValueError(f"the model spec of role {role} is not text: {spec!r}")
            if spec is not None:
                parse_spec(spec)
        if isinstance(settings, dict):
            values = {
                **values,
                "settings": {role: settings_of(role, table) for role, table in settings.items()},
            }
        return values

    def others(self) -> dict[str, str | None]:
        """The model spec of each role besides main (None: the main model)."""
        return {role: getattr(self, role, None) for role in other_roles()}

    def spec_for(self, role: str) -> str:
        return getattr(self, role, None) or self.main

    def settings_for(self, role: str) -> RoleSettings:
        return self.settings.get(role) or settings_model(role)()


@dataclass
class RunContext:
    """Shared by the main agent, its subagents, the gate and context management."""

    run_dir: Path
    task: str
    sandbox: Sandbox
    log: RunLog
    meter: Meter
    models: RoleModels
    max_usd: float | None = None
    """The run's dollar budget: every loop of the run (main, gui, web, gate) spends from it."""
    deadline: float | None = None
    """When the run's time budget ends (`time.monotonic()`); None: no time limit. Tool calls that wait
    (a bash command, a delegation) wait no longer."""
    task_started_at: float | None = None
    """The sandbox's clock (epoch seconds) when the task first started; None: unknown."""
    _providers: dict[str, ModelProvider] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def dollar_budget(self, own_usd: float | None = None) -> float | None:
        """The run-wide spend (the meter's total) at which a loop starting now must stop.

        That is the run's budget, or sooner when the loop has its own cap of `own_usd` dollars: a loop
        never gets more than what remains of the run's budget. None: no dollar limit at all.
        """
        own = None if own_usd is None else self.meter.total_usd + own_usd
        return min((limit for limit in (self.max_usd, own) if limit is not None), default=None)

    def seconds_left(self, wanted: float) -> float:
        """`wanted` seconds, or fewer if the run's deadline comes sooner (never below zero)."""
        if self.deadline is None:
            return wanted
        return max(0.0, min(wanted, self.deadline - time.monotonic()))

    @property
    def dollars_spent(self) -> bool:
        """True once the run's dollar budget is used up."""
        return self.max_usd is not None and self.meter.total_usd >= self.max_usd

    def provider(self, role: str) -> ModelProvider:
        """The provider of a role, built once per run (a scripted role keeps its place in its script)."""
        with self._lock:
            if role not in self._providers:
                options = self.models.settings_for(role)
                self._providers[role] = create_model(self.models.spec_for(role), role, options)
                warning = unknown_model_warning(role, self._providers[role].name, options)
                if warning:
                    self.log.emit(ModelSettingsWarning(scope=role, message=warning))
            return self._providers[role]

    def loop(
        self,
        spec: LoopSpec,
        *,
        processors: Sequence[Processor] | None = None,
        model: ModelProvider | None = None,
        context: ContextManager | None = None,
        kind: type[LoopT] = AgentLoop,  # type: ignore[assignment]  # a TypeVar's default: python/mypy#3737
        **extra: Any,
    ) -> LoopT:
        """A loop of this run: `spec` says what sets it apart; the run supplies its log and meter, its
        role's model (unless `model` is given) and a context pipeline with `processors` (unless
        `context` is given). `kind` is the loop class; `extra` are its own arguments. Before each tool call the loop checks the
        sandbox's helpers (`Sandbox.restore_helpers`)."""
        model = model or self.provider(spec.loop_role)
        if context is None:
            context = build_context_manager(self, model.name, processors, window=model.info.context_window)
        return kind(
            spec,
            model=model,
            log=self.log,
            meter=self.meter,
            context=context,
            check_helpers=self.sandbox.restore_helpers,
            **extra,
        )
