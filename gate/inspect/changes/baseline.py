"""The state baseline: copies of the task's files and the home folder's documents, taken at the task start.

    baseline = take_baseline(sandbox, run_dir, instruction, log)   # once, before the agent's first turn
    baseline = load_baseline(run_dir)                              # each gate round, and after a resume

The copies live in the run folder (`baseline/`), outside the sandbox's home, so the agent can neither
see nor change them. Files are read through `sandbox.read_file`, so this works on every backend.
The manifest is written last: a baseline without one was never completed and does not count.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from stateact.gate import settings
from stateact.gate.events import GateBaseline, GateBaselineError
from stateact.gate.inspect.deliverables import mentioned_paths
from stateact.gate.inspect.probes import ProbeError, run_probe
from stateact.kernel.runlog import RunLog
from stateact.sandbox.base import Sandbox

BASELINE_DIR = "baseline"
MANIFEST = "manifest.json"
DCONF_PATH = "dconf:/"
"""The name the `dconf dump /` text goes by in a baseline and a diff."""


class BaselineError(RuntimeError):
    """The sandbox's files could not be listed."""


@dataclass
class Baseline:
    """The recorded state: per file its facts (`size`, `mtime`, `sha256`, `kind`, `copy`)."""

    folder: Path
    taken_at: float | None
    """The task's start on the sandbox's clock (None when unknown)."""
    named: list[str]
    files: dict[str, dict]
    more: int
    """Files left out because the baseline was full."""
    inventory: dict | None = None
    """Every file of the home outside hidden folders (`home_inventory`: {"files": {path: [size, mtime, inode,
    sha256]}, "more": n}), none copied; None in a baseline taken before it was recorded."""

    def old_bytes(self, path: str) -> bytes | None:
        """The copy of `path` as it was at the task start, or None when there is no copy."""
        name = self.files.get(path, {}).get("copy")
        return (self.folder / name).read_bytes() if name else None


def list_state(sandbox: Sandbox, named: list[str]) -> dict:
    """The files a baseline covers as they are now: {"files": [...], "more": n, "dconf": text | None}."""
    request = {
        "home": sandbox.home,
        "named": named,
        "extensions": list(settings.GATE_BASELINE_DOCUMENT_EXTENSIONS),
        "settings": list(settings.GATE_BASELINE_SETTINGS_PATHS),
        "skip_dirs": list(settings.GATE_BASELINE_SKIP_DIRS),
        "max_files": settings.GATE_BASELINE_MAX_FILES,
        "file_max": settings.GATE_BASELINE_FILE_MAX_BYTES,
        "config_max": settings.GATE_BASELINE_CONFIG_MAX_BYTES,
        "inventory": {
            "max_files": settings.GATE_BASELINE_INVENTORY_MAX_FILES,
            "hash_max": settings.GATE_BASELINE_INVENTORY_HASH_MAX_BYTES,
        },
    }
    try:
        listing = run_probe(sandbox, "baseline_listing", timeout=settings.GATE_BASELINE_TIMEOUT_S, **request)
    except ProbeError as exc:
        raise BaselineError(f"listing returned nothing: {exc}") from exc
    if "error" in listing:
        raise BaselineError(f"listing failed: {listing['error']}")
    return listing


def named_paths(sandbox: Sandbox, instruction: str) -> list[str]:
    """The absolute sandbox paths of the files the instruction names."""
    return [sandbox.expand(p.path) for p in mentioned_paths(instruction)]


def take_baseline(
    sandbox: Sandbox, run_dir: Path, instruction: str, log: RunLog, task_started_at: float | None
) -> Baseline | None:
    """Copy the task's files into `run_dir/baseline/` and log a `gate_baseline` event; on failure log
    `gate_baseline_error` and return None (the gate then says it has no baseline).
    `task_started_at` (the sandbox's clock) tells files created later from ones the baseline left out."""
    started = time.monotonic()
    try:
        named = named_paths(sandbox, instruction)
        baseline = _take(sandbox, Path(run_dir) / BASELINE_DIR, named, task_started_at)
    except (BaselineError, OSError, ValueError) as exc:
        log.emit(GateBaselineError(error=f"{type(exc).__name__}: {exc}"))
        return None
    copies = [f for f in baseline.files.values() if f["copy"]]
    log.emit(
        GateBaseline(
            folder=str(baseline.folder),
            files=len(baseline.files),
            copies=len(copies),
            copied_bytes=sum(f["size"] for f in copies),
            without_copy=sorted(p for p, f in baseline.files.items() if not f["copy"]),
            more=baseline.more,
            named=baseline.named,
            seconds=round(time.monotonic() - started, 3),
        )
    )
    return baseline


def _take(sandbox: Sandbox, folder: Path, named: list[str], started_at: float | None) -> Baseline:
    listing = list_state(sandbox, named)
    (folder / "files").mkdir(parents=True, exist_ok=True)
    budget = settings.GATE_BASELINE_TOTAL_MAX_BYTES
    files: dict[str, dict] = {}
    for index, fact in enumerate(listing["files"]):
        copy = None
        if fact["sha256"] is not None and fact["size"] <= budget:
            copy = f"files/{index:05d}"
            try:
                data = sandbox.read_file(fact["path"])
            except OSError:  # gone or unreadable since the listing
                continue
            (folder / copy).write_bytes(data)
            budget -= len(data)
        files[fact["path"]] = {**fact, "copy": copy}
    if listing["dconf"] is not None:
        (folder / "dconf.txt").write_text(listing["dconf"], encoding="utf-8")
        files[DCONF_PATH] = {"kind": "settings", "size": len(listing["dconf"]), "copy": "dconf.txt"}
    manifest = {
        "taken_at": started_at,
        "named": named,
        "files": files,
        "more": listing["more"],
        "inventory": listing["inventory"],
    }
    partial = folder / (MANIFEST + ".partial")
    partial.write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
    os.replace(partial, folder / MANIFEST)
    return Baseline(folder, manifest["taken_at"], named, files, listing["more"], listing["inventory"])


def load_baseline(run_dir: Path) -> Baseline | None:
    """The baseline a run took at its start, or None when it took none (or did not finish taking it)."""
    folder = Path(run_dir) / BASELINE_DIR
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Baseline(
        folder,
        manifest["taken_at"],
        manifest["named"],
        manifest["files"],
        manifest["more"],
        manifest.get("inventory"),
    )
