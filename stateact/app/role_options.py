"""Command-line options of the roles' models and settings, shared by `stateact run` and `stateact eval run`.

    --gui-model SPEC ...         a role's model, one flag per role of `stateact.kernel.roles` (default: the main
                                 model); --judge-model SPEC is the best-of-N judge's, with --best-of N
    --roles FILE                 a TOML file with one table per role (`stateact.kernel.models.role_settings`)
    --max-tokens ROLE=N          output tokens of a role's replies
    --temperature ROLE=X
    --context-window ROLE=N      the context window of a role's model (e.g. a local server's limit)

Flags win over the file.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from stateact.gate.judge.options import BestOfOption
from stateact.kernel.models import parse_spec
from stateact.kernel.models.role_settings import (
    RoleSettings,
    apply_flags,
    load_roles_file,
    unknown_model_warning,
)
from stateact.kernel.roles import MAIN, other_roles, role_names, roles

RolesFileOption = Annotated[
    Path | None,
    typer.Option("--roles", help="TOML file of per-role model settings ([gui] max_tokens = 1024...)."),
]
MaxTokensOption = Annotated[
    list[str] | None, typer.Option(help="Output tokens of a role's replies, as ROLE=N (repeatable).")
]
TemperatureOption = Annotated[
    list[str] | None, typer.Option(help="Sampling temperature, as ROLE=X (repeatable).")
]
ContextWindowOption = Annotated[
    list[str] | None, typer.Option(help="Context window of a role's model, as ROLE=N (repeatable).")
]


def role_settings(
    roles_file: Path | None,
    max_tokens: list[str] | None = None,
    temperature: list[str] | None = None,
    context_window: list[str] | None = None,
) -> dict[str, RoleSettings]:
    """The per-role settings the options state; ValueError on a bad file or flag."""
    settings = load_roles_file(roles_file) if roles_file is not None else {}
    for key, values in (
        ("max_tokens", max_tokens),
        ("temperature", temperature),
        ("context_window", context_window),
    ):
        settings = apply_flags(settings, key, values or [])
    return settings


@dataclasses.dataclass(frozen=True)
class RoleOptions:
    """What a command line's role options state (see `with_role_options`)."""

    role_models: dict[str, str | None] = dataclasses.field(default_factory=dict)
    """The `--ROLE-model` spec of each role that has one."""
    best_of: int = 1
    roles: Path | None = None
    max_tokens: list[str] | None = None
    temperature: list[str] | None = None
    context_window: list[str] | None = None

    def models(self) -> dict[str, str | None]:
        """The model spec of each role besides main (None: the main model)."""
        return {role: self.role_models.get(role) for role in other_roles()}

    def settings(self) -> dict[str, RoleSettings]:
        """The per-role settings; ValueError on a bad file or flag."""
        return role_settings(self.roles, self.max_tokens, self.temperature, self.context_window)


DEFAULT_ROLE_OPTIONS = RoleOptions()
"""The placeholder default of a command's `role_options` parameter (see `with_role_options`)."""

_OPTION_TYPES = {
    "best_of": BestOfOption,
    "roles": RolesFileOption,
    "max_tokens": MaxTokensOption,
    "temperature": TemperatureOption,
    "context_window": ContextWindowOption,
}
"""The typer option of each RoleOptions field besides `role_models`."""


def _model_options() -> dict[str, tuple[str, Any]]:
    """The typer option `--ROLE-model` of each registered role besides main, by parameter name, with
    its role."""
    return {
        f"{role.name}_model": (role.name, Annotated[str | None, typer.Option(help=role.model_help)])
        for role in roles()
        if role.name != MAIN
    }


class RoleOptionsCommand:
    """A typer command taking the role options where `command` has its `role_options` parameter; the
    options reach `command` as one RoleOptions there. Its signature is read from the role registry
    each time typer builds the command, so every registered role has its `--ROLE-model` flag."""

    def __init__(self, command: Callable[..., Any]) -> None:
        self.__wrapped__ = command
        self.__name__ = command.__name__
        self.__qualname__ = command.__qualname__
        self.__module__ = command.__module__
        self.__doc__ = command.__doc__

    @property
    def __signature__(self) -> inspect.Signature:
        signature = inspect.signature(self.__wrapped__, eval_str=True)
        defaults = {field.name: field.default for field in dataclasses.fields(RoleOptions)}
        typer_options = {name: option for name, (_, option) in _model_options().items()} | _OPTION_TYPES
        shared = [
            inspect.Parameter(
                name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=defaults.get(name), annotation=option
            )
            for name, option in typer_options.items()
        ]
        parameters = []
        for parameter in signature.parameters.values():
            parameters.extend(shared if parameter.name == "role_options" else [parameter])
        return signature.replace(parameters=parameters)

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        return {p.name: p.annotation for p in self.__signature__.parameters.values()}

    def __call__(self, **values: Any) -> Any:
        models = {role: values.pop(name) for name, (role, _) in _model_options().items()}
        options = RoleOptions(models, **{name: values.pop(name) for name in _OPTION_TYPES})
        return self.__wrapped__(**values, role_options=options)


def with_role_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`command` as a RoleOptionsCommand: a typer command with the role options in place of its
    `role_options` parameter."""
    return RoleOptionsCommand(command)


def settings_warnings(specs: dict[str, str | None], settings: dict[str, RoleSettings]) -> list[str]:
    """A warning for each role whose model the catalog does not know and whose settings leave gaps."""
    main = specs[MAIN] or ""
    warnings = []
    for role in role_names():
        provider, model, _ = parse_spec(specs.get(role) or main)
        if provider in ("anthropic", "openai"):
            warning = unknown_model_warning(role, model, settings.get(role) or RoleSettings())
            if warning:
                warnings.append(warning)
    return warnings
