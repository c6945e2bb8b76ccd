"""Find the file paths a task instruction names, and which of them it asks to produce.

    paths = mentioned_paths("Open ~/data.xlsx and save the totals as /home/user/Documents/out.csv")
    # -> [MentionedPath("~/data.xlsx", output=False), MentionedPath("/home/user/Documents/out.csv", output=True)]

A path counts as an output when a producing verb (save, export, write, create, ...)
comes shortly before it in the same sentence, unless a verb or preposition right before
it makes it a source ("export ~/a.docx to PDF", "using ~/in.csv"); a lone path is an output.
Bare file names ("report.docx", or quoted names with spaces) are kept as written; the probes resolve them
against the home folder. Only the instruction text is read, never the agent's notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EXTENSIONS = (
    "xlsx|xlsm|xls|ods|csv|tsv|docx|doc|odt|rtf|pptx|ppt|odp|pdf|txt|md|json|xml|html|htm|db|sqlite|sqlite3|"
    "png|jpg|jpeg|svg|gif|zip|py|sh|tex|yaml|yml|ini|cfg|log|mp3|mp4|wav"
)
_PATH = re.compile(
    r"""(?P<path>(?:~|/)[^\s'"`,;()<>|]*[^\s'"`,;()<>|.:!?]"""  # absolute or ~ paths
    rf"""|\b[\w\-.]*[\w\-]\.(?:{_EXTENSIONS})\b)""",  # bare file names with a known extension
    re.IGNORECASE,
)
_QUOTED = re.compile(r"""["'“‘`]([^"'”’`\n]{1,200}?\.(?:""" + _EXTENSIONS + r"""))["'”’`]""", re.IGNORECASE)
_OUTPUT_VERBS = re.compile(
    r"\b(save|saved|saving|export|exported|write|written|create|created|generate|produce|store|output|"
    r"rename|renamed|convert|converted|named|name it|as a new|into a new|download)\b",
    re.IGNORECASE,
)
_SOURCE_BEFORE = re.compile(
    r"\b(export|convert|rename|copy|move|compress|open|opened|read|use|using|from|based on|of)\s+"
    r"(?:the\s+)?(?:\w+\s+)?(?:file|document|spreadsheet|workbook|presentation|folder|image|data)?\s*(?:at\s+|in\s+)?$",
    re.IGNORECASE,
)
"""A verb or preposition right before a path that makes it the thing read or converted, not the result."""
_OUTPUT_WINDOW = 80
"""Characters before a path in which a producing verb makes it an output."""


@dataclass(frozen=True)
class MentionedPath:
    path: str
    output: bool


def mentioned_paths(instruction: str) -> list[MentionedPath]:
    """The file paths an instruction names, in order, each once, tagged output or not."""
    found: dict[str, int] = {}
    for match in _QUOTED.finditer(instruction):
        found.setdefault(match.group(1).strip(), match.start(1))
    for match in _PATH.finditer(instruction):
        path = match.group("path").strip()
        if path in ("/", "~") or path.startswith("//") or _inside_known(path, found):
            continue
        found.setdefault(path, match.start("path"))
    paths = sorted(found.items(), key=lambda item: item[1])
    tagged = [MentionedPath(path, _is_output(instruction, start)) for path, start in paths]
    if len(tagged) == 1:
        return [MentionedPath(tagged[0].path, True)]
    return tagged


def _inside_known(path: str, found: dict[str, int]) -> bool:
    return any(path != known and path in known for known in found)


def _is_output(instruction: str, start: int) -> bool:
    sentence_start = max(instruction.rfind(mark, 0, start) for mark in (". ", "\n", "; ", "! ", "? "))
    window = instruction[max(sentence_start + 1, start - _OUTPUT_WINDOW) : start]
    if _SOURCE_BEFORE.search(window.rstrip(" \"'“‘`") + " "):
        return False
    return _OUTPUT_VERBS.search(window) is not None
