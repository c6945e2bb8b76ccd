"""Find the spreadsheet cells a task instruction names, with the sheets its sentences name for them.

    refs = cell_references('Add a second sheet named Summary with "Total value" in A1.')
    # -> [CellReference(cells="A1", sheets=("Summary",))]

A cell written as `Sheet!A1` (or `'My Sheet'!A1`) is on that sheet. Otherwise the sheets its sentence
names are its candidates: a name in quotes or one word after "sheet"/"tab"/"worksheet" (optionally
"named", "called", "titled" or "to"), a capitalised name before one ("the Summary sheet"), or `Sheet2`. When
"of/on/in the X sheet" follows the cell directly, only X is meant. No sheet named: no candidates
(the probe then shows the cell on every sheet). Only the instruction text is read.

Labels that look like cells are left out: a token in quotes ("the 'A1' column"), one after "column",
"header", "heading", "label", "line", "item", "id" or "code" ("assessment columns A1 to A4", "budget
lines L1 to L6"), an example ("Line (e.g. L1)", "such as L1"), a token in a file name or path ("expenses_2024-Q4.xlsx"),
and Q1 to Q4 followed by a year ("Q4 2024") or in an instruction that speaks of quarters, unless written
as a range or with a sheet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CELL_REF = re.compile(
    r"(?<![\w!$/])(?:(?P<sheet>'[^'\n]{1,60}'|[A-Za-z_][\w.]{0,40})!)?"
    r"(?P<cells>[A-Z]{1,3}[1-9]\d{0,6}(?::[A-Z]{1,3}[1-9]\d{0,6})?)(?![\w(/]|\.[A-Za-z]\w{0,4}\b)"
)
"""A cell or range, with its sheet; not part of a file name or path (`expenses_2024-Q4.xlsx`, `/data/Q4/`)."""
_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?;])\s+|\n+")
_SHEET_WORD = r"(?:work)?sheet|tab"
_QUOTED = r"\"(?P<{0}>[^\"\n]{{1,60}})\"|'(?P<{0}_s>[^'\n]{{1,60}})'|“(?P<{0}_c>[^”\n]{{1,60}})”"
_WORD = r"(?P<{0}>[A-Za-z0-9][\w\-]{{0,40}})"
_AFTER_KEYWORD = re.compile(
    rf"\b(?:{_SHEET_WORD})s?\s+(?:(?P<verb>named|called|titled|labell?ed)\s+|to\s+)?"
    rf"(?:{_QUOTED.format('q')}|{_WORD.format('w')})",
    re.IGNORECASE,
)
_BEFORE_KEYWORD = re.compile(
    rf"(?:{_QUOTED.format('q')}|\b{_WORD.format('w')})\s+(?:{_SHEET_WORD})s?\b", re.IGNORECASE
)
_NUMBERED_SHEET = re.compile(r"\bSheet\d{1,3}\b", re.IGNORECASE)
_NOT_NAMES = {
    "a", "an", "the", "and", "or", "to", "in", "on", "of", "with", "which", "that", "this", "these",
    "is", "are", "as", "at", "for", "from", "by", "into", "so", "should", "must", "new", "second",
    "first", "third", "last", "next", "same", "active", "current", "each", "every", "another", "other",
    "existing", "original", "one", "single", "separate", "blank", "empty", "whole", "entire", "its",
    "their", "your", "my", "all", "both", "only", "named", "called", "titled", "add", "create", "insert",
    "make", "rename", "delete", "remove", "copy", "move", "open", "use", "select", "sort", "format",
    "fill", "put", "write", "save",
}  # fmt: skip
"""Words around "sheet" that are not sheet names ("a new sheet", "the sheet with ...", "Add sheet X")."""
_FOLLOWING_SHEET = re.compile(rf"^\s*(?:of|on|in)\s+(?:the\s+)?(?:{_SHEET_WORD})?\s*")
_LABEL_BEFORE = re.compile(
    r"(?:\b(?:columns?|headers?|headings?|labell?ed|labels?|lines?|items?|ids?|codes?|e\.g\.|i\.e\.|such as)"
    r"\s+(?:[A-Z]{1,3}\d{1,7}\s*(?:,|and|or|to|-|–)\s*)*"
    r"|[\"'“‘])$",
    re.IGNORECASE,
)
"""What comes right before a cell-like token that is a label: a column, header, line, item, id or code
word or an example's "e.g." (and the labels listed after it so far), or an opening quote."""
_QUARTER = re.compile(r"Q[1-4]")
_SPEAKS_OF_QUARTERS = re.compile(r"\bquarter", re.IGNORECASE)
_YEAR_AFTER = re.compile(r"\s*(?:FY)?['’]?(?:\d{4}|\d{2})\b")
"""A year right after Q1-Q4 makes it a period ("Q4 2024", "Q1 '25")."""
_FOLLOWING_WINDOW = 40
"""Characters after a cell searched for "of/on/in the X sheet" that pins it to X."""


@dataclass(frozen=True)
class CellReference:
    """Cells (`A1`, `B2:D4`) and the sheets the instruction puts them on (none named: empty)."""

    cells: str
    sheets: tuple[str, ...]

    def as_probe_arg(self) -> dict:
        return {"cells": self.cells, "sheets": list(self.sheets)}


def cell_references(instruction: str) -> list[CellReference]:
    """The cells and ranges an instruction names, each once per sheet reading, in order."""
    found: dict[CellReference, None] = {}
    for sentence in _SENTENCE_END.split(instruction):
        mentions = sheet_mentions(sentence)
        for match in _CELL_REF.finditer(sentence):
            sheet = match.group("sheet")
            if not sheet and any(start <= match.start() < end for start, end, _ in mentions):
                continue  # part of a sheet's name ("the 'Q3 Data' tab")
            if not sheet and _is_label(
                sentence, match, quarters=bool(_SPEAKS_OF_QUARTERS.search(instruction))
            ):
                continue
            if sheet:
                ref = CellReference(match.group("cells"), (_unquote(sheet),))
            else:
                ref = CellReference(match.group("cells"), _sheets_for(sentence, match.end(), mentions))
            found.setdefault(ref)
    return list(found)


def sheet_mentions(sentence: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each sheet a sentence names, in order, each name once."""
    spans: list[tuple[int, int, str]] = []
    for pattern in (_AFTER_KEYWORD, _BEFORE_KEYWORD):
        for match in pattern.finditer(sentence):
            name = _name_of(match, named="verb" in pattern.groupindex and bool(match.group("verb")))
            if name:
                spans.append((match.start(), match.end(), name))
    spans += [(m.start(), m.end(), m.group(0)) for m in _NUMBERED_SHEET.finditer(sentence)]
    spans.sort()
    seen: set[str] = set()
    unique = []
    for start, end, name in spans:
        if name.lower() not in seen:
            seen.add(name.lower())
            unique.append((start, end, name))
    return unique


def _name_of(match: re.Match, named: bool) -> str | None:
    quoted = match.group("q") or match.group("q_s") or match.group("q_c")
    if quoted:
        return quoted.strip() or None
    word = match.group("w")
    if word.lower() in _NOT_NAMES or _CELL_REF.fullmatch(word):
        return None
    return word if named or word[0].isupper() or any(c.isdigit() for c in word) else None


def _sheets_for(sentence: str, cell_end: int, mentions: list[tuple[int, int, str]]) -> tuple[str, ...]:
    """The sheet a following "of/on/in the X sheet" pins, else every sheet the sentence names."""
    following = _FOLLOWING_SHEET.match(sentence[cell_end : cell_end + _FOLLOWING_WINDOW])
    if following:
        at = cell_end + following.end()
        pinned = [name for start, end, name in mentions if start <= at < end]
        if pinned:
            return (pinned[0],)
    return tuple(name for _, _, name in mentions)


def _is_label(sentence: str, match: re.Match, quarters: bool) -> bool:
    cells = match.group("cells")
    if _QUARTER.fullmatch(cells) and (quarters or _YEAR_AFTER.match(sentence, match.end())):
        return True
    return bool(_LABEL_BEFORE.search(sentence[: match.start()]))


def _unquote(sheet: str) -> str:
    return sheet[1:-1].replace("''", "'") if sheet.startswith("'") else sheet
