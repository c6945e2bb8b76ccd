"""Find the file paths a task instruction names, where they are, and which of them it asks to produce.

    paths = mentioned_paths("Open ~/data.xlsx and save the totals as /home/user/Documents/out.csv")
    # -> [MentionedPath("~/data.xlsx", output=False), MentionedPath("/home/user/Documents/out.csv", output=True)]

Where: a path starts at the start of a word (or of a quoted name, which may hold spaces); URLs are
not paths; punctuation after a path ends it. `~/...` and absolute paths are kept as written (`exact`).
A relative path is taken from the home folder (`Documents/memo.docx` -> `~/Documents/memo.docx`); a
bare file name goes into the folder named beside it ("report.csv in Documents", "to the Desktop as
letter.docx", "in the same folder"), else into the folder of the file named before it in the same
sentence (where Save As starts), else into the folder named last before it in its sentence ("the
exports are in ~/close/ (a.csv, b.csv)"; anywhere before it when "there" follows the name), else into
the home folder. These are guesses (`exact` is False), except where the words name the home folder
right after the name ("errors.txt in my home folder" is exactly `~/errors.txt`).

Which: a path is an output when a producing verb (save, export, write, create, ...) comes shortly
before it in its sentence or a word right before it says so ("into", "to", "as"), unless a verb or
preposition right before it makes it a source ("export ~/a.docx to PDF", "using ~/in.csv"). A "save
(the workbook | it) (in place)" without a path marks the file it refers to. A lone path is an output,
as a default rather than a statement (`role_stated` False), unless the words say it is a program that
runs ("my_process.sh is running"): the task acts on it. Only the instruction text is read.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

_EXTENSIONS = (
    "xlsx|xlsm|xls|ods|ots|csv|tsv|docx|doc|odt|ott|rtf|pptx|ppt|odp|otp|odg|pdf|txt|md|json|xml|html|htm|db|"
    "sqlite|sqlite3|sql|png|jpg|jpeg|svg|gif|bmp|webp|zip|tar|gz|tgz|7z|py|sh|tex|yaml|yml|toml|ini|cfg|conf|"
    "log|mp3|mp4|wav|ogg|mov|avi|mkv|epub|vcf|ics|ipynb|xcf|psd|tif|tiff|ico|webm|flac|m4a|rar|bz2|xz|srt|bib|"
    "eml|cpp|java|dotx|xltx|potx"
)
_HAS_EXTENSION = re.compile(rf"[^/]*[\w\-]\.(?:{_EXTENSIONS})$", re.IGNORECASE)
_BARE_NAME = re.compile(rf"[\w\-.]*[\w\-]\.(?:{_EXTENSIONS})", re.IGNORECASE)
HOME_FOLDERS = ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos", "Public", "Templates")
"""Folders of a desktop home that instructions name by word ("on the Desktop", "in Documents")."""

_URL = re.compile(r"(?<!\S)[(\[<\"'“‘`]*(?:[a-z][a-z0-9+.\-]*://|www\.)\S*", re.IGNORECASE)
_QUOTED = re.compile(r"(?<![\w])([\"“‘`]|')([^\"“”‘’`\n]{1,200}?)([\"”’`]|')(?![\w])")
_TOKEN = re.compile(r"\S+")
_LEADING = "([{\"'“‘`"
_TRAILING = ")]}\"'”’`,;:.!?"
_NOT_A_PATH = re.compile(r"[<>{}*?|]")
"""Placeholders and patterns (`letters/<last_name>.docx`, `*.pdf`) name no one file."""

_FOLDER_WORD = rf"(?:the\s+|my\s+|your\s+)?(?P<known>{'|'.join(HOME_FOLDERS)})\b(?:\s+(?:folder|directory))?"
_AFTER_NAME = re.compile(
    r"\s*,?\s*(?:which\s+is\s+|that\s+is\s+|located\s+|stored\s+|saved\s+)?(?:in|inside|under|on|at|from)\s+"
    rf"(?:(?P<same>the\s+same\s+(?:folder|directory))|{_FOLDER_WORD}|(?:the\s+)?(?:folder\s+|directory\s+)?(?=\S))",
    re.IGNORECASE,
)
"""A folder named right after a bare file name: "report.csv in Documents", "... in the same folder"."""
_BEFORE_NAME = re.compile(
    rf"(?:in|into|to|on|under|inside)\s+(?:{_FOLDER_WORD}|(?P<token>\S+))\s*,?\s+(?:as|named|called)\s+"
    r"(?:a\s+file\s+)?[\"'“‘`]?$",
    re.IGNORECASE,
)
"""A folder named right before a bare file name: "to the Desktop as letter.docx"."""
_THERE = re.compile(r"[\s,)]*there\b", re.IGNORECASE)
_IN_HOME = re.compile(
    r"\s*,?\s*(?:which\s+is\s+|that\s+is\s+|located\s+|stored\s+|saved\s+)?(?:in|inside|under|at)\s+"
    r"(?:my|the|your)\s+home(?:\s+(?:folder|directory))?\b",
    re.IGNORECASE,
)
"""The home folder named right after a name: "errors.txt in my home folder" is exactly ~/errors.txt."""
_RUNNING = re.compile(r"[\s\"'”’`]*(?:is|are|was|keeps)\s+(?:still\s+|currently\s+)?running\b", re.IGNORECASE)
"""A program the instruction says runs ("my_process.sh is running"): what the task acts on, never its output."""

_OUTPUT_VERBS = re.compile(
    r"\b(save|saved|saving|export(?!s?\s+(?:is|are|was|were|sits?|lives?)\b)|exported|write|written|create|"
    r"created|generate|produce|store|output|"
    r"rename|renamed|convert|converted|named|name it|as a new|into a new|download|build|make|prepare|"
    r"put)\b",
    re.IGNORECASE,
)
_SOURCE_BEFORE = re.compile(
    r"\b(export|convert|rename|copy|move|compress|open|opened|read|use|using|from|based on|of|merge|combine|"
    r"extract|listed in)\s+(?:the\s+)?(?:(?!(?:as|to|into)\b)\w+\s+){0,2}?(?:file|document|spreadsheet|workbook|presentation|folder|"
    r"image|data|template|outline|exports?)?\s*(?:at\s+|in\s+)?$",
    re.IGNORECASE,
)
"""A verb or preposition right before a path that makes it the thing read or converted, not the result."""
_OUTPUT_BEFORE = re.compile(
    r"\b(?:into|to|as|onto)\s+(?:a\s+|an\s+|the\s+)?(?:new\s+)?(?:\w+\s+)?(?:file|workbook|spreadsheet|document|"
    r"presentation|archive|folder)?\s*$",
    re.IGNORECASE,
)
"""A word right before a path that makes it the result: "into ~/all.xlsx", "to ~/b.txt", "as out.csv"."""
_LIST_GAP = re.compile(r"(?:,?\s*(?:and|or)|)", re.IGNORECASE)
"""What separates the paths of one list ("a.csv, b.csv and c.csv"); they share the first one's role."""
_OUTPUT_WINDOW = 80
"""Characters before a path in which a producing verb makes it an output."""
_SAVE_WITHOUT_PATH = re.compile(
    r"\bsave\b(?:\s+(?:it|them|your\s+changes|the\s+changes|(?:the\s+)?(?P<noun>workbook|spreadsheet|"
    r"document|presentation|file|deck|slides|database)))?(?P<in_place>\s+in\s+place)?(?=\s*(?:[.,;!)]|\band\b|"
    r"\bthen\b|\bas\s+(?:docx|xlsx|pptx|odt|ods|odp)\b|$))",
    re.IGNORECASE,
)
"""A "save" whose object is a file named elsewhere: "and save the presentation.", "Save in place."."""
_NOUN_EXTENSIONS = {
    "workbook": ("xlsx", "xlsm", "xls", "ods"),
    "spreadsheet": ("xlsx", "xlsm", "xls", "ods", "csv"),
    "document": ("docx", "doc", "odt", "rtf"),
    "presentation": ("pptx", "ppt", "odp"),
    "deck": ("pptx", "ppt", "odp"),
    "slides": ("pptx", "ppt", "odp"),
    "database": ("db", "sqlite", "sqlite3"),
}
_SENTENCE_ENDS = (". ", "\n", "; ", "! ", "? ", ": ")
_STATEMENT_ENDS = (". ", "\n", "! ", "? ")
"""Where a folder stated as the place of what follows stops applying (a list after ":" or ";" goes on)."""


@dataclass(frozen=True)
class MentionedPath:
    """A path the instruction names. `exact`: written in full (absolute or `~/`), not inferred.
    `role_stated`: the words say whether it is read or produced (not the lone-path default)."""

    path: str
    output: bool
    exact: bool = True
    role_stated: bool = True


@dataclass
class _Found:
    start: int
    end: int
    path: str
    exact: bool
    bare: bool = False
    used_as_folder: bool = False


def mentioned_paths(instruction: str) -> list[MentionedPath]:
    """The file paths an instruction names, in order, each once, tagged output or not."""
    text = _URL.sub(lambda m: " " * len(m.group(0)), instruction)
    found = _candidates(text)
    _place_bare_names(text, found)
    kept: dict[str, _Found] = {}
    for item in found:
        if not item.used_as_folder:
            kept.setdefault(item.path, item)
    items = list(kept.values())
    roles: list[bool | None] = []
    for index, item in enumerate(items):
        listed = index and _LIST_GAP.fullmatch(text[items[index - 1].end : item.start].strip(_TRAILING + " "))
        roles.append(roles[-1] if listed else _role(text, item.start))
    for index in _saved_without_path(text, items):
        roles[index] = True
    running = [_RUNNING.match(text, item.end) is not None for item in items]
    roles = [False if run else role for role, run in zip(roles, running, strict=True)]
    if len(items) == 1 and not roles[0] and not running[0]:
        return [MentionedPath(items[0].path, True, items[0].exact, role_stated=False)]
    return [
        MentionedPath(item.path, bool(role), item.exact, role_stated=role is not None)
        for item, role in zip(items, roles, strict=True)
    ]


def _candidates(text: str) -> list[_Found]:
    found: list[_Found] = []
    taken: list[tuple[int, int]] = []
    for match in _QUOTED.finditer(text):
        inner = match.group(2).strip()
        path = _as_path(inner, quoted=True)
        if path is not None:
            found.append(_Found(match.start(2), match.end(2), path[0], path[1], bare=path[2]))
            taken.append(match.span())
    for match in _TOKEN.finditer(text):
        if any(start <= match.start() < end for start, end in taken):
            continue
        raw = match.group(0)
        lead = len(raw) - len(raw.lstrip(_LEADING))
        token = raw[lead:].rstrip(_TRAILING)
        path = _as_path(token, quoted=False)
        if path is not None:
            start = match.start() + lead
            found.append(_Found(start, start + len(token), path[0], path[1], bare=path[2]))
    return sorted(found, key=lambda item: item.start)


def _as_path(token: str, quoted: bool) -> tuple[str, bool, bool] | None:
    """(path, exact, bare) for a word that names a file or folder, else None."""
    token = token.removeprefix("./")
    if token.startswith("$HOME/"):
        token = "~/" + token[len("$HOME/") :]
    if not token or _NOT_A_PATH.search(token) or (not quoted and re.search(r"\s", token)):
        return None
    if token.startswith(("~/", "/")):
        body = token[2:] if token.startswith("~/") else token[1:]
        if not body or token.startswith("//") or not (body[0].isalnum() or body[0] in "._-"):
            return None
        return token.rstrip("/") if len(token) > 2 else token, True, False
    if "/" in token:
        first = token.split("/", 1)[0]
        if (
            _HAS_EXTENSION.match(token.rsplit("/", 1)[1])
            or first in HOME_FOLDERS
            or (first.startswith(".") and len(first) > 1 and first != "..")
        ):
            return "~/" + token.rstrip("/"), False, False
        return None
    if _BARE_NAME.fullmatch(token) or (quoted and _HAS_EXTENSION.match(token)):
        return "~/" + token, False, True
    return None


def _place_bare_names(text: str, found: list[_Found]) -> None:
    """Put each bare file name into the folder the words around it name (see the module doc)."""
    by_start = {item.start: item for item in found}
    for index, item in enumerate(found):
        if not item.exact and _IN_HOME.match(text, _quote_end(text, item.end)):
            item.exact = True  # the home folder is where a bare or relative name is taken from
            continue
        if not item.bare:
            continue
        name = item.path[2:]
        folder = _folder_after(text, item, by_start, found[:index]) or _folder_before(text, item, by_start)
        if folder is None:
            folder = _folder_of_previous_file(text, item, found[:index])
        if folder is None:
            folder = _folder_named_before(text, item, found[:index])
        if folder is not None:
            item.path = posixpath.join(folder, name)


def _folder_after(text: str, item: _Found, by_start: dict[int, _Found], before: list[_Found]) -> str | None:
    match = _AFTER_NAME.match(text, _quote_end(text, item.end))
    if match is None:
        return None
    if match.group("same"):
        files = [f for f in before if _is_file(f.path)]
        return posixpath.dirname(files[-1].path) if files else None
    if match.group("known"):
        return "~/" + match.group("known").title()
    return _folder_candidate(by_start.get(match.end()))


def _folder_before(text: str, item: _Found, by_start: dict[int, _Found]) -> str | None:
    match = _BEFORE_NAME.search(text, 0, item.start)
    if match is None:
        return None
    if match.group("known"):
        return "~/" + match.group("known").title()
    return _folder_candidate(by_start.get(match.start("token") + _leading(match.group("token"))))


def _folder_of_previous_file(text: str, item: _Found, before: list[_Found]) -> str | None:
    sentence = _sentence_start(text, item.start)
    for earlier in reversed(before):
        if earlier.start < sentence:
            return None
        if _is_file(earlier.path) and not earlier.bare:
            return posixpath.dirname(earlier.path)
        if _is_file(earlier.path) and "/" in earlier.path[2:]:
            return posixpath.dirname(earlier.path)
    return None


def _folder_named_before(text: str, item: _Found, before: list[_Found]) -> str | None:
    """The folder named last before the name in its sentence ("exports are in ~/close/ (a.csv, b.csv)"),
    or anywhere before it when "there" follows the name ("notes.txt there")."""
    name = posixpath.basename(item.path)
    for earlier in reversed(before):  # the same name placed already ("west.csv; west.csv is ...")
        if posixpath.basename(earlier.path) == name and earlier.path != item.path:
            return posixpath.dirname(earlier.path)
    there = _THERE.match(text, _quote_end(text, item.end)) is not None
    statement = max(text.rfind(mark, 0, item.start) for mark in _STATEMENT_ENDS) + 1
    for earlier in reversed(before):
        if earlier.start < statement and not there:
            return None
        if not earlier.bare and not _is_file(earlier.path):
            earlier.used_as_folder = True
            return earlier.path.rstrip("/") or "/"
    return None


def _folder_candidate(item: _Found | None) -> str | None:
    if item is None or item.bare or _is_file(item.path):
        return None
    item.used_as_folder = True
    return item.path


def _quote_end(text: str, end: int) -> int:
    return end + 1 if end < len(text) and text[end] in "\"'”’`" else end


def _leading(token: str) -> int:
    return len(token) - len(token.lstrip(_LEADING))


def _sentence_start(text: str, start: int) -> int:
    return max(text.rfind(mark, 0, start) for mark in _SENTENCE_ENDS) + 1


def _role(text: str, start: int) -> bool | None:
    """True: produced; False: read; None: the words do not say."""
    window = text[max(_sentence_start(text, start), start - _OUTPUT_WINDOW) : start]
    right_before = window.rstrip(" \"'“‘`(") + " "
    if _SOURCE_BEFORE.search(right_before):
        return False
    if _OUTPUT_BEFORE.search(right_before) or _OUTPUT_VERBS.search(window):
        return True
    return None


def _saved_without_path(text: str, items: list[_Found]) -> list[int]:
    """Indexes of the files that a "save ..." without a path of its own refers to."""
    marked = []
    files = [i for i, item in enumerate(items) if _is_file(item.path)]
    for match in _SAVE_WITHOUT_PATH.finditer(text):
        noun = (match.group("noun") or "").lower()
        fits = [i for i in files if not noun or _extension(items[i].path) in _NOUN_EXTENSIONS.get(noun, ())]
        if noun in ("", "file") and match.group("in_place"):
            fits = fits[:1]
        earlier = [i for i in fits if items[i].end <= match.start()]
        if earlier or fits:
            marked.append(earlier[-1] if earlier else fits[0])
    return marked


def _is_file(path: str) -> bool:
    """Whether the path ends in a file name with a known extension (else it may be a folder)."""
    return _HAS_EXTENSION.match(posixpath.basename(path)) is not None


def _extension(path: str) -> str:
    return path.rsplit(".", 1)[-1].lower()
