"""One vocabulary of flags across the `stateact` commands: one concept has one name, an option name means
the same everywhere, renamed options still work with a deprecation line, help texts read as sentences."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.app.renamed_options import EVAL_RENAMES, RUN_RENAMES

COMMAND = typer.main.get_command(app)


def commands(group: Any = COMMAND, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every command of the `stateact` app, by its path (`run`, `eval run`)."""
    for name, command in getattr(group, "commands", {}).items():
        full = f"{path} {name}".strip()
        if hasattr(command, "commands"):
            yield from commands(command, full)
        else:
            yield full, command


def options(command: Any) -> dict[str, Any]:
    """A command's options by each of their names (typer's own click: `param_type_name` tells them)."""
    return {name: p for p in command.params if p.param_type_name == "option" for name in p.opts}


ALL = dict(commands())
CONCEPTS = {
    "--max-minutes": ("run", "resume", "eval run"),
    "--max-usd": ("run", "resume", "eval run"),
    "--max-steps": ("run", "resume", "eval run"),
    "--results": ("run", "eval run", "eval validate"),
    "--cache": ("run", "eval run", "eval validate", "eval check"),
    "--workers": ("eval run", "eval validate"),
    "--model": ("run", "eval run"),
    "--watch": ("run", "eval run"),
    "--task": ("run",),
    "--task-id": ("eval run", "eval validate", "eval check"),
    "--runs-root": ("run", "cleanup"),
}
"""Each concept's one name, and the commands that take it."""
RENAMED = {f"eval {name}": renames for name, renames in EVAL_RENAMES.items()} | RUN_RENAMES


@pytest.mark.parametrize("name", list(CONCEPTS))
def test_each_concept_has_one_name_on_every_command(name):
    missing = [path for path in CONCEPTS[name] if name not in options(ALL[path])]
    assert not missing, f"{name} is not an option of {missing}"


def test_an_option_name_is_of_one_kind_everywhere_and_no_old_name_is_shown():
    kinds: dict[str, set[tuple]] = defaultdict(set)
    for path, command in ALL.items():
        for name, option in options(command).items():
            kinds[name].add((option.is_flag, option.multiple))
            assert name not in RENAMED.get(path, {}), f"{path} shows its old name {name}"
    assert {name: kind for name, kind in kinds.items() if len(kind) > 1} == {}


def test_help_texts_read_as_sentences():
    for path, command in ALL.items():
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph, f"`stateact {path} --help` breaks a sentence: {paragraph!r}"
        for option in command.params:
            assert "\n" not in (getattr(option, "help", None) or ""), f"{path} {option.name}"


OLD_NAMES = {
    "--timeout-minutes": (["eval", "run", "{empty}", "--timeout-minutes", "0"], "--max-minutes must be more"),
    "--out": (["eval", "validate", "{empty}", "--out", "{empty}/out"], "no task files in"),
    "--watch": (["relay", "{empty}/none", "--watch"], "no relay folder"),
    "--task": (["eval", "check", "{empty}", "--task", "x"], "no task files in"),
}


def test_every_old_name_is_listed_here():
    assert sorted(OLD_NAMES) == sorted({old for renames in RENAMED.values() for old in renames})


@pytest.mark.parametrize("old", list(OLD_NAMES))
def test_old_names_still_work_with_a_deprecation_line(tmp_path, old):
    args, error = OLD_NAMES[old]
    new = next(renames[old] for renames in RENAMED.values() if old in renames)  # one new name per old one
    done = CliRunner().invoke(app, [arg.format(empty=tmp_path) for arg in args])
    deprecation, problem = done.stderr.splitlines()
    assert deprecation == f"warning: {old} is deprecated: use {new}"
    assert problem.startswith("error: ") and error in problem, done.stderr
    assert done.exit_code == 2
