"""The office toolkit: command-line programs for office documents, put on the PATH of every sandbox.

LocalSandbox puts `TOOLKIT_BIN` first on PATH itself; remote sandboxes get a copy through
`install_toolkit`, whose returned folder the sandbox's shell must put first on PATH.
"""

from __future__ import annotations

from pathlib import Path
from shlex import quote

from sandbox.base import Sandbox, SandboxError
from sandbox.toolkit.settings import TOOLKIT_PIP_TIMEOUT_S, TOOLKIT_PYTHON_PACKAGES, TOOLKIT_REMOTE_DIR

TOOLKIT_BIN = Path(__file__).parent / "bin"


def toolkit_files() -> list[Path]:
    """The toolkit's programs, their shared helper modules and their data (the app priors)."""
    return sorted(p for p in TOOLKIT_BIN.rglob("*") if p.is_file() and not p.name.endswith(".pyc"))


def toolkit_programs() -> list[str]:
    """Names of the toolkit's command-line programs."""
    return [p.name for p in toolkit_files() if p.parent == TOOLKIT_BIN and not p.name.startswith("_")]


def install_toolkit(sandbox: Sandbox, install_missing_modules: bool = True) -> str:
    """Upload the toolkit into the sandbox, make it executable and return its bin folder.

    Python modules the programs need and the sandbox's python3 lacks are pip-installed for the
    user when `install_missing_modules` (failures are tolerated: each program names what it misses).
    """
    bin_dir = f"{sandbox.home.rstrip('/')}/{TOOLKIT_REMOTE_DIR}"
    for file in toolkit_files():
        sandbox.write_file(f"{bin_dir}/{file.relative_to(TOOLKIT_BIN).as_posix()}", file.read_bytes())
    programs = " ".join(quote(f"{bin_dir}/{name}") for name in toolkit_programs())
    result = sandbox.run(f"chmod 755 {programs}")
    if not result.ok:
        raise SandboxError(f"could not make the toolkit executable in {bin_dir}: {result.output.strip()}")
    if install_missing_modules:
        missing = missing_python_modules(sandbox)
        if missing:
            requirements = " ".join(quote(TOOLKIT_PYTHON_PACKAGES[m]) for m in missing)
            sandbox.run(f"python3 -m pip install --user -q {requirements}", timeout=TOOLKIT_PIP_TIMEOUT_S)
    return bin_dir


def missing_python_modules(sandbox: Sandbox) -> list[str]:
    """Toolkit modules that the sandbox's python3 cannot import."""
    probe = f"import importlib.util as u; print(*[m for m in {sorted(TOOLKIT_PYTHON_PACKAGES)!r} if u.find_spec(m) is None])"
    result = sandbox.run(f"python3 -c {quote(probe)}")
    return [name for name in result.stdout.split() if name in TOOLKIT_PYTHON_PACKAGES]
