"""Texts the instruction asks to replace or remove, and where a changed file still holds them.

    texts = texts_to_remove('Replace every "Contractor" with "Vendor".')   # -> ["Contractor"]
    sections = still_occurs("/home/user/policy.docx", data, texts)         # "“Contractor” still occurs (1)"

A diff shows what changed, not what should have changed and did not: an occurrence left unreplaced is
found here. Quoted texts count: the first of each quoted pair after "replace"/"change" ("X" with "Y",
unless Y holds X), and each quoted text after "remove"/"delete". Matching is case-sensitive, as the
instruction's quotes are.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from stateact.gate.inspect.changes.documents import docx_paragraphs, odt_paragraphs
from stateact.gate.inspect.changes.model import Section, sections, short
from stateact.gate.inspect.changes.slides import odp_deck, pptx_deck
from stateact.gate.inspect.changes.text import decode

_QUOTED = r"(?<!\w)[\"“'‘]([^\"“”\n]{1,80}?)[\"”'’](?!\w)"
_PAIR = re.compile(rf"{_QUOTED}\s+(?:with|by|to|into|for)\s+{_QUOTED}")
_REPLACING = re.compile(r"\b(?:replace|change|substitute|rename|swap|correct)\b", re.IGNORECASE)
_REMOVING = re.compile(r"\b(?:remove|delete|drop|strip|erase)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n")
_CONTEXT = 60
"""Characters shown either side of an occurrence."""


def texts_to_remove(instruction: str) -> list[str]:
    """The quoted texts the instruction asks to replace or remove, in order, each once."""
    found: list[str] = []
    for sentence in _SENTENCE.split(instruction):
        if _REPLACING.search(sentence):
            found += [m.group(1) for m in _PAIR.finditer(sentence) if m.group(1) not in m.group(2)]
        elif _REMOVING.search(sentence):
            found += [m.group(1) for m in re.finditer(_QUOTED, sentence)]
    return list(dict.fromkeys(t for t in found if t.strip()))


def still_occurs(path: str, data: bytes | None, texts: list[str]) -> list[Section]:
    """Per text, where the file (its content `data` now) still holds it: paragraph, slide or line."""
    if not texts or data is None:
        return []
    places = _places(path, data)
    return sections(
        *(
            (
                f"“{text}” still occurs",
                [f"{where}: “{_around(body, text)}”" for where, body in places if text in body],
            )
            for text in texts
        )
    )


def _places(path: str, data: bytes) -> list[tuple[str, str]]:
    """(where, text) of each paragraph, shape or line of the file; none for a file it cannot read."""
    extension = PurePosixPath(path).suffix.lower().lstrip(".")
    if extension in ("docx", "odt"):
        paragraphs = (docx_paragraphs if extension == "docx" else odt_paragraphs)(data)
        return [(f"¶{n}", p.text) for n, p in enumerate(paragraphs, start=1)]
    if extension in ("pptx", "odp"):
        deck = (pptx_deck if extension == "pptx" else odp_deck)(data)
        return [(f"slide {n}", text) for n, slide in enumerate(deck.slides, start=1) for text in slide]
    text = decode(data)
    return [] if text is None else [(f"line {n}", line) for n, line in enumerate(text.splitlines(), start=1)]


def _around(body: str, text: str) -> str:
    at = body.index(text)
    start, end = max(0, at - _CONTEXT), at + len(text) + _CONTEXT
    return short(
        ("…" if start else "") + body[start:end].replace("\n", " / ") + ("…" if end < len(body) else "")
    )
