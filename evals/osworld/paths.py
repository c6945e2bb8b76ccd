"""Mapping the VM home (`/home/user`) named by task files onto a sandbox's home.

Design: task files name absolute paths under `/home/user` in setup steps,
getters, commands and the instruction. An OSWorld VM's home and an isolated
LocalSandbox's (bubblewrap shows the work folder there) are `/home/user`, so the
map is the identity for them. Only a LocalSandbox with `--isolation none` has
its home at the work folder's own path (a real `/home/user` account would need
root and a user per concurrent run); for it, before anything runs, the whole
task (every string of `config`, `evaluator` and the instruction given to the
agent) and a reference solution are rewritten once, with `/home/user` replaced
by the sandbox's home wherever it starts a path: at the start of a string or
after a character that cannot be part of a path (space, quote, `=`, `:`, `(`,
...), and only when followed by `/`, the end, or such a character
(`/home/username` is left alone). `~` needs no mapping: the sandbox's HOME is
its home.
"""

from __future__ import annotations

import re
from typing import Any

from stateact.sandbox import settings as sandbox_settings

_BOUNDARY_BEFORE = r"(?<![\w.\-/])"
_BOUNDARY_AFTER = r"(?![\w.\-])"


class HomeMap:
    """Rewrites `vm_home` to `home` wherever it starts a path."""

    def __init__(self, home: str, vm_home: str = sandbox_settings.VM_HOME) -> None:
        self.home = home.rstrip("/") or "/"
        self.vm_home = vm_home.rstrip("/")
        self._pattern = re.compile(_BOUNDARY_BEFORE + re.escape(self.vm_home) + _BOUNDARY_AFTER)

    @property
    def identity(self) -> bool:
        return self.home == self.vm_home

    def text(self, value: str) -> str:
        if self.identity:
            return value
        return self._pattern.sub(lambda _: self.home, value)

    def apply(self, node: Any) -> Any:
        """A copy of a JSON-like value with every string mapped (dict keys too)."""
        if isinstance(node, str):
            return self.text(node)
        if isinstance(node, list):
            return [self.apply(item) for item in node]
        if isinstance(node, dict):
            return {self.text(key) if isinstance(key, str) else key: self.apply(v) for key, v in node.items()}
        return node
