"""The events a run logged, read back in tests."""

from __future__ import annotations

from pathlib import Path

from stateact.kernel.events import Event, read_events


def logged_events(events_path: Path, kind: str | None = None) -> list[Event]:
    """The events in `events_path`, in order; only those of `kind` when given."""
    return [event for event in read_events(events_path) if kind is None or event.kind == kind]
