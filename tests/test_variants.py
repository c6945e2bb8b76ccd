"""The harness variant table is the one source of each variant's defaults, the CLI's help included."""

from __future__ import annotations

import re
from dataclasses import replace

from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.app.variants import VARIANTS, default_turns_text, get_variant


def run_help() -> str:
    result = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "400", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())


def test_run_help_states_every_variants_default_turn_budget():
    help_text = run_help()
    stated = re.search(r"Top-level agent turn budget \(default: ([^)]*)\)", help_text)
    assert stated is not None, help_text
    common, *others = stated.group(1).split("; ")
    for variant in VARIANTS.values():
        named = f"{variant.default_max_turns} for the {variant.name} harness"
        assert named in others or (
            str(variant.default_max_turns) == common and not any(variant.name in o for o in others)
        )


def test_a_variant_with_its_own_turn_budget_is_named(monkeypatch):
    monkeypatch.setitem(VARIANTS, "pixel", replace(VARIANTS["pixel"], default_max_turns=77))
    common = VARIANTS["stateact"].default_max_turns
    assert default_turns_text() == f"{common}; 77 for the pixel harness"


def test_a_variant_leaves_out_the_subagents_it_names_and_keeps_any_other():
    assert get_variant("stateact").delegates_to("gui") and get_variant("stateact").delegates_to("notes")
    assert not get_variant("no-act").delegates_to("gui") and get_variant("no-act").delegates_to("web")
    assert not any(get_variant("bash-only").delegates_to(role) for role in ("gui", "web", "notes"))
