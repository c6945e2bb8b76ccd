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
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stateact.kernel.runtime import RunContext
    from stateact.kernel.tools.base import Tool

MAIN = "main"
DEFAULT_MODEL_HELP = "Model spec for this role (default: the main model)."


@dataclass(frozen=True)
class Role:
    """One role: its name, the help of its `--NAME-model` option and, for a subagent, its delegate tool."""

    name: str
    model_help: str = DEFAULT_MODEL_HELP
    delegate: str | Callable[[RunContext], Tool] | None = None
    """A subagent's: what builds the main agent's tool that hands it a subgoal, or its path
    `module:attribute`, imported when the tool is first built (None: not a subagent)."""

    def delegate_tool(self, context: RunContext) -> Tool:
        """The main agent's tool that hands this subagent a subgoal."""
        factory = self.delegate
        if isinstance(factory, str):
            module, _, attribute = factory.partition(":")
            factory = getattr(importlib.import_module(module), attribute)
        if factory is None:
            raise ValueError(f"role {self.name!r} is not a subagent")
        return factory(context)


_REGISTRY: dict[str, Role] = {}


def register_role(role: Role) -> Role:
    """Add `role` to the registry; ValueError when another role has its name."""
    known = _REGISTRY.setdefault(role.name, role)
    if known is not role:
        raise ValueError(f"role {role.name!r} is registered already")
    return role


def roles() -> tuple[Role, ...]:
    """Every registered role, in the order they were registered."""
    return tuple(_REGISTRY.values())


def role_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def other_roles() -> tuple[str, ...]:
    """The roles besides main: each has its own model option (left empty: the main model)."""
    return tuple(name for name in _REGISTRY if name != MAIN)


def subagent_roles() -> tuple[Role, ...]:
    """The roles the main agent can delegate to, each through its own tool."""
    return tuple(role for role in _REGISTRY.values() if role.delegate is not None)


register_role(Role(MAIN))
register_role(Role("compactor"))


def role_of_scope(scope: str) -> str:
    """The role whose loop logs under `scope`: `gui#3` -> `gui`, `main` -> `main`."""
    return scope.partition("#")[0]


def is_numbered_scope(scope: str) -> bool:
    """Whether `scope` is one numbered loop of a role (`gui#3`), not a role's own name."""
    return "#" in scope


def numbered_scope(role: str, number: int) -> str:
    """The scope of a role's `number`th loop of a run: `gui`, 3 -> `gui#3`."""
    return f"{role}#{number}"
