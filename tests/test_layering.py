"""Imports run one way, down the layers, and never in a circle.

Layers, bottom first (a module may import its own layer and those below it):

    sandbox          sandbox/
    kernel           stateact/kernel/ (the loop, events, context, models, the main agent's tools)
    roles            subagents/; gate/inspect/ and gate/events.py below gate/review/ and gate/judge/
    orchestration    stateact/app/ (one run: config, harness, run, resume, show, doctor...)
    evaluation       evals/: osworld/ and fixtures/ below running/, below reports/, below authoring/
    commands         stateact/app/cli.py and evals/cli.py

Within the roles, subagents may not import the gate (the reviewer reuses the web subagent's page
reading, never the other way), and gate.review and gate.judge may not import each other. Every
module's syntax tree is walked, imports inside functions included, so a lazy import breaks the rule
as much as a top-level one. Import circles are found between modules over the imports that run (an
import under `if TYPE_CHECKING:` only names a type, so it cannot close a circle).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("stateact", "subagents", "gate", "sandbox", "evals")
LAUNCHER = "stateact.__main__"
"""`python -m stateact` must start the CLI: the one module below the commands allowed to name them."""
COMMANDS = ("stateact.app.cli", "stateact.evals.cli")
EVALUATION_RANKS = {"osworld": 0, "fixtures": 0, "settings": 0, "running": 1, "reports": 2, "authoring": 3}
"""Sub-layers of `evals/`; the package itself and its settings are at the bottom."""
PEERS = (("stateact.gate.review", "stateact.gate.judge"), ("subagents", "gate"))
"""(a, b): a module under a may not import b (the second pair: subagents may not import the gate)."""


def module_name(path: Path, root: Path) -> str:
    """`stateact/kernel/tools/bash.py` -> `stateact.kernel.tools.bash`; a package's `__init__.py` is the
    package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
    )


def imported_modules(path: Path, root: Path, *, runtime_only: bool = False) -> set[str]:
    """The absolute names of every module `path` imports (and of every name it imports from one:
    `from gate import inspect` may import the module `gate.inspect`), relative imports resolved;
    `runtime_only` leaves out the imports under `if TYPE_CHECKING:`."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package.pop()
    tree = ast.parse(path.read_text(), filename=str(path))
    skipped: set[int] = set()
    if runtime_only:
        for node in ast.walk(tree):
            if _is_type_checking(node):
                skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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


def rank_of(module: str) -> tuple[int, int]:
    """(layer, sub-layer): the order the layers are listed in the module's docstring."""
    if within(module, "sandbox"):
        return (0, 0)
    if any(within(module, command) for command in COMMANDS):
        return (5, 0)
    if within(module, "evals"):
        parts = module.split(".")
        return (4, EVALUATION_RANKS.get(parts[1], 0) if len(parts) > 1 else 0)
    if within(module, "stateact.app"):
        return (3, 0)
    if within(module, "stateact.gate.inspect") or within(module, "stateact.gate.events") or module in ("gate", "stateact.gate.settings"):
        return (2, 0)
    if within(module, "subagents") or within(module, "gate"):
        return (2, 1)
    return (1, 0)


def forbidden(importer: str, imported: str) -> bool:
    """Whether module `importer` may not import `imported` (one of ours)."""
    if importer == LAUNCHER and within(imported, "stateact.app.cli"):
        return False
    if any(within(importer, a) and within(imported, b) for a, b in PEERS):
        return True
    if any(within(importer, b) and within(imported, a) for a, b in PEERS[:1]):
        return True
    return rank_of(imported) > rank_of(importer)


def _our_modules(root: Path) -> dict[str, Path]:
    return {
        module_name(path, root): path for package in OURS for path in sorted((root / package).rglob("*.py"))
    }


def violations(root: Path = ROOT) -> list[str]:
    """Every import that breaks the layering, as `importer -> imported`."""
    found = []
    for importer, path in _our_modules(root).items():
        for imported in sorted(imported_modules(path, root)):
            if imported.split(".")[0] in OURS and forbidden(importer, imported):
                found.append(f"{importer} -> {imported}")
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports at run time. `from a import b` counts as importing the
    module `a.b` when there is one, else `a`; a module's own packages are left out (they are always
    imported before it)."""
    modules = _our_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_modules(path, root, runtime_only=True):
            parts = imported.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            target = ".".join(parts)
            if target and target != name and not within(name, target):
                targets.add(target)
        graph[name] = targets
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_imports_run_one_way():
    assert violations() == []


def test_there_is_no_import_circle():
    assert import_circles(import_graph()) == []


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("stateact.sandbox.local", "stateact.kernel.settings"),
        ("stateact.kernel.loop", "gate"),
        ("stateact.kernel.tools.bash", "stateact.subagents.gui"),
        ("stateact.kernel.meter", "stateact.evals.running.results"),
        ("stateact.kernel.runtime", "stateact.app.config"),
        ("stateact.subagents.web", "stateact.app.harness"),
        ("stateact.subagents.web", "stateact.gate.review.web_read"),
        ("stateact.gate.inspect.changes", "stateact.gate.review.finish_gate"),
        ("stateact.gate.events", "stateact.gate.review"),
        ("stateact.subagents.events", "stateact.gate.events"),
        ("stateact.gate.review.finish_gate", "stateact.gate.judge.evidence"),
        ("stateact.gate.judge.evidence", "stateact.gate.review.finish_gate"),
        ("stateact.gate.review.finish_gate", "stateact.evals.running.runner"),
        ("stateact.app.run", "stateact.evals.running.runner"),
        ("stateact.evals.osworld.scoring", "stateact.evals.running.check"),
        ("stateact.evals.running.runner", "stateact.evals.reports.task_metrics"),
        ("stateact.evals.reports.html_report", "stateact.evals.authoring.gate_corpus"),
        ("stateact.evals.running.suite_runner", "stateact.evals.cli"),
        ("stateact.app.run", "stateact.app.cli"),
    ],
)
def test_an_import_against_the_direction_is_forbidden(importer, imported):
    assert forbidden(importer, imported)


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("stateact.kernel.loop", "stateact.sandbox.base"),
        ("stateact.subagents.gui", "stateact.kernel.loop"),
        ("stateact.gate.review.web_read", "stateact.subagents.web_pages"),
        ("stateact.gate.judge.evidence", "stateact.gate.inspect.changes"),
        ("stateact.gate.inspect.changes", "stateact.gate.events"),
        ("stateact.gate.judge.evidence", "stateact.gate.events"),
        ("stateact.app.harness", "stateact.subagents.gui"),
        ("stateact.evals.running.suite_runner", "stateact.app.run"),
        ("stateact.evals.running.check", "stateact.evals.osworld.support"),
        ("stateact.evals.reports.task_metrics", "stateact.evals.running.results"),
        ("stateact.evals.authoring.sensitivity", "stateact.evals.running.runner"),
        ("stateact.app.cli", "stateact.evals.running.runner"),
        ("stateact.evals.cli", "stateact.app.cli"),
        ("stateact.__main__", "stateact.app.cli"),
    ],
)
def test_an_import_along_the_direction_is_allowed(importer, imported):
    assert not forbidden(importer, imported)


def _plant(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_planted_import_is_found_wherever_it_hides(tmp_path):
    """A lazy import in a function and a relative import count as much as a top-level one."""
    _plant(
        tmp_path,
        {
            "sandbox/local.py": "import os\n",
            "stateact/__init__.py": "",
            "stateact/kernel/tools/__init__.py": "",
            "stateact/kernel/tools/bash.py": "from . import base\n\n\ndef run():\n    from ...app import harness\n",
            "stateact/kernel/loop.py": "def step():\n    from gate.review import FinishGate\n",
            "subagents/web.py": "from stateact.kernel.loop import AgentLoop\n",
        },
    )
    assert violations(tmp_path) == [
        "stateact.kernel.loop -> gate.review",
        "stateact.kernel.loop -> gate.review.FinishGate",
        "stateact.kernel.tools.bash -> stateact.app",
        "stateact.kernel.tools.bash -> stateact.app.harness",
    ]


def test_a_planted_circle_is_found_but_not_a_type_only_one(tmp_path):
    _plant(
        tmp_path,
        {
            "evals/running/a.py": "def f():\n    from evals.running import b\n",
            "evals/running/b.py": "from evals.running.c import thing\n",
            "evals/running/c.py": "from evals.running.a import f\n",
            "evals/reports/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from evals.reports.y import Y\n",
            "evals/reports/y.py": "from evals.reports.x import X\n",
        },
    )
    assert import_circles(import_graph(tmp_path)) == [
        ["stateact.evals.running.a", "stateact.evals.running.b", "stateact.evals.running.c"]
    ]
