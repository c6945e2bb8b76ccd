"""Which diff a file gets, by its name and content."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from stateact.gate.inspect.changes.documents import diff_docx, diff_odt
from stateact.gate.inspect.changes.model import Section
from stateact.gate.inspect.changes.sheets import diff_workbooks
from stateact.gate.inspect.changes.slides import diff_odp, diff_pptx
from stateact.gate.inspect.changes.tables import diff_sqlite
from stateact.gate.inspect.changes.text import decode, diff_keys, diff_lines

Differ = Callable[[bytes | None, bytes | None], list[Section]]

STRUCTURED: dict[str, Differ] = {
    "xlsx": diff_workbooks,
    "xlsm": diff_workbooks,
    "docx": diff_docx,
    "odt": diff_odt,
    "pptx": diff_pptx,
    "odp": diff_odp,
    "db": diff_sqlite,
    "sqlite": diff_sqlite,
    "sqlite3": diff_sqlite,
}
SETTINGS_KINDS = {
    "json": "json", "ini": "ini", "cfg": "ini", "conf": "ini", "desktop": "ini", "list": "ini", "xcu": "xcu",
}  # fmt: skip
"""Extensions read as key = value settings; other text files get a line diff."""
SQLITE_MAGIC = b"SQLite format 3\0"


def settings_kind(path: str) -> str | None:
    """How a settings file is read (json, ini, xcu), or None for a file that is not one."""
    name = PurePosixPath(path).name.lower()
    if path.startswith("dconf:"):
        return "ini"
    if name == "preferences":  # Chrome/Chromium settings are JSON without an extension
        return "json"
    return SETTINGS_KINDS.get(name.rsplit(".", 1)[-1] if "." in name else "")


def is_settings(path: str) -> bool:
    return settings_kind(path) is not None


def describe(path: str, old: bytes | None, new: bytes | None) -> list[Section]:
    """The changes from `old` to `new` (None: the file did not exist) of the file at `path`."""
    name = PurePosixPath(path).name.lower()
    extension = name.rsplit(".", 1)[-1] if "." in name else ""
    differ = STRUCTURED.get(extension)
    if differ is None and any((data or b"").startswith(SQLITE_MAGIC) for data in (old, new)):
        differ = diff_sqlite
    if differ is not None:
        return differ(old, new)
    old_text, new_text = decode(old), decode(new)
    if old_text is None or new_text is None:
        return [Section("binary content", [f"{len(old or b'')} → {len(new or b'')} bytes"])]
    kind = settings_kind(path)
    return diff_keys(old_text, new_text, kind) if kind else diff_lines(old_text, new_text)
