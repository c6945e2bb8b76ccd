"""The structured diff of the state: the baseline's files now, against their copies from the task start.

    diff = state_diff(sandbox, baseline)   # files added, removed, changed, each with its sections

The same listing as the baseline's runs again (same named paths, same rules); only files whose
SHA-256 (or, without one, size and mtime) differ are read back through `sandbox.read_file`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stateact.gate import settings
from stateact.gate.inspect.changes.baseline import DCONF_PATH, Baseline, list_state
from stateact.gate.inspect.changes.formats import describe, is_settings
from stateact.gate.inspect.changes.inventory import InventoryChanges, compare_inventories, complete
from stateact.gate.inspect.changes.model import FileDiff, Section
from stateact.gate.inspect.changes.remaining import still_occurs

TOO_LARGE = "(not compared: larger than GATE_BASELINE_FILE_MAX_BYTES)"


@dataclass
class StateDiff:
    baseline_files: int
    files: list[FileDiff] = field(default_factory=list)
    not_described: int = 0
    """Changed files beyond GATE_DIFF_MAX_FILES, listed without detail."""

    @property
    def summary(self) -> dict:
        counts = {s: sum(f.status == s for f in self.files) for s in ("changed", "added", "removed", "moved")}
        return {"baseline_files": self.baseline_files, **counts}


def state_diff(sandbox, baseline: Baseline, remaining: list[str] | None = None) -> StateDiff:
    """Compare the sandbox's files now with `baseline`; in each changed or added file, say where the
    `remaining` texts (ones the instruction asks to replace or remove) still occur."""
    listing = list_state(sandbox, baseline.named)
    now = {f["path"]: f for f in listing["files"]}
    result = StateDiff(baseline_files=len(baseline.files))
    for path, fact in now.items():
        old = baseline.files.get(path)
        if old is None and _created(fact, baseline):
            result.files.append(FileDiff(path, "added", f"{fact['size']} bytes"))
        elif old is not None and _differs(old, fact):
            result.files.append(FileDiff(path, "changed", f"{old['size']} → {fact['size']} bytes"))
    for path in baseline.files:
        if path != DCONF_PATH and path not in now and (listing["more"] == 0 or not sandbox.exists(path)):
            result.files.append(FileDiff(path, "removed"))
    if complete(baseline.inventory) and complete(listing.get("inventory")):
        _add_inventory_changes(result, compare_inventories(baseline.inventory, listing["inventory"]))
    if DCONF_PATH in baseline.files and listing["dconf"] is not None:
        dconf = listing["dconf"].encode("utf-8")
        if dconf != baseline.old_bytes(DCONF_PATH):
            result.files.append(FileDiff(DCONF_PATH, "changed", "dconf dump /"))
    described = []
    for index, item in enumerate(result.files):
        if item.status in ("removed", "moved") or (item.status == "added" and item.path not in now):
            pass  # nothing to read, or not a document (only listed)
        elif index >= settings.GATE_DIFF_MAX_FILES:
            result.not_described += 1
        elif item.path in now and now[item.path]["sha256"] is None:
            item.sections = [Section("content", [TOO_LARGE])]
        else:
            item.sections = _sections(sandbox, baseline, item, listing["dconf"], remaining or [])
            if not item.sections and item.status == "changed" and is_settings(item.path):
                continue  # only the keys an app rewrites as it runs changed (GATE_DIFF_APP_STATE_KEYS)
        described.append(item)
    result.files = described
    return result


def _add_inventory_changes(result: StateDiff, found: InventoryChanges) -> None:
    """Files outside the copied ones created, deleted or changed, and moves (a document's removal at one path
    and addition at another become one move)."""
    listed = {item.path: item for item in result.files}
    for old, new in found.moved:
        for path in (old, new):
            if path in listed:
                result.files.remove(listed.pop(path))
        result.files.append(FileDiff(new, "moved", f"from {old}"))
    for path in found.added:
        if path not in listed:
            result.files.append(FileDiff(path, "added", "not a document: listed only"))
    for path in found.removed:
        if path not in listed:
            result.files.append(FileDiff(path, "removed"))
    for path, old_size, new_size in found.changed:
        if path not in listed:
            result.files.append(
                FileDiff(path, "changed", f"{old_size} → {new_size} bytes; not a document: no copy")
            )


def _created(fact: dict, baseline: Baseline) -> bool:
    """A file missing from the baseline is new, unless the baseline was full and the file is older."""
    return not baseline.more or baseline.taken_at is None or fact["mtime"] > baseline.taken_at


def _differs(old: dict, new: dict) -> bool:
    if old.get("sha256") and new.get("sha256"):
        return old["sha256"] != new["sha256"]
    return (old["size"], old["mtime"]) != (new["size"], new["mtime"])


def _sections(
    sandbox, baseline: Baseline, item: FileDiff, dconf: str | None, remaining: list[str]
) -> list[Section]:
    old = baseline.old_bytes(item.path)
    if item.status == "changed" and old is None:
        return [Section("content", ["(no baseline copy: the file was too large or the baseline was full)"])]
    try:
        new = dconf.encode("utf-8") if item.path == DCONF_PATH else sandbox.read_file(item.path)
    except OSError as exc:
        return [Section("content", [f"(could not read it now: {exc})"])]
    try:
        found = describe(item.path, old, new)
        return found + still_occurs(item.path, new, remaining) if item.path != DCONF_PATH else found
    except Exception as exc:  # a file a parser cannot read must not end the round
        return [Section("content", [f"(could not compare: {type(exc).__name__}: {str(exc)[:200]})"])]
