"""The main agent's system prompt: `main.md`, the general priors in `priors.md`, and the app priors
the run needs (`app_priors.py`; the others are listed by name with one line).

Every prompt file is read through `loader.render_prompt` (`{{name}}` placeholders, `<!-- if -->`
sections). `main.md`'s sections name tools, plus the feature `gate` (the finish gate is on); its
placeholders are `{{editor}}` (the name of the file-editor tool present) and
`{{subagents}}`: the brief of each registered subagent role (`Role.brief`, or `Role.absent_brief`
when its delegate tool is absent), in the order the roles were registered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from stateact.kernel.prompts.app_priors import priors_index, render_priors
from stateact.kernel.prompts.loader import render_prompt, render_text
from stateact.kernel.roles import Role, subagent_roles

PROMPTS_DIR = Path(__file__).parent
EDITOR_TOOLS = ("str_replace_based_edit_tool", "edit")


def read_prompt(name: str, present: Iterable[str] = (), /, **fills: str) -> str:
    """`prompts/<name>.md` rendered (see `loader.render_prompt`)."""
    return render_prompt(PROMPTS_DIR / f"{name}.md", present, **fills)


def render_main_prompt(tool_names: set[str], gate: bool = True) -> str:
    """The main agent's system prompt for a toolset: the same for every task and home, so that runs
    share its cached prefix (what is task-specific is in `main_opening`)."""
    present = set(tool_names) | ({"gate"} if gate else set())
    fills = {"editor": next((name for name in EDITOR_TOOLS if name in tool_names), "")}
    briefs = [_brief(role, role.tool_name in present, fills) for role in subagent_roles()]
    sections = [
        read_prompt("main", present, subagents="\n\n".join(b for b in briefs if b), **fills),
        read_prompt("priors"),
        priors_index(),
    ]
    text = "\n\n".join(part.strip() for part in sections if part.strip()) + "\n"
    return re.sub(r"\n{3,}", "\n\n", text)


def main_opening(home: str, priors: Iterable[str] | None = None) -> str:
    """What the main agent's first message says before the task: the home folder and the app priors the
    task needs in full (`priors` names them, see `app_priors.select_priors`; None gives all)."""
    parts = [f"The home folder is `{home}`.", render_priors(priors)]
    return "\n\n".join(part for part in parts if part)


def _brief(role: Role[Any], present: bool, fills: dict[str, str]) -> str:
    """What the main prompt says of a subagent role, with its delegate tool present or absent."""
    brief = role.brief if present else role.absent_brief
    if isinstance(brief, Path):
        return render_prompt(brief, **fills).strip()
    return render_text(brief, set(), fills, source=f"the brief of role {role.name}").strip()
