"""The command lines of a markdown page: each line of its fenced code blocks, backslash continuations
joined, and the `stateact` invocations among them as argument lists."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\w*)")
SHELL_LANGUAGES = {"", "bash", "sh", "shell", "console"}
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def code_lines(page: Path) -> Iterator[str]:
    """Every line of the page's shell code blocks (a line ending in `\\` joined with the next), stripped;
    the body of a here-document is not a command line and is left out."""
    fence, heredoc_end, pending = "", "", ""
    for line in page.read_text(encoding="utf-8").splitlines():
        opening = FENCE.match(line.strip())
        if not fence:
            if opening:
                fence = opening.group(1) if opening.group(2) in SHELL_LANGUAGES else "skip" + opening.group(1)
            continue
        if line.strip() == fence.removeprefix("skip"):
            fence = ""
            continue
        if fence.startswith("skip"):
            continue
        if heredoc_end:
            heredoc_end = "" if line.strip() == heredoc_end else heredoc_end
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        full, pending = (pending + line).strip(), ""
        if marker := re.search(r"<<-?\s*'?\"?(\w+)", full):
            heredoc_end = marker.group(1)
        if full:
            yield full


def stateact_invocations(page: Path) -> Iterator[tuple[str, list[str]]]:
    """Each `stateact` command line of the page with its arguments (environment assignments before it,
    comments and the optional-part brackets of a synopsis such as `[--max-steps N]` left out)."""
    for line in code_lines(page):
        words = [word.strip("[]") for word in shlex.split(line, comments=True)]
        while words and ENV_ASSIGNMENT.match(words[0]):
            words.pop(0)
        if words and words[0] == "stateact":
            yield line, [word for word in words[1:] if word]
