"""Checks of command-line values made before anything starts: each problem is a ValueError of one line."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from stateact.kernel.models import missing_api_key, parse_spec
from stateact.kernel.models.base import ProviderError
from stateact.kernel.models.scripted import load_script, script_path


def check_budgets(
    max_steps: int | None,
    max_usd: float | None,
    minutes: float | None,
    minutes_option: str = "--max-minutes",
) -> None:
    """ValueError for a budget that would end a run before it starts (None: not given); `minutes_option`
    names the wall-time option of the command."""
    if max_steps is not None and max_steps < 1:
        raise ValueError(f"--max-steps must be at least 1 (got {max_steps})")
    for option, value in (("--max-usd", max_usd), (minutes_option, minutes)):
        if value is not None and not value > 0:
            raise ValueError(f"{option} must be more than 0 (got {value:g})")


def check_models(specs: Iterable[str | None]) -> None:
    """ValueError for a bad model spec, one whose API key is not in the environment, a script that cannot
    be read, or a relay folder that cannot be made."""
    for spec in filter(None, specs):
        provider, target, _ = parse_spec(spec)
        if provider == "scripted":
            _check_script(spec, target)
        elif provider == "relay":
            _check_relay_folder(spec, Path(target).expanduser())
        elif (key := missing_api_key(spec)) is not None:
            raise ValueError(f"{spec} needs {key} in the environment (export {key}=...)")


def _check_script(spec: str, name: str) -> None:
    try:
        load_script(script_path(name), "main")
    except ProviderError as exc:
        raise ValueError(f"{spec}: {exc}") from None


def _check_relay_folder(spec: str, folder: Path) -> None:
    """The run makes a relay folder, but never its parents: a mistyped path is refused, not created."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{spec}: {folder} is not a folder")
    if not folder.exists() and not folder.absolute().parent.is_dir():
        raise ValueError(
            f"{spec}: the folder's parent {folder.absolute().parent} does not exist (make it, or name "
            "a folder in one that does)"
        )


def check_folder_can_be_made(folder: Path, option: str) -> None:
    """ValueError when `folder` (given by `option`) is missing and its nearest existing parent is not a
    folder this user may write in."""
    folder = Path(folder).expanduser().absolute()
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"{option} {folder}: {existing} is not a folder")
    if existing != folder and not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(
            f"{option} {folder}: cannot make it, {existing} is not writable (run from a folder of your own, "
            f"or give {option})"
        )


def relay_notes(specs: Mapping[str, str | None]) -> list[str]:
    """For each relay folder among the roles' model specs, where its requests appear and how to answer."""
    roles_by_folder: dict[Path, list[str]] = {}
    for role, spec in specs.items():
        if spec and parse_spec(spec)[0] == "relay":
            folder = Path(parse_spec(spec)[1]).expanduser().absolute()
            roles_by_folder.setdefault(folder, []).append(role)
    return [
        f"relay: the requests of {', '.join(roles)} appear in {folder} (PENDING names the one waiting); "
        f"answer them from another terminal with: stateact relay {folder} --follow"
        for folder, roles in roles_by_folder.items()
    ]
