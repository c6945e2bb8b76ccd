"""The office toolkit: command-line programs for office documents, put on the PATH of every sandbox.

LocalSandbox puts `TOOLKIT_BIN` first on PATH itself; remote sandboxes get a copy through
`install_toolkit`, whose answer says what the sandbox's shells need in their environment.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from shlex import quote
from types import ModuleType

from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.toolkit.settings import (
    TOOLKIT_PIP_TIMEOUT_S,
    TOOLKIT_PYTHON_PACKAGES,
    TOOLKIT_REMOTE_DIR,
    TOOLKIT_REMOTE_LIB_DIR,
)

TOOLKIT_BIN = Path(__file__).parent / "bin"


def toolkit_files() -> list[Path]:
    """The toolkit's programs, their shared helper modules and their data (the app priors)."""
    return sorted(p for p in TOOLKIT_BIN.rglob("*") if p.is_file() and not p.name.endswith(".pyc"))


def toolkit_programs() -> list[str]:
    """Names of the toolkit's command-line programs."""
    return [p.name for p in toolkit_files() if p.parent == TOOLKIT_BIN and not p.name.startswith("_")]


@dataclass(frozen=True)
class ToolkitInstall:
    """Where the toolkit went in a sandbox and what its shells need."""

    bin_dir: str
    """To put first on PATH."""
    python_path: str = ""
    """A folder of pip-installed modules to put on PYTHONPATH ("" when none)."""
    warnings: list[str] = field(default_factory=list)
    """What did not go as planned (the run shows them at start)."""


def install_toolkit(sandbox: Sandbox, install_missing_modules: bool = True) -> ToolkitInstall:
    """Upload the toolkit into the sandbox and make it executable.

    Python modules the programs need and the sandbox's python3 lacks are pip-installed when
    `install_missing_modules`: for the user, or, when that python3 is a virtual environment (which
    refuses `--user`), into a folder for PYTHONPATH. A failed install is a warning: each program
    names what it misses.
    """
    home = sandbox.home.rstrip("/")
    bin_dir = f"{home}/{TOOLKIT_REMOTE_DIR}"
    for file in toolkit_files():
        sandbox.write_file(f"{bin_dir}/{file.relative_to(TOOLKIT_BIN).as_posix()}", file.read_bytes())
    programs = " ".join(quote(f"{bin_dir}/{name}") for name in toolkit_programs())
    result = sandbox.run(f"chmod 755 {programs}")
    if not result.ok:
        raise SandboxError(f"could not make the toolkit executable in {bin_dir}: {result.output.strip()}")
    if not install_missing_modules:
        return ToolkitInstall(bin_dir)
    missing, virtual_env = probe_python(sandbox)
    if not missing:
        return ToolkitInstall(bin_dir)
    requirements = " ".join(quote(TOOLKIT_PYTHON_PACKAGES[m]) for m in missing)
    warnings, python_path = [], ""
    if virtual_env:
        python_path = f"{home}/{TOOLKIT_REMOTE_LIB_DIR}"
        target = f"--target {quote(python_path)}"
        warnings.append(
            f"the sandbox's python3 is a virtual environment, which refuses pip's --user: the toolkit's "
            f"modules ({', '.join(missing)}) go to {python_path}, on the PYTHONPATH of the sandbox's shells"
        )
    else:
        target = "--user"
    command = f"python3 -m pip install {target} -q {requirements}"
    result = sandbox.run(command, timeout=TOOLKIT_PIP_TIMEOUT_S)
    if not result.ok:
        tail = result.output.strip().splitlines()[-3:]
        warnings.append(f"`{command}` failed in the sandbox (exit {result.returncode}): {' / '.join(tail)}")
    return ToolkitInstall(bin_dir, python_path, warnings)


def probe_python(sandbox: Sandbox) -> tuple[list[str], bool]:
    """Toolkit modules that the sandbox's python3 cannot import, and whether it is a virtual environment."""
    probe = (
        "import importlib.util as u, sys; "
        f"print(sys.prefix != sys.base_prefix, *[m for m in {sorted(TOOLKIT_PYTHON_PACKAGES)!r} "
        "if u.find_spec(m) is None])"
    )
    words = sandbox.run(f"python3 -c {quote(probe)}").stdout.split()
    return [name for name in words[1:] if name in TOOLKIT_PYTHON_PACKAGES], words[:1] == ["True"]


def toolkit_module(name: str) -> ModuleType:
    """One of the toolkit's helper modules (`_odt`, `_officekit`), imported on the host, so that host code
    reads documents the way the sandbox's programs do."""
    folder = str(TOOLKIT_BIN)
    if folder not in sys.path:
        sys.path.append(folder)
    return importlib.import_module(name)
