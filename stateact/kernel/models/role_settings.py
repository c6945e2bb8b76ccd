"""Per-role model settings: output tokens, sampling, window, price and tool choice for every role, and a
role's own fields in the settings model registered with it (the GUI role's: `subagents/screen_settings.py`).

    [gui]                      # a TOML file given with --roles FILE; one table per role
    max_tokens = 1024
    context_window = 8192

A setting left out comes from the model catalog (`stateact/kernel/models/catalog.py`). A model the
catalog does not know gets conservative defaults (UNKNOWN_* in `stateact/kernel/settings.py`) and a
warning naming the settings to state.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    PositiveInt,
    ValidationError,
)

from stateact.kernel import settings
from stateact.kernel.models.catalog import ModelInfo, lookup
from stateact.kernel.roles import role_names, roles


class RoleSettings(BaseModel):
    """The settings every role's model has; None takes the catalog's (or the harness's) default. A role
    with settings of its own registers a subclass with its fields (`Role.settings`)."""

    model_config = ConfigDict(extra="forbid")

    max_tokens: PositiveInt | None = None
    """Output tokens per reply."""
    temperature: float | None = Field(None, ge=0, le=2)
    context_window: PositiveInt | None = None
    """Prompt plus output tokens the model's server accepts."""
    input_usd: NonNegativeFloat | None = None
    """Dollars per million input tokens."""
    output_usd: NonNegativeFloat | None = None
    """Dollars per million output tokens."""
    tool_choice: Literal["auto", "required", "none"] | None = None
    """Sent to the server when set (some servers need `auto` for tool calling)."""


def settings_model(role: str) -> type[RoleSettings]:
    """The model of `role`'s settings: the one registered with it, else RoleSettings."""
    model = next((r.settings for r in roles() if r.name == role), None) or RoleSettings
    if not issubclass(model, RoleSettings):
        raise TypeError(f"the settings of role {role!r} are not a RoleSettings: {model!r}")
    return model


def settings_of(role: str, table: Mapping[str, Any] | RoleSettings) -> RoleSettings:
    """`table` validated as `role`'s settings; pydantic's ValidationError when it does not fit.

    A run config written before a role's own fields left the kernel's RoleSettings holds every field
    for every role; a field of another role's settings that `table` leaves at that field's default
    is dropped, so such configs still load."""
    model = settings_model(role)
    if isinstance(table, model):
        return table
    data = table.model_dump(exclude_unset=True) if isinstance(table, RoleSettings) else dict(table)
    foreign = {
        name: field.default
        for other in roles()
        if other.settings is not None
        for name, field in other.settings.model_fields.items()
        if name not in model.model_fields
    }
    kept = {key: value for key, value in data.items() if key not in foreign or value != foreign[key]}
    return model.model_validate(kept)


FLAG_SETTINGS = ("max_tokens", "temperature", "context_window")
"""Settings the command line takes as `--max-tokens ROLE=N` and friends (the rest come from --roles FILE)."""


def model_info(name: str, options: RoleSettings) -> ModelInfo:
    """The catalog entry of a model with the role's stated window and prices in place."""
    info = lookup(name)
    changes: dict[str, Any] = {}
    if options.context_window is not None:
        changes["context_window"] = options.context_window
    if options.input_usd is not None:
        changes.update(input_usd=options.input_usd, cache_write_usd=options.input_usd)
        changes["cache_read_usd"] = options.input_usd if not info.known else info.cache_read_usd
    if options.output_usd is not None:
        changes["output_usd"] = options.output_usd
    if not info.known and options.context_window is None:
        changes["context_window"] = settings.UNKNOWN_CONTEXT_WINDOW
    return replace(info, **changes) if changes else info


def max_output_tokens(name: str, options: RoleSettings, asked: int) -> int:
    """The output tokens of a request that asked for `asked`: the role's setting, else at most the default."""
    if options.max_tokens is not None:
        return options.max_tokens
    return asked if lookup(name).known else min(asked, settings.UNKNOWN_MAX_OUTPUT_TOKENS)


def unknown_model_warning(role: str, name: str, options: RoleSettings) -> str | None:
    """What a user should state about a model the catalog does not know, or None."""
    if lookup(name).known:
        return None
    missing = [
        f"{key} (assumed {value})"
        for key, value in (
            ("context_window", settings.UNKNOWN_CONTEXT_WINDOW),
            ("max_tokens", settings.UNKNOWN_MAX_OUTPUT_TOKENS),
            ("input_usd", 0),
            ("output_usd", 0),
        )
        if getattr(options, key) is None
    ]
    if not missing:
        return None
    return (
        f"model {name!r} of role {role} is not in the catalog; state its "
        + ", ".join(missing)
        + f" in the [{role}] table of --roles FILE (window and output tokens also as "
        f"--context-window {role}=N, --max-tokens {role}=N)"
    )


def load_roles_file(path: Path) -> dict[str, RoleSettings]:
    """The role tables of a TOML file; a bad file is a ValueError naming the problem."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"cannot read the roles file {path}: {exc}") from None
    unknown = sorted(set(data) - set(role_names()))
    if unknown:
        raise ValueError(f"{path}: unknown role(s) {', '.join(unknown)}; roles are {', '.join(role_names())}")
    try:
        return {role: settings_of(role, table) for role, table in data.items()}
    except ValidationError as exc:
        raise ValueError(f"{path}: {exc}") from None


def apply_flags(roles: dict[str, RoleSettings], key: str, values: list[str]) -> dict[str, RoleSettings]:
    """`roles` with `ROLE=VALUE` flags of one setting applied (flags win over the file)."""
    out = dict(roles)
    for value in values:
        role, sep, raw = value.partition("=")
        if not sep or role not in role_names():
            raise ValueError(
                f"--{key.replace('_', '-')} {value!r}: use ROLE=VALUE with ROLE one of {', '.join(role_names())}"
            )
        current = out.get(role, RoleSettings()).model_dump(exclude_unset=True)
        try:
            out[role] = settings_of(role, {**current, key: raw})
        except ValidationError as exc:
            raise ValueError(f"--{key.replace('_', '-')} {value!r}: {exc.errors()[0]['msg']}") from None
    return out
