"""The one way a prompt file is read: `{{name}}` placeholders and conditional sections.

    render_prompt(PROMPTS / "gate.md", home="/home/user")          # a file with its fills
    render_prompt(PROMPTS / "main.md", {"plan", "gate"}, home=..)   # and the names present

A section

    <!-- if plan -->            kept when `plan` is present
    <!-- if not plan -->        kept when it is absent
    <!-- if edit|plan -->       kept when any of them is present
    ...
    <!-- end -->

is kept or dropped first; then every `{{name}}` left is replaced by its fill in one pass (a fill's own
text is never read for placeholders). A placeholder without a fill, a stray `{{` or `}}`, or a section
marker left unmatched is a PromptError naming the file: a typo in a prompt fails where it is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
SECTION = re.compile(r"<!-- if (not )?([\w|]+) -->\n(.*?)<!-- end -->\n", re.DOTALL)
_MARKER = re.compile(r"<!-- (?:if |end -->)")


class PromptError(ValueError):
    """A prompt file that does not render: a placeholder without a fill or a malformed marker."""


def render_prompt(path: Path, present: Iterable[str] = (), /, **fills: str) -> str:
    """The text of the prompt file `path`, its sections chosen by the `present` names, its placeholders
    filled from `fills`; PromptError when anything is left unfilled or malformed."""
    return render_text(path.read_text(encoding="utf-8"), set(present), fills, source=str(path))


def render_text(text: str, present: set[str], fills: dict[str, str], source: str = "a prompt") -> str:
    """`text` rendered as `render_prompt` renders a file's (`source` names it in an error)."""
    text = select_sections(text, present)
    if marker := _MARKER.search(text):
        raise PromptError(f"{source}: a section marker without its pair: {marker[0]!r}")
    unfilled = sorted({name for name in PLACEHOLDER.findall(text) if name not in fills})
    if unfilled:
        raise PromptError(f"{source}: no fill for {', '.join('{{' + n + '}}' for n in unfilled)}")
    stray = re.search(r"\{\{|\}\}", PLACEHOLDER.sub("", text))
    if stray:
        raise PromptError(f"{source}: a stray {stray[0]!r} (placeholders are {{{{name}}}})")
    return PLACEHOLDER.sub(lambda match: fills[match[1]], text)


def select_sections(text: str, present: set[str]) -> str:
    """Keep the conditional sections whose condition holds for the `present` names, drop the others."""

    def keep(match: re.Match[str]) -> str:
        negate, names, body = match.groups()
        holds = any(name in present for name in names.split("|"))
        return body if holds != bool(negate) else ""

    return SECTION.sub(keep, text)
