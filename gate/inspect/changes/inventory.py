"""Which files of the home were created, deleted, moved or changed, whatever their type: the baseline's
inventory (every file that is not hidden: size, mtime, inode, SHA-256) against the same listing now.

    found = compare_inventories(baseline.inventory, listing["inventory"])
    found.moved   # [(old path, new path)], e.g. a sorted inbox's files moved into new folders

A file deleted at one path and created at another with the same content (its SHA-256; for a file too
large to hash, its size, inode and mtime, which `mv` keeps) was moved.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class InventoryChanges:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[tuple[str, int, int]] = field(default_factory=list)
    """(path, old size, new size)"""
    moved: list[tuple[str, str]] = field(default_factory=list)
    """(old path, new path)"""


def complete(inventory: dict | None) -> bool:
    """Whether an inventory lists every file (it was taken, and the home was within its cap)."""
    return inventory is not None and inventory["more"] == 0


def compare_inventories(before: dict, after: dict) -> InventoryChanges:
    """The files added, removed, changed and moved from one complete inventory to the next."""
    old, new = before["files"], after["files"]
    found = InventoryChanges(
        changed=[
            (path, old[path][0], entry[0])
            for path, entry in sorted(new.items())
            if path in old and _differs(old[path], entry)
        ]
    )
    added = defaultdict(list)
    for path in sorted(set(new) - set(old)):
        added[_identity(new[path])].append(path)
    for path in sorted(set(old) - set(new)):
        targets = added.get(_identity(old[path]))
        if targets:
            found.moved.append((path, targets.pop(0)))
        else:
            found.removed.append(path)
    found.added = sorted(path for paths in added.values() for path in paths)
    return found


def _identity(entry: list) -> tuple:
    size, mtime, inode, digest = entry
    return (size, digest) if digest else (size, inode, mtime)


def _differs(old: list, new: list) -> bool:
    if old[3] and new[3]:
        return old[3] != new[3]
    return (old[0], old[1]) != (new[0], new[1])
