"""`stateact cleanup`: what dead runs left on this machine — removed, or kept on purpose for a resume."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

from stateact.app.survival import CARRIED_TMP
from stateact.kernel.events import RunStart, read_events
from stateact.sandbox.leftovers import REGISTRY, Leftover, remove, stale


def resumable_runs(runs_root: Path) -> Iterator[tuple[Path, str]]:
    """(run folder, how it ended) of each run under `runs_root` that a resume can continue and whose
    harness is gone: killed (no result.json) or interrupted."""
    for events in sorted(Path(runs_root).glob("*/events.jsonl")):
        run_dir = events.parent
        try:
            status = json.loads((run_dir / "result.json").read_text(encoding="utf-8")).get("status")
        except OSError:
            status = "killed"
        except ValueError:
            status = "unreadable result.json"
        if status in ("killed", "interrupted") and not _running(events):
            yield run_dir, status


def _running(events: Path) -> bool:
    """Whether the run's last sandbox is recorded and not stale: its harness is still at work."""
    tags = [e.sandbox_tag for e in read_events(events, lenient=True) if isinstance(e, RunStart)]
    dead = {leftover.tag for leftover in stale()}
    return bool(tags and tags[-1] and (REGISTRY / f"{tags[-1]}.json").exists() and tags[-1] not in dead)


def describe(leftover: Leftover) -> str:
    held = [f"{leftover.processes} process(es)" if leftover.processes else ""]
    held += [f"folder {folder}" for folder in leftover.folders]
    held += [f"file {file}" for file in leftover.files]
    held += [f"cgroup {group}" for group in leftover.groups]
    what = ", ".join(h for h in held if h) or "nothing but its record"
    owner = f"of dead process {leftover.owner}" if leftover.owner else "whose record is gone"
    return f"{leftover.kind} {leftover.tag} {owner}: {what}"


def cleanup(runs_root: Path, remove_leftovers: bool, say: Callable[[str], None]) -> None:
    """Say what dead runs left; with `remove_leftovers` remove the sandboxes' leftovers. Run folders
    are never removed: each is listed with the commands that resume or discard it."""
    leftovers = stale()
    for leftover in leftovers:
        if remove_leftovers:
            remove(leftover)
        say(("removed " if remove_leftovers else "") + describe(leftover))
    if leftovers and not remove_leftovers:
        say("remove these with: stateact cleanup --remove (a new run's start removes them too)")
    for run_dir, status in resumable_runs(runs_root):
        tmp = f" (with its sandbox's /tmp, in {CARRIED_TMP}/)" if (run_dir / CARRIED_TMP).is_dir() else ""
        say(
            f"run {run_dir} ({status}) is kept for its resume{tmp}: stateact resume {run_dir}   discard: rm -r {run_dir}"
        )
    if not leftovers and not any(resumable_runs(runs_root)):
        say(f"nothing left by dead runs (runs folder {runs_root})")
