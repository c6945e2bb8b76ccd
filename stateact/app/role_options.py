"""Command-line options of per-role model settings, shared by `stateact run` and `stateact eval run`.

    --roles FILE                 a TOML file with one table per role (`stateact.models.role_settings`)
    --max-tokens ROLE=N          output tokens of a role's replies
    --temperature ROLE=X
    --context-window ROLE=N      the context window of a role's model (e.g. a local server's limit)

Flags win over the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from stateact.models import ROLES, parse_spec
from stateact.models.role_settings import RoleSettings, apply_flags, load_roles_file, unknown_model_warning

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


def settings_warnings(specs: dict[str, str | None], settings: dict[str, RoleSettings]) -> list[str]:
    """A warning for each role whose model the catalog does not know and whose settings leave gaps."""
    main = specs["main"] or ""
    warnings = []
    for role in ROLES:
        provider, model, _ = parse_spec(specs.get(role) or main)
        if provider in ("anthropic", "openai"):
            warning = unknown_model_warning(role, model, settings.get(role) or RoleSettings())
            if warning:
                warnings.append(warning)
    return warnings
