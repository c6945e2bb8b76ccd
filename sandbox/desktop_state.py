"""Desktop state read through a sandbox's own commands, as the OSWorld VM server's routes read it.

A sandbox without those routes (the local one) answers `window_size`, `wallpaper` and `directory_tree`
with these: X properties of the display's windows (xprop, xwininfo), the desktop's wallpaper
settings (xfconf-query, then gsettings) and a walk of a folder, each computed inside the sandbox.
"""

from __future__ import annotations

import json
import re
from typing import Any

from stateact.sandbox.base import Sandbox, SandboxError

QUERY_TIMEOUT_S = 30.0

_CLIENT_WINDOWS = r"""
for id in $(xprop -root _NET_CLIENT_LIST | grep -o '0x[0-9a-fA-F]*'); do
  size=$(xwininfo -id "$id" 2>/dev/null | awk '/Width:/{w=$2} /Height:/{h=$2} END{print w, h}')
  printf '%s\t%s\n' "$size" "$(xprop -id "$id" WM_CLASS 2>/dev/null)"
done
"""
"""One line per client window, in the window manager's order: `WIDTH HEIGHT<TAB>WM_CLASS(...) = "a", "b"`."""

_WALLPAPER_SETTINGS = r"""
for prop in $(xfconf-query -c xfce4-desktop -l 2>/dev/null | grep '/last-image$'); do
  xfconf-query -c xfce4-desktop -p "$prop" 2>/dev/null
done
gsettings get org.gnome.desktop.background picture-uri 2>/dev/null
"""
"""The wallpaper candidates the VM server tries, in its order: XFCE's images, then GNOME's picture-uri."""

_DIRECTORY_TREE = """
import json, os
def tree(folder):
    node = {"type": "directory", "name": os.path.basename(folder), "children": []}
    try:
        for entry in os.listdir(folder):
            full = os.path.join(folder, entry)
            node["children"].append(tree(full) if os.path.isdir(full) else {"type": "file", "name": entry})
    except OSError as exc:
        node = {"error": str(exc)}
    return node
print(json.dumps(tree(FOLDER) if os.path.isdir(FOLDER) else None))
"""
"""The VM server's `/list_directory` walk (children in `os.listdir` order; an unreadable folder becomes
`{"error": ...}`); None when the path is not a folder."""


def window_size(sandbox: Sandbox, app_class: str) -> tuple[int, int] | None:
    """The size of the first client window whose WM_CLASS instance or class equals `app_class` (any case)."""
    listing = sandbox.run(_CLIENT_WINDOWS, timeout=QUERY_TIMEOUT_S).stdout
    for line in listing.splitlines():
        size, _, wm_class = line.partition("\t")
        names = [name.lower() for name in re.findall(r'"((?:[^"\\]|\\.)*)"', wm_class)]
        dimensions = size.split()
        if app_class.lower() in names and len(dimensions) == 2:
            return int(dimensions[0]), int(dimensions[1])
    return None


def wallpaper_path(sandbox: Sandbox) -> str | None:
    """The first wallpaper setting that names an existing file, as the VM server normalizes it
    (quotes and `file://` stripped, `~` and `$NAME` expanded); None when there is none."""
    settings = sandbox.run(_WALLPAPER_SETTINGS, timeout=QUERY_TIMEOUT_S).stdout
    for raw in settings.splitlines():
        path = raw.strip().strip("'\"").removeprefix("file://")
        if path and sandbox.exists(path):
            return sandbox.expand(path)
    return None


def directory_tree(sandbox: Sandbox, path: str) -> dict[str, Any] | None:
    """`{type, name, children}` of the folder `path` names, recursively; None when it is not a folder."""
    code = f"FOLDER = {sandbox.expand(path)!r}\n{_DIRECTORY_TREE}"
    result = sandbox.run_python(code, timeout=QUERY_TIMEOUT_S)
    if not result.ok:
        raise SandboxError(f"could not list {path}: {result.output.strip()[:500]}")
    return json.loads(result.stdout.strip().splitlines()[-1])
