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
as much as a top-level one. Import circles are found between modules over every import, those under
`if TYPE_CHECKING:` included: a type a module names is a module it depends on, and a circle held by
type-only imports is still a knot (a type checker walks it, and the next runtime import closes it).
Importing `a.b.c` runs the packages `a` and `a.b` too, so those count as imported.
"""

import ast
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("stateact", "subagents", "gate", "sandbox", "evals")
LAUNCHER = "stateact.__main__"
"""`python -m stateact` must start the CLI: the one module below the commands allowed to name them."""
COMMANDS = ("stateact.app.cli", "evals.cli")
EVALUATION_RANKS = {"osworld": 0, "fixtures": 0, "settings": 0, "running": 1, "reports": 2, "authoring": 3}
"""Sub-layers of `evals/`; the package itself and its settings are at the bottom."""
PEERS = (("gate.review", "gate.judge"), ("subagents", "gate"))
"""(a, b): a module under a may not import b (the second pair: subagents may not import the gate)."""


def module_name(path: Path, root: Path) -> str:
    """`stateact/kernel/tools/bash.py` -> `stateact.kernel.tools.bash`; a package's `__init__.py` is the
    package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, root: Path) -> set[str]:
    """The absolute names of every module `path` imports (and of every name it imports from one:
    `from gate import inspect` may import the module `gate.inspect`), relative imports resolved."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package.pop()
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
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
    if within(module, "gate.inspect") or within(module, "gate.events") or module in ("gate", "gate.settings"):
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
    """Module -> the modules of ours it imports, type-only imports included. `from a import b` counts as
    importing the module `a.b` when there is one, else `a`; importing `a.b` imports the package `a`
    too; a module's own packages are left out (they are always imported before it)."""
    modules = _our_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_modules(path, root):
            parts = imported.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            for end in range(1, len(parts) + 1):
                target = ".".join(parts[:end])
                if target in modules and target != name and not within(name, target):
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
        ("sandbox.local", "stateact.kernel.settings"),
        ("stateact.kernel.loop", "gate"),
        ("stateact.kernel.tools.bash", "subagents.gui"),
        ("stateact.kernel.meter", "evals.running.results"),
        ("stateact.kernel.runtime", "stateact.app.config"),
        ("subagents.web", "stateact.app.harness"),
        ("subagents.web", "gate.review.web_read"),
        ("gate.inspect.changes", "gate.review.finish_gate"),
        ("gate.events", "gate.review"),
        ("subagents.events", "gate.events"),
        ("gate.review.finish_gate", "gate.judge.evidence"),
        ("gate.judge.evidence", "gate.review.finish_gate"),
        ("gate.review.finish_gate", "evals.running.runner"),
        ("stateact.app.run", "evals.running.runner"),
        ("evals.osworld.scoring", "evals.running.check"),
        ("evals.running.runner", "evals.reports.task_metrics"),
        ("evals.reports.html_report", "evals.authoring.gate_corpus"),
        ("evals.running.suite_runner", "evals.cli"),
        ("stateact.app.run", "stateact.app.cli"),
    ],
)
def test_an_import_against_the_direction_is_forbidden(importer, imported):
    assert forbidden(importer, imported)


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("stateact.kernel.loop", "sandbox.base"),
        ("subagents.gui", "stateact.kernel.loop"),
        ("gate.review.web_read", "subagents.web_pages"),
        ("gate.judge.evidence", "gate.inspect.changes"),
        ("gate.inspect.changes", "gate.events"),
        ("gate.judge.evidence", "gate.events"),
        ("stateact.app.harness", "subagents.gui"),
        ("evals.running.suite_runner", "stateact.app.run"),
        ("evals.running.check", "evals.osworld.support"),
        ("evals.reports.task_metrics", "evals.running.results"),
        ("evals.authoring.sensitivity", "evals.running.runner"),
        ("stateact.app.cli", "evals.running.runner"),
        ("evals.cli", "stateact.app.cli"),
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


def test_a_planted_circle_is_found_through_a_lazy_import(tmp_path):
    _plant(
        tmp_path,
        {
            "evals/running/a.py": "def f():\n    from evals.running import b\n",
            "evals/running/b.py": "from evals.running.c import thing\n",
            "evals/running/c.py": "from evals.running.a import f\n",
        },
    )
    assert import_circles(import_graph(tmp_path)) == [
        ["evals.running.a", "evals.running.b", "evals.running.c"]
    ]


def test_a_planted_type_only_circle_is_found(tmp_path):
    """Imports under `if TYPE_CHECKING:` (by name or as `typing.TYPE_CHECKING`) close a circle too."""
    _plant(
        tmp_path,
        {
            "evals/reports/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from evals.reports.y import Y\n",
            "evals/reports/y.py": "from evals.reports.x import X\n",
            "evals/reports/p.py": "import typing\nif typing.TYPE_CHECKING:\n    from evals.reports import q\n",
            "evals/reports/q.py": "def g():\n    from evals.reports.p import P\n",
        },
    )
    assert import_circles(import_graph(tmp_path)) == [
        ["evals.reports.p", "evals.reports.q"],
        ["evals.reports.x", "evals.reports.y"],
    ]


def test_a_circle_through_a_package_that_imports_its_modules_is_found(tmp_path):
    """Importing `stateact.kernel.context.tokens` runs `stateact/kernel/context/__init__.py` first."""
    _plant(
        tmp_path,
        {
            "stateact/kernel/context/__init__.py": "from stateact.kernel.context.pipeline import Pipeline\n",
            "stateact/kernel/context/pipeline.py": "from stateact.kernel.models import base\n",
            "stateact/kernel/context/tokens.py": "",
            "stateact/kernel/models/base.py": "from stateact.kernel.context.tokens import counter\n",
        },
    )
    assert import_circles(import_graph(tmp_path)) == [
        ["stateact.kernel.context", "stateact.kernel.context.pipeline", "stateact.kernel.models.base"]
    ]


def test_the_kernel_circle_the_type_only_imports_held_is_found_when_planted_back(tmp_path):
    """The kernel as it is, with the registry of roles naming the run's context for its type again
    (`roles` -> `runtime` -> `loop` -> `roles`, as before the context package): the check fails."""
    shutil.copytree(ROOT / "stateact", tmp_path / "stateact", ignore=shutil.ignore_patterns("__pycache__"))
    roles = tmp_path / "stateact/kernel/roles.py"
    roles.write_text(
        roles.read_text()
        + "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from stateact.kernel.runtime import RunContext\n"
    )
    assert import_circles(import_graph(tmp_path)) != []
    roles.write_text(roles.read_text().replace("from stateact.kernel.runtime import RunContext", "pass"))
    assert import_circles(import_graph(tmp_path)) == []
