"""Every role with a model, declared once: the model options, results keys, best-of-N rollouts, the
command line's `--ROLE-model` flags and the per-role settings tables all come from `ROLES`.

A role's loops log under scopes named `role#N` (`gui#3`); `main` is the main agent's own scope.

    role_of_scope("gui#3")  # "gui"
"""

from __future__ import annotations

from dataclasses import dataclass

MAIN = "main"
DEFAULT_MODEL_HELP = "Model spec for this role (default: the main model)."


@dataclass(frozen=True)
class Role:
    """One role: its name and the help of its `--NAME-model` option."""

    name: str
    model_help: str = DEFAULT_MODEL_HELP


ROLES: tuple[Role, ...] = (
    Role(MAIN),
    Role("gui"),
    Role("web"),
    Role("gate"),
    Role("compactor"),
    Role("judge", model_help="Model spec of the best-of-N judge (default: the main model)."),
)
"""Every role; `judge` picks among best-of-N rollouts (gate/judge/)."""

ROLE_NAMES: tuple[str, ...] = tuple(role.name for role in ROLES)
OTHER_ROLES: tuple[str, ...] = tuple(name for name in ROLE_NAMES if name != MAIN)
"""The roles besides main: each has its own model option (left empty: the main model)."""


def role_of_scope(scope: str) -> str:
    """The role whose loop logs under `scope`: `gui#3` -> `gui`, `main` -> `main`."""
    return scope.partition("#")[0]


def is_numbered_scope(scope: str) -> bool:
    """Whether `scope` is one numbered loop of a role (`gui#3`), not a role's own name."""
    return "#" in scope


def numbered_scope(role: str, number: int) -> str:
    """The scope of a role's `number`th loop of a run: `gui`, 3 -> `gui#3`."""
    return f"{role}#{number}"
