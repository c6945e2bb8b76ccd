"""The state diff as the text the gate reads, with every list capped ("… and N more")."""

from __future__ import annotations

from stateact.gate import settings
from stateact.gate.inspect.changes.diff import StateDiff
from stateact.gate.inspect.changes.model import FileDiff

MARKS = {"changed": "~ changed", "added": "+ added", "removed": "- removed", "moved": "> moved"}


def capped(items: list[str], limit: int = settings.GATE_DIFF_MAX_ITEMS) -> list[str]:
    """The first `limit` items, and a line counting the rest."""
    return items if len(items) <= limit else [*items[:limit], f"… and {len(items) - limit} more"]


def render(diff: StateDiff) -> str:
    if not diff.files:
        return f"(nothing changed among the {diff.baseline_files} files recorded at the task start)"
    counts = ", ".join(f"{n} {status}" for status, n in diff.summary.items() if status != "baseline_files")
    lines = [f"{diff.baseline_files} files were recorded at the task start; now: {counts}."]
    for item in diff.files:
        lines += _file_lines(item)
    if diff.not_described:
        lines.append(f"({diff.not_described} more changed files are listed without their content changes)")
    text = "\n".join(lines)
    limit = settings.GATE_DIFF_MAX_CHARS
    if len(text) > limit:
        cut = text.rfind("\n", 0, limit)
        text = f"{text[:cut]}\n… (the diff is cut here: {len(text) - cut} more characters)"
    return text


def _file_lines(item: FileDiff) -> list[str]:
    note = f" ({item.note})" if item.note else ""
    lines = [f"{MARKS[item.status]}: {item.path}{note}"]
    for section in item.sections:
        lines.append(f"  {section.title}:")
        lines += [f"    {entry}" for entry in capped(section.items)]
    return lines
