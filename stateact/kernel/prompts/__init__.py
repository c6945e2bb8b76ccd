"""The main agent's system prompt: `main.md`, the general priors in `priors.md`, and the app priors
the run needs (`app_priors.py`; the others are listed by name with one line).

`main.md` holds sections that apply only to some toolsets, written as

    <!-- if plan -->            kept when the tool `plan` is present
    <!-- if not delegate_gui --> kept when it is absent
    <!-- if edit|str_replace_based_edit_tool -->  kept when any of them is present
    ...
    <!-- end -->

Conditions name tools, plus the feature `gate` (the finish gate is on). Placeholders: `{home}`,
`{editor}` (the name of the file-editor tool present).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from stateact.kernel.prompts.app_priors import render_priors

PROMPTS_DIR = Path(__file__).parent
EDITOR_TOOLS = ("str_replace_based_edit_tool", "edit")
_SECTION = re.compile(r"<!-- if (not )?([\w|]+) -->\n(.*?)<!-- end -->\n", re.DOTALL)


def read_prompt(name: str) -> str:
    """The text of `prompts/<name>.md`."""
    return (PROMPTS_DIR / f"{name}.md").read_text(encoding="utf-8")


def select_sections(text: str, present: set[str]) -> str:
    """Keep the conditional sections whose condition holds for the `present` names, drop the others."""

    def keep(match: re.Match[str]) -> str:
        negate, names, body = match.groups()
        holds = any(name in present for name in names.split("|"))
        return body if holds != bool(negate) else ""

    return _SECTION.sub(keep, text)


def render_main_prompt(
    tool_names: set[str], home: str, gate: bool = True, priors: Iterable[str] | None = None
) -> str:
    """The main agent's system prompt for a toolset, with the app-state priors appended.

    `priors` names the app priors given in full (see `app_priors.select_priors`); None gives all.
    """
    present = set(tool_names) | ({"gate"} if gate else set())
    editor = next((name for name in EDITOR_TOOLS if name in tool_names), "")
    sections = [select_sections(read_prompt("main"), present), read_prompt("priors"), render_priors(priors)]
    text = "\n\n".join(part.strip() for part in sections if part.strip()) + "\n"
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.replace("{home}", home).replace("{editor}", editor)
