"""Fingerprint the task's files before the gate runs, detect what it changed, and undo it.

Scope: the deliverable paths plus every file under the home folder, skipping hidden
folders (`~/.config`, `~/.cache`, ... change on their own while apps run; hidden
files such as LibreOffice lock files in ordinary folders are covered), at most
GATE_FINGERPRINT_MAX_FILES files. Each file: size, mtime and SHA-256 (files over
GATE_HASH_MAX_BYTES: size and mtime only).

Restore copies are made inside the sandbox (a temporary folder outside the home),
deliverables first and then the newest files, skipping files over
GATE_SNAPSHOT_FILE_MAX_BYTES and stopping at GATE_SNAPSHOT_TOTAL_MAX_BYTES. A change
to a file without a copy is still detected and recorded as not restored. A copy is
checked against its recorded hash before it is put back. Files the gate created
are deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gate import settings
from gate.probes import run_probe
from sandbox.base import Sandbox

Fingerprint = dict[str, list]
"""path -> [size, mtime, sha256 or None]"""


@dataclass
class Change:
    path: str
    kind: str
    """changed | deleted | created | touched (same bytes, new mtime)"""

    def describe(self) -> str:
        return f"{self.kind}: {self.path}"


@dataclass
class Snapshot:
    """The before-state of one gate round and the copies that can restore it."""

    sandbox: Sandbox
    files: Fingerprint
    store: str
    copies: dict[str, str] = field(default_factory=dict)
    capped: bool = False

    @classmethod
    def take(cls, sandbox: Sandbox, deliverables: list[str]) -> Snapshot:
        files = _fingerprint(sandbox, deliverables)
        capped = len(files) >= settings.GATE_FINGERPRINT_MAX_FILES
        store = run_probe(sandbox, "make_store")["store"]
        chosen = _choose_copies(files, deliverables, sandbox)
        result = run_probe(
            sandbox, "snapshot", timeout=settings.GATE_FINGERPRINT_TIMEOUT_S, paths=chosen, store=store
        )
        if "error" in result:
            raise RuntimeError(f"gate snapshot failed: {result['error']}")
        return cls(sandbox, files, store, result["copies"], capped)

    def changes(self, deliverables: list[str]) -> list[Change]:
        """What differs now from the fingerprint taken before."""
        after = _fingerprint(self.sandbox, deliverables)
        found = []
        for path, (size, mtime, digest) in self.files.items():
            now = after.get(path)
            if now is None:
                found.append(Change(path, "deleted"))
            elif now[0] != size or (digest and now[2] and now[2] != digest):
                found.append(Change(path, "changed"))
            elif now[1] != mtime:
                found.append(Change(path, "touched"))
        if not (self.capped and len(after) >= settings.GATE_FINGERPRINT_MAX_FILES):
            found.extend(Change(path, "created") for path in after if path not in self.files)
        return found

    def restore(self, changes: list[Change]) -> dict:
        """Put back every changed file that has a copy and delete created files; drops the store."""
        copies = {
            c.path: self.copies[c.path] for c in changes if c.kind != "created" and c.path in self.copies
        }
        missing = [c.path for c in changes if c.kind != "created" and c.path not in self.copies]
        result = run_probe(
            self.sandbox,
            "restore",
            timeout=settings.GATE_FINGERPRINT_TIMEOUT_S,
            copies=copies,
            remove=[c.path for c in changes if c.kind == "created"],
            store=self.store,
            expected={path: self.files[path][2] for path in copies},
        )
        result.setdefault("failed", {}).update(
            {path: "no snapshot copy (over the size caps)" for path in missing}
        )
        return result

    def discard(self) -> None:
        run_probe(self.sandbox, "discard", store=self.store)


def _fingerprint(sandbox: Sandbox, deliverables: list[str]) -> Fingerprint:
    result = run_probe(
        sandbox,
        "fingerprint",
        timeout=settings.GATE_FINGERPRINT_TIMEOUT_S,
        roots=["~"],
        files=deliverables,
        skip_hidden_dirs=True,
        max_files=settings.GATE_FINGERPRINT_MAX_FILES,
        hash_max=settings.GATE_HASH_MAX_BYTES,
    )
    if "error" in result:
        raise RuntimeError(f"gate fingerprint failed: {result['error']}")
    return result["files"]


def _choose_copies(files: Fingerprint, deliverables: list[str], sandbox: Sandbox) -> list[str]:
    """Deliverables first, then the newest files, within the size caps."""
    wanted = {_resolve(sandbox, p) for p in deliverables}
    order = sorted(files, key=lambda p: (p not in wanted, -files[p][1]))
    chosen, total = [], 0
    for path in order:
        size = files[path][0]
        if (
            size > settings.GATE_SNAPSHOT_FILE_MAX_BYTES
            or total + size > settings.GATE_SNAPSHOT_TOTAL_MAX_BYTES
        ):
            continue
        chosen.append(path)
        total += size
    return chosen


def _resolve(sandbox: Sandbox, path: str) -> str:
    if path == "~" or path.startswith("~/"):
        return sandbox.home.rstrip("/") + path[1:]
    return path if path.startswith("/") else f"{sandbox.home.rstrip('/')}/{path}"
