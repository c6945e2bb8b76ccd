"""What a path given to a sandbox names: one rule for every backend and every path-taking method.

The OSWorld VM server reads and writes files at `os.path.expandvars(os.path.expanduser(path))`
(its `/file`, `/setup/upload` and `/setup/open_file` routes), so every sandbox expands paths the
same way, in the same order, before it touches a file:

1. `~` alone or at the start of `~/...` is the sandbox's home. `~name` (another user's home) stays
   as written.
2. `$NAME` and `${NAME}` are replaced by the variable's value in the sandbox's environment, where
   `HOME` is always the sandbox's home. A variable that is not defined stays as written, so
   `price$5.txt` and `a$UNDEFINED.txt` name files with those literal names; so does a `$` not
   followed by a name. Values are not expanded again. (The server's rule: the same pattern as
   Python's `os.path.expandvars`.)
3. A path that is still relative is taken from the home folder (the sandbox's commands start there;
   the VM server would use its own working folder, so relative paths never reach it).

The path is not normalised otherwise (`..` stays). An empty path is an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})", re.ASCII)
"""A `$NAME` or `${NAME}` reference, exactly as `os.path.expandvars` finds them."""


def expand_path(path: str, home: str, variables: Mapping[str, str]) -> str:
    """The absolute sandbox path `path` names, for a sandbox whose home is `home`."""
    if not path:
        raise ValueError("empty path: name a file, e.g. ~/file.txt or an absolute path")
    root = home.rstrip("/")
    if path == "~":
        path = root or "/"
    elif path.startswith("~/"):
        path = root + path[1:]
    if "$" in path:
        values = {**variables, "HOME": root or "/"}

        def value(match: re.Match[str]) -> str:
            name = match.group(1).removeprefix("{").removesuffix("}")
            return values.get(name, match.group(0))

        path = _VARIABLE.sub(value, path)
    return path if path.startswith("/") else f"{root}/{path}"
