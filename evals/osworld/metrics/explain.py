"""What a metric compared, told beside its score without changing it.

A metric keeps returning its float; where it decides, it may `note` what it compared:

    note("sheet_data: Stock (result) against Stock (expected)", lambda: ["Stock!D6: 1 → 122.5"])

Notes are kept only inside `collect()` (scoring opens one around each metric call): elsewhere, as in
the metrics corpus tests, `note` does nothing and its differences are never computed. Differences are
computed lazily and guarded: listing them cannot raise into the metric or change its score, and only
the first `settings.EXPLAIN_DIFFERENCES` are kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import islice
from typing import Any

from stateact.evals import settings

Differences = Callable[[], Iterable[str]] | Iterable[str]

_notes: ContextVar[list[dict[str, Any]] | None] = ContextVar("metric_notes", default=None)


@contextmanager
def collect() -> Iterator[list[dict[str, Any]]]:
    """Keep the notes made inside the block, in the list it yields (each `{summary, differences, more}`)."""
    notes: list[dict[str, Any]] = []
    token = _notes.set(notes)
    try:
        yield notes
    finally:
        _notes.reset(token)


def listening() -> bool:
    """Whether a `collect()` block keeps notes (work done only for an explanation can be skipped)."""
    return _notes.get() is not None


def note(summary: str, differences: Differences = ()) -> None:
    """Record what was compared (`summary`) and the first differences found; a no-op outside `collect()`."""
    notes = _notes.get()
    if notes is None:
        return
    cap = settings.EXPLAIN_DIFFERENCES
    entry: dict[str, Any] = {"summary": summary, "differences": []}
    try:
        found = iter(differences() if callable(differences) else differences)
        entry["differences"] = [str(line) for line in islice(found, cap)]
        entry["more"] = sum(1 for _ in found)
    except Exception as exc:  # an explanation must never change a score
        entry["differences"].append(f"(the differences could not be listed: {type(exc).__name__}: {exc})")
    if not entry.get("more"):
        entry.pop("more", None)
    notes.append(entry)


def shown(value: Any, limit: int = settings.EXPLAIN_VALUE_CHARS) -> str:
    """A compared value as a reader wants it: whole floats without `.0`, empty cells as `(empty)`,
    strings quoted only when blank at an end, long text cut."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "(empty)"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    elif isinstance(value, str):
        text = repr(value) if value != value.strip() or not value else value
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def change(where: str, observed: Any, expected: Any) -> str:
    """One difference line: `where: observed → expected`, with the types when the two read alike."""
    ours, theirs = shown(observed), shown(expected)
    if ours == theirs:
        ours, theirs = f"{ours} ({_kind(observed)})", f"{theirs} ({_kind(expected)})"
    return f"{where}: {ours} → {theirs}"


def _kind(value: Any) -> str:
    """A value's type as a reader knows it (numpy's int64 is an int)."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind.__name__
    name = type(value).__name__
    return "int" if name.startswith("int") else "float" if name.startswith("float") else name


def first_line_difference(observed: list[str], expected: list[str], unit: str = "line") -> list[str]:
    """The first line (or other `unit`) where two lists differ, by number, or their lengths when one
    is a prefix of the other."""
    for number, (ours, theirs) in enumerate(zip(observed, expected, strict=False), start=1):
        if ours != theirs:
            return [change(f"{unit} {number}", ours, theirs)]
    if len(observed) != len(expected):
        return [f"{len(observed)} {unit}s → {len(expected)} {unit}s"]
    return []


def explanation_text(notes: Iterable[dict[str, Any]]) -> str:
    """Notes as one readable text: each summary, then its differences indented."""
    lines = []
    for entry in notes:
        lines.append(str(entry.get("summary", "")))
        lines += [f"  {line}" for line in entry.get("differences", [])]
        if entry.get("more"):
            lines.append(f"  … and {entry['more']} more")
    return "\n".join(lines)


def checkpoint_title(part: dict[str, Any]) -> str:
    """A score.json part's checkpoint name (`name`, else its metric for scores written before names)."""
    return str(part.get("name") or part.get("func") or "?")


DISTINCT_CHARS = 60
"""The most of a checkpoint's expected value its title shows to tell it from one of the same name."""


def checkpoint_titles(parts: list[dict[str, Any]]) -> list[str]:
    """Each checkpoint's title, no two alike: a name several checkpoints share gets what each expects
    (`exact_match on cmd (expected: 42)`), and one still shared its place among them (`#2`)."""
    names = [checkpoint_title(part) for part in parts]
    titles = [
        f"{name} (expected: {expected})"
        if names.count(name) > 1 and (expected := _expected_text(part))
        else name
        for part, name in zip(parts, names, strict=True)
    ]
    seen: dict[str, int] = {}
    numbered = []
    for title in titles:
        seen[title] = seen.get(title, 0) + 1
        numbered.append(f"{title} #{seen[title]}" if titles.count(title) > 1 else title)
    return numbered


def _expected_text(part: dict[str, Any]) -> str:
    """The checkpoint's expected input, on one line and short; empty when it has none."""
    inputs = part.get("inputs")
    if not isinstance(inputs, list) or len(inputs) < 2 or inputs[1] in (None, "(none)"):
        return ""
    text = " ".join(str(inputs[1]).split())
    return text if len(text) <= DISTINCT_CHARS else text[: DISTINCT_CHARS - 1] + "…"


def checkpoint_detail(part: dict[str, Any]) -> str:
    """What a score.json part says about its checkpoint: the metric's notes, else its error, else its
    inputs (`result: …` / `expected: …`)."""
    notes = part.get("explanation")
    if isinstance(notes, list) and notes:
        return explanation_text(entry for entry in notes if isinstance(entry, dict))
    if part.get("error"):
        return str(part["error"])
    inputs = part.get("inputs")
    if not isinstance(inputs, list):
        return ""
    return "\n".join(f"{role}: {value}" for role, value in zip(("result", "expected"), inputs, strict=False))


def first_difference(part: dict[str, Any]) -> str:
    """One line for a failed checkpoint: its name and the first thing its notes say differs."""
    lines = [line.strip() for line in checkpoint_detail(part).splitlines() if line.strip()]
    notes = part.get("explanation")
    first = lines[1] if isinstance(notes, list) and notes and len(lines) > 1 else (lines[0] if lines else "")
    return f"{checkpoint_title(part)}: {first}" if first else checkpoint_title(part)


def failed_checkpoints(parts: Iterable[Any]) -> list[str]:
    """One line (`first_difference`) per checkpoint of score.json's parts that scored below 1."""
    return [
        first_difference(part)
        for part in parts
        if isinstance(part, dict) and isinstance(part.get("score"), int | float) and part["score"] < 1.0
    ]
