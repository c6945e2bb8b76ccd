"""The main agent's prompt renders for every harness variant's toolset and names only present tools."""

from __future__ import annotations

import re

import pytest

import stateact.app  # noqa: F401  (the subagent roles, whose briefs the prompt carries)
from stateact.kernel.prompts import PROMPTS_DIR, main_opening, render_main_prompt
from stateact.kernel.prompts.loader import render_prompt, select_sections
from stateact.sandbox.toolkit import toolkit_programs

FULL = {"bash", "str_replace_based_edit_tool", "plan", "delegate_gui", "delegate_web", "finish"}
VARIANT_TOOLS = {
    "stateact": FULL,
    "no-act": FULL - {"delegate_gui"},
    "no-verify": FULL,
    "no-sustain": FULL - {"plan"},
    "bash-only": {"bash", "finish"},
}
OPTIONAL_TOOLS = ("str_replace_based_edit_tool", "plan", "delegate_gui", "delegate_web")


def mentions(text: str, tool: str) -> bool:
    return f"`{tool}`" in text or f"`{tool} " in text


@pytest.mark.parametrize("variant", sorted(VARIANT_TOOLS))
def test_prompt_renders_for_each_variant_naming_only_present_tools(variant):
    tools = VARIANT_TOOLS[variant]
    text = render_main_prompt(tools, gate=variant not in ("no-verify", "bash-only"))
    assert "<!--" not in text and "{{" not in text
    assert "\n\n\n" not in text
    assert mentions(text, "bash") and mentions(text, "finish") and "infeasible" in text
    for tool in OPTIONAL_TOOLS:
        assert mentions(text, tool) == (tool in tools), (variant, tool)
    assert ("GUI subagent" in text) == ("delegate_gui" in tools)
    assert ("web subagent" in text) == ("delegate_web" in tools)
    assert ("independent checker" in text) == (variant not in ("no-verify", "bash-only"))


def test_prompt_carries_state_channels_priors_and_the_whole_toolkit():
    system = render_main_prompt(FULL)
    opening = main_opening("/home/tester")
    assert "/home/tester" in opening and "/home/tester" not in system
    assert "Two ways to observe" in system and "state comes first" in system
    for program in toolkit_programs():
        assert f"`{program}" in system, program
    text = system + opening
    for prior in (
        "registrymodifications.xcu",
        "Bookmarks",
        "History",
        "prefs.js",
        "mbox",
        "abook.sqlite",
        "settings.json",
        "keybindings.json",
        "gsettings",
        "dconf",
        "vlcrc",
        "gimprc",
        "script-fu",
        "--convert-to",
        "cached values",
        "ctrl+s",
    ):
        assert prior in text, prior


def test_editor_section_names_the_editor_tool_present():
    assert "Use `edit` to view" in render_main_prompt({"bash", "edit", "finish"})
    assert "Use `str_replace_based_edit_tool` to view" in render_main_prompt(FULL)


def test_reading_a_scan_or_chart_in_a_file_is_a_file_look_not_a_delegation():
    text = render_main_prompt(FULL)
    assert (
        "reading a scanned letter, a photo or a chart in a file is a file look, not a job for the screen"
        in text
    )
    assert "file look" not in render_main_prompt({"bash", "finish", "delegate_gui"})


def test_sections_select_by_presence_absence_and_alternatives():
    text = (
        "a\n<!-- if x -->\nX\n<!-- end -->\n<!-- if not x -->\nNOT X\n<!-- end -->\n"
        "<!-- if y|z -->\nY OR Z\n<!-- end -->\nb\n"
    )
    assert select_sections(text, {"x"}) == "a\nX\nb\n"
    assert select_sections(text, {"z"}) == "a\nNOT X\nY OR Z\nb\n"


def test_prompt_files_have_balanced_sections():
    main = (PROMPTS_DIR / "main.md").read_text()
    assert len(re.findall(r"<!-- if ", main)) == len(re.findall(r"<!-- end -->", main)) > 0
    assert "<!--" not in (PROMPTS_DIR / "priors.md").read_text()


def test_main_and_gate_prompts_state_the_same_rule_on_open_documents():
    from stateact.gate.inspect.pregate import OPEN_DOCUMENT_RULE
    from stateact.gate.review.finish_gate import PROMPTS

    gate_prompt = render_prompt(
        PROMPTS / "gate.md",
        open_document_rule=OPEN_DOCUMENT_RULE,
        web_values="",
    )
    assert (
        OPEN_DOCUMENT_RULE in main_opening("/home/user", ["libreoffice"])
        and OPEN_DOCUMENT_RULE in gate_prompt
    )
    assert "save and close" not in gate_prompt
