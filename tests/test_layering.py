"""Imports run one way: sandbox <- kernel (stateact) <- roles (subagents, gate, judge) <- application (stateact.app, evals).

Every module's syntax tree is walked, imports inside functions included, so a lazy import breaks the
rule as much as a top-level one.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("stateact", "subagents", "gate", "judge", "sandbox", "evals")
APP = "stateact.app"
# `python -m stateact` must start the CLI: the one kernel module allowed to name the application.
LAUNCHER = "stateact.__main__"


def module_name(path: Path, root: Path) -> str:
    """`stateact/tools/bash.py` -> `stateact.tools.bash`; a package's `__init__.py` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, root: Path) -> set[str]:
    """The absolute names of every module `path` imports (and of every name it imports from one:
    `from gate import changes` may import the module `gate.changes`), relative imports resolved."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package.pop()
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def layer_of(module: str) -> str:
    """`sandbox`, `kernel`, `role` or `application`."""
    if within(module, "sandbox"):
        return "sandbox"
    if within(module, APP) or within(module, "evals"):
        return "application"
    if any(within(module, role) for role in ("subagents", "gate", "judge")):
        return "role"
    return "kernel"


def forbidden(importer: str, imported: str) -> bool:
    """Whether module `importer` may not import `imported` (one of ours)."""
    layer = layer_of(importer)
    target = layer_of(imported)
    if layer == "sandbox":
        return target != "sandbox"
    if layer == "kernel":
        return target in ("role", "application") and not (importer == LAUNCHER and within(imported, APP))
    if layer == "role":
        return target == "application"
    return False


def violations(root: Path = ROOT) -> list[str]:
    """Every import that breaks the layering, as `importer -> imported`."""
    found = []
    for package in OURS:
        for path in sorted((root / package).rglob("*.py")):
            importer = module_name(path, root)
            for imported in sorted(imported_modules(path, root)):
                if imported.split(".")[0] in OURS and forbidden(importer, imported):
                    found.append(f"{importer} -> {imported}")
    return found


def test_imports_run_one_way():
    assert violations() == []


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("sandbox.local", "stateact.settings"),
        ("stateact.loop", "gate"),
        ("stateact.tools.bash", "subagents.gui"),
        ("stateact.meter", "evals.results"),
        ("stateact.runtime", "stateact.app.config"),
        ("subagents.web", "stateact.app.harness"),
        ("gate.gate", "evals.runner"),
    ],
)
def test_an_import_against_the_direction_is_forbidden(importer, imported):
    assert forbidden(importer, imported)


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("stateact.loop", "sandbox.base"),
        ("subagents.gui", "stateact.loop"),
        ("gate.web_read", "subagents.web_pages"),
        ("stateact.app.harness", "subagents.gui"),
        ("evals.suite_runner", "stateact.app.run"),
        ("stateact.__main__", "stateact.app.cli"),
    ],
)
def test_an_import_along_the_direction_is_allowed(importer, imported):
    assert not forbidden(importer, imported)


def test_a_planted_import_is_found_wherever_it_hides(tmp_path):
    """A lazy import in a function and a relative import count as much as a top-level one."""
    files = {
        "sandbox/local.py": "import os\n",
        "stateact/__init__.py": "",
        "stateact/tools/__init__.py": "",
        "stateact/tools/bash.py": "from . import base\n\n\ndef run():\n    from ..app import harness\n",
        "stateact/loop.py": "def step():\n    from gate import FinishGate\n",
        "subagents/web.py": "from stateact.loop import AgentLoop\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert violations(tmp_path) == [
        "stateact.loop -> gate",
        "stateact.loop -> gate.FinishGate",
        "stateact.tools.bash -> stateact.app",
        "stateact.tools.bash -> stateact.app.harness",
    ]
