"""Text diffs: unified line diffs (CSV, text, XML, ...) and key-level diffs of settings (JSON, INI,
`dconf dump`), falling back to lines when a settings file does not parse."""

from __future__ import annotations

import configparser
import difflib
import json
from xml.etree import ElementTree

from stateact.gate import settings
from stateact.gate.inspect.changes.model import Section, sections, short, value_text

OOR = "{http://openoffice.org/2001/registry}"

ABSENT = "(not set)"


def decode(data: bytes | None) -> str | None:
    """The text of `data`, or None when it is not text (has NUL bytes or is not UTF-8)."""
    if data is None:
        return ""
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def diff_lines(old: str, new: str) -> list[Section]:
    """A unified diff without context lines; hunk headers give the line numbers."""
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
    lines = [short(line) for line in diff if not line.startswith(("---", "+++"))]
    return sections(("lines (unified diff)", lines))


def diff_keys(old: str, new: str, kind: str) -> list[Section]:
    """Key-level changes of a settings text (`kind` json, ini or xcu); lines when either side does not parse.
    Keys an application rewrites as it runs (`GATE_DIFF_APP_STATE_KEYS`: window places, recent files) are
    left out."""
    try:
        before, after = flatten_settings(old, kind), flatten_settings(new, kind)
    except (ValueError, configparser.Error, ElementTree.ParseError):
        return diff_lines(old, new)
    changes = [
        f"{key}: {_setting(before, key)} → {_setting(after, key)}"
        for key in sorted(before.keys() | after.keys())
        if (key not in before or key not in after or before[key] != after[key])
        and not key.startswith(settings.GATE_DIFF_APP_STATE_KEYS)
    ]
    return sections(("settings changed", changes))


def _setting(values: dict[str, object], key: str) -> str:
    return value_text(values[key]) if key in values else ABSENT


def flatten_settings(text: str, kind: str) -> dict[str, object]:
    if not text.strip():
        return {}
    if kind == "json":
        return _flatten_json(json.loads(text), "")
    if kind == "xcu":
        found: dict[str, object] = {}
        for item in ElementTree.fromstring(text):
            _flatten_xcu(item, item.get(f"{OOR}path", ""), found)
        return found
    parser = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",))
    parser.optionxform = str  # keys keep their case
    try:
        parser.read_string(text)
    except configparser.MissingSectionHeaderError:
        parser.read_string("[(top)]\n" + text)
    return {f"[{s}] {k}": v for s in parser.sections() for k, v in parser.items(s, raw=True)}


def _flatten_json(value: object, prefix: str) -> dict[str, object]:
    if isinstance(value, dict) and value:
        found: dict[str, object] = {}
        for key, item in value.items():
            found.update(_flatten_json(item, f"{prefix}.{key}" if prefix else str(key)))
        return found
    if isinstance(value, list) and value:
        found = {}
        for index, item in enumerate(value):
            found.update(_flatten_json(item, f"{prefix}[{index}]"))
        return found
    return {prefix or "(root)": value}


def _flatten_xcu(element: ElementTree.Element, prefix: str, found: dict[str, object]) -> None:
    """LibreOffice's registrymodifications.xcu: `path/node/.../prop` -> the prop's value text."""
    for child in element:
        name = child.get(f"{OOR}name", "")
        if child.tag == "prop":
            found[f"{prefix}/{name}"] = "".join(v.text or "" for v in child.iter("value"))
        elif child.tag == "node":
            _flatten_xcu(child, f"{prefix}/{name}", found)
