"""Fingerprint the task's files before the gate runs, detect what it changed, and undo it.

    snapshot = Snapshot.take(sandbox, deliverables)
    ... the gate runs ...
    check = snapshot.check_and_restore()   # changes, restored, removed, failed

Scope: the deliverable paths plus every file under the home folder, skipping hidden
folders (`~/.config`, `~/.cache`, ... change on their own while apps run; hidden files
such as LibreOffice lock files in ordinary folders are covered), at most
GATE_FINGERPRINT_MAX_FILES files. Each file: size, mtime and SHA-256 (files over
GATE_HASH_MAX_BYTES: size and mtime only, so a same-size rewrite that keeps the mtime
goes unseen there).

Everything runs inside the sandbox (a VM too), and nothing large crosses to the host:
restore copies go to a temporary folder outside the home, deliverables first and then
the newest files, skipping files over GATE_SNAPSHOT_FILE_MAX_BYTES and stopping at
GATE_SNAPSHOT_TOTAL_MAX_BYTES. A change to a file without a copy is detected and
reported as not restored. The stored state is hash-checked before use, and each copy
against its recorded hash before it is put back. Files the gate created are deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stateact.gate import settings
from stateact.gate.inspect.probes import run_probe
from stateact.sandbox.base import Sandbox


@dataclass
class Check:
    """What differed after the gate ran, and what was done about it."""

    changes: list[tuple[str, str]] = field(default_factory=list)
    """(path, kind) with kind changed | deleted | created | touched (same bytes, new mtime)."""
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    def violations(self) -> list[str]:
        return [f"{kind}: {path}" for path, kind in self.changes]


@dataclass
class Snapshot:
    """The before-state of one gate round, kept in a store inside the sandbox."""

    sandbox: Sandbox
    scope: dict
    store: str
    state_sha256: str
    summary: dict

    @classmethod
    def take(cls, sandbox: Sandbox, deliverables: list[str]) -> Snapshot:
        scope = {
            "roots": ["~"],
            "files": list(deliverables),
            "max_files": settings.GATE_FINGERPRINT_MAX_FILES,
            "hash_max": settings.GATE_HASH_MAX_BYTES,
        }
        result = run_probe(
            sandbox,
            "snapshot_take",
            timeout=settings.GATE_FINGERPRINT_TIMEOUT_S,
            scope=scope,
            copy_file_max=settings.GATE_SNAPSHOT_FILE_MAX_BYTES,
            copy_total_max=settings.GATE_SNAPSHOT_TOTAL_MAX_BYTES,
        )
        if "error" in result:
            raise RuntimeError(f"gate snapshot failed: {result['error']}")
        summary = {k: result[k] for k in ("store", "files", "copies", "copied_bytes", "capped")}
        return cls(sandbox, scope, result["store"], result["state_sha256"], summary)

    def check_and_restore(self) -> Check:
        """Compare with the state before; put back changed files, delete created ones, drop the store."""
        result = run_probe(
            self.sandbox,
            "snapshot_check",
            timeout=settings.GATE_FINGERPRINT_TIMEOUT_S,
            store=self.store,
            state_sha256=self.state_sha256,
            scope=self.scope,
            restore=True,
        )
        if "error" in result:
            raise RuntimeError(f"gate snapshot check failed: {result['error']}")
        return Check(
            changes=[(path, kind) for path, kind in result["changes"]],
            restored=result["restored"],
            removed=result["removed"],
            failed=result["failed"],
        )
