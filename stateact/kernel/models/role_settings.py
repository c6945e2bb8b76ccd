"""Per-role model settings: output tokens, sampling, window, price, tool choice, and what a GUI model sees.

    [gui]                      # a TOML file given with --roles FILE; one table per role
    max_tokens = 1024
    context_window = 8192
    coordinates = "resized"    # pixels | relative1000 | resized
    action_format = "uitars"   # tools | uitars | qwen_computer_use
    tools_in_prompt = false    # qwen_computer_use: schemas in the system message

A setting left out comes from the model catalog (`stateact/kernel/models/catalog.py`). A model the
catalog does not know gets conservative defaults (UNKNOWN_* in `stateact/kernel/settings.py`) and a
warning naming the settings to state.
"""

from __future__ import annotations

import tomllib
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
    model_validator,
)

from stateact.kernel import settings
from stateact.kernel.models.catalog import ModelInfo, lookup
from stateact.kernel.roles import role_names

Coordinates = Literal["pixels", "relative1000", "resized"]
"""How a GUI model states a point: pixels of the screenshot we send; 0-1000 relative to its width and
height (UI-TARS 1.0, Qwen2-VL); pixels of the model's own resized image (Qwen2.5-VL, UI-TARS-1.5)."""
ActionFormat = Literal["tools", "uitars", "qwen_computer_use"]
"""How a GUI model acts: our `computer` function tool; UI-TARS' text `Action: click(start_box=...)`;
Qwen2.5-VL's `computer_use` function tool (`subagents/action_formats/`)."""


class RoleSettings(BaseModel):
    """The settings of one role's model; None takes the catalog's (or the harness's) default."""

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
    keep_screenshots: PositiveInt | None = None
    """GUI roles: the most screenshots one request carries, whatever the batching (a server's
    `--limit-mm-per-prompt` or below); older ones leave in chunks that fit under it."""
    batch_screenshots: Literal["last", "every"] = "last"
    """GUI roles acting with `computer` calls: which calls of a batch (the calls of one reply) answer with a
    screenshot: the last one only (the others with text), or every one."""
    screenshot_max_edge: PositiveInt | None = None
    """GUI roles: longest edge of a screenshot sent (instead of the standard sizes)."""
    coordinates: Coordinates = "pixels"
    native_size: bool = False
    """GUI roles with `resized` coordinates: send the screenshot already at the model's resized size, so
    its pixels and the model's coordinates are the same."""
    min_pixels: PositiveInt = settings.GROUNDING_MIN_PIXELS
    """`resized` coordinates: the model's image pixel budget, lower bound."""
    max_pixels: PositiveInt = settings.GROUNDING_MAX_PIXELS
    """`resized` coordinates: the model's image pixel budget, upper bound."""
    action_format: ActionFormat = "tools"
    """GUI roles: the model's native action format."""
    tools_in_prompt: bool = False
    """GUI roles in `qwen_computer_use`: the function schemas and the `<tool_call>` output format written
    into the system message, and past calls and results sent as text, as Qwen's computer-use cookbook
    does (Qwen2.5-VL's chat template renders neither the request's `tools` nor an assistant's
    `tool_calls`)."""

    @model_validator(mode="after")
    def _tools_in_prompt_is_qwens(self) -> RoleSettings:
        if self.tools_in_prompt and self.action_format != "qwen_computer_use":
            raise ValueError(
                f'tools_in_prompt is for action_format = "qwen_computer_use", not {self.action_format!r}'
            )
        return self


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
        return {role: RoleSettings.model_validate(table) for role, table in data.items()}
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
            out[role] = RoleSettings.model_validate({**current, key: raw})
        except ValidationError as exc:
            raise ValueError(f"--{key.replace('_', '-')} {value!r}: {exc.errors()[0]['msg']}") from None
    return out
