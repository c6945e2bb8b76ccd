"""Desktop state checks on command outputs, directory listings, the clipboard and desktop shortcuts.

`check_gnome_favorite_apps` (gsettings' favourite-apps list), `is_utc_0`
(`timedatectl status`), `check_text_enlarged` (the text-scaling factor),
`check_moved_jpgs` (a `list_directory` tree), `is_in_vm_clickboard` (the clipboard
text) and `is_shortcut_on_desktop` (the `.desktop` files on the desktop).
"""

from __future__ import annotations

import ast
from typing import Any

from stateact.evals.osworld.metrics.rules import MetricUnsupported


def _same_names(found: list[str], expected: list[str]) -> float:
    """1 when the lists have the same length and the same set of names."""
    return float(len(found) == len(expected) and set(found) == set(expected))


def check_gnome_favorite_apps(apps: str, rule: dict[str, Any]) -> float:
    """`apps` is gsettings' printed list (`['a.desktop', 'b.desktop']`), read as a Python literal."""
    return _same_names(ast.literal_eval(apps), rule["expected"])


def check_moved_jpgs(directory: dict[str, Any], rule: dict[str, Any]) -> float:
    """The names of the folder's direct children are `rule["expected"]`."""
    return _same_names([node["name"] for node in directory["children"]], rule["expected"])


def is_utc_0(timedatectl: str) -> float:
    """1 when the fourth line of `timedatectl status` (the time zone) ends with `+0000)`."""
    return float(timedatectl.split("\n")[3].endswith("+0000)"))


def check_text_enlarged(scaling_factor: str) -> float:
    return float(float(scaling_factor) > 1.0)


def is_in_vm_clickboard(config: dict[str, Any], clipboard: str) -> float:
    """1 when the clipboard text contains `config["expected"]` (every item, for a list)."""
    expected = config["expected"]
    wanted = expected if isinstance(expected, list) else [expected]
    return float(all(text in clipboard for text in wanted))


def is_shortcut_on_desktop(shortcuts: dict[str, str], rule: dict[str, Any]) -> float:
    """1 when some desktop file (path -> content) has the line `Name=<name>` (rule type `name`) or
    `Exec=<exec>` (type `exec`) followed by a newline."""
    kind = rule["type"]
    if kind not in ("name", "exec"):
        raise MetricUnsupported(f"is_shortcut_on_desktop rule type {kind!r} (OSWorld has name and exec)")
    line = f"{kind.capitalize()}={rule[kind]}\n"
    return float(any(line in content for content in shortcuts.values()))


METRICS = {
    "check_gnome_favorite_apps": check_gnome_favorite_apps,
    "check_moved_jpgs": check_moved_jpgs,
    "is_utc_0": is_utc_0,
    "check_text_enlarged": check_text_enlarged,
    "is_in_vm_clickboard": is_in_vm_clickboard,
    "is_shortcut_on_desktop": is_shortcut_on_desktop,
}
