"""Every role with a model, registered once by the module that owns it: the model options, results keys,
best-of-N rollouts, the command line's `--ROLE-model` flags, the per-role settings tables and the main
agent's delegate tools all come from the registry.

The kernel registers its own roles (main, compactor); the others are declared in light modules that
name their implementation by path, so declaring them imports nothing heavy (`register_role(Role("gui",
delegate="stateact.subagents.gui:DelegateGuiTool"))` in `subagents/roles.py`), and `stateact.app.roles` imports
those declarations. A role's loops log under scopes named `role#N`
(`gui#3`); `main` is the main agent's own scope.

    role_of_scope("gui#3")  # "gui"
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from stateact.kernel.tools.base import Tool

RunT = TypeVar("RunT")
"""What a subagent's delegate tool is built from: the run's `RunContext` (which sits above this registry,
so the registry names it only through this parameter)."""

MAIN = "main"
DEFAULT_MODEL_HELP = "Model spec for this role (default: the main model)."


@dataclass(frozen=True)
class Role(Generic[RunT]):
    """One role and every part of it the rest of the harness takes up: its name, the help of its
    `--NAME-model` option, its settings model and run-start preparation and, for a subagent, its
    delegate tool and its brief in the main agent's prompt."""

    name: str
    model_help: str = DEFAULT_MODEL_HELP
    delegate: str | Callable[[RunT], Tool[Any]] | None = None
    """A subagent's: what builds the main agent's tool that hands it a subgoal, or its path
    `module:attribute`, imported when the tool is first built (None: not a subagent)."""
    brief: str | Path = ""
    """A subagent's: what the main agent's prompt says of it when its delegate tool is present, as text
    or a prompt file (`stateact.kernel.prompts.loader`)."""
    absent_brief: str | Path = ""
    """A subagent's: what the main agent's prompt says when its delegate tool is absent ("": nothing)."""
    settings: type[BaseModel] | None = None
    """The model of the role's settings table: the kernel's RoleSettings with the role's own fields
    added (`stateact.kernel.models.role_settings`); None: RoleSettings itself."""
    prepare: str | Callable[[RunT], None] | None = None
    """What the role's part does once when a run starts afresh, before the first turn (the gate: its
    baseline of the task's files), or its path `module:attribute`; None: nothing."""

    @property
    def tool_name(self) -> str:
        """The name of a subagent's delegate tool: `delegate_<role>`."""
        return f"delegate_{self.name}"

    def delegate_tool(self, context: RunT) -> Tool[Any]:
        """The main agent's tool that hands this subagent a subgoal."""
        if self.delegate is None:
            raise ValueError(f"role {self.name!r} is not a subagent")
        tool: Tool[Any] = _resolve(self.delegate)(context)
        if tool.name != self.tool_name:
            raise ValueError(
                f"the delegate tool of role {self.name!r} is named {tool.name!r}, not {self.tool_name!r}"
            )
        return tool

    def prepare_run(self, context: RunT) -> None:
        """Prepare the role's part for a run starting afresh (nothing when it has no `prepare`)."""
        if self.prepare is not None:
            _resolve(self.prepare)(context)


def _resolve(target: str | Callable[..., Any]) -> Callable[..., Any]:
    """A callable, or the one a `module:attribute` path names (its module imported now)."""
    if isinstance(target, str):
        module, _, attribute = target.partition(":")
        found: Callable[..., Any] = getattr(importlib.import_module(module), attribute)
        return found
    return target


_REGISTRY: dict[str, Role[Any]] = {}
RoleT = TypeVar("RoleT", bound=Role[Any])


def register_role(role: RoleT) -> RoleT:
    """Add `role` to the registry; ValueError when another role has its name."""
    known = _REGISTRY.setdefault(role.name, role)
    if known is not role:
        raise ValueError(f"role {role.name!r} is registered already")
    return role


def extend_settings(name: str, settings: type[BaseModel]) -> None:
    """Give the registered role `name` a settings model with more fields (a subclass of its own): the
    pixel harness's main agent sees the screen, so `main` takes the screen settings."""
    role = _REGISTRY[name]
    if not issubclass(settings, role.settings or BaseModel):
        raise ValueError(f"{settings.__name__} does not extend the settings of role {name!r}")
    _REGISTRY[name] = replace(role, settings=settings)


def roles() -> tuple[Role[Any], ...]:
    """Every registered role, in the order they were registered."""
    return tuple(_REGISTRY.values())


def role_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def other_roles() -> tuple[str, ...]:
    """The roles besides main: each has its own model option (left empty: the main model)."""
    return tuple(name for name in _REGISTRY if name != MAIN)


def subagent_roles() -> tuple[Role[Any], ...]:
    """The roles the main agent can delegate to, each through its own tool."""
    return tuple(role for role in _REGISTRY.values() if role.delegate is not None)


register_role(Role(MAIN))
register_role(Role("compactor"))
register_role(
    Role(
        "user",
        model_help="Model spec of a simulated user, who answers the agent's `ask_user` questions as the "
        "task file's persona (default: no simulated user).",
    )
)


def role_of_scope(scope: str) -> str:
    """The role whose loop logs under `scope`: `gui#3` -> `gui`, `main` -> `main`."""
    return scope.partition("#")[0]


def is_numbered_scope(scope: str) -> bool:
    """Whether `scope` is one numbered loop of a role (`gui#3`), not a role's own name."""
    return "#" in scope


def numbered_scope(role: str, number: int) -> str:
    """The scope of a role's `number`th loop of a run: `gui`, 3 -> `gui#3`."""
    return f"{role}#{number}"
