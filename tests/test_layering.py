"""One import root; imports run one way, down the layers, and never in a circle.

Every module imports as `stateact.…`: the folders `sandbox/`, `gate/`, `subagents/` and `evals/` beside
`stateact/` are the packages `stateact.sandbox`, ... (linked into `stateact/`), and no module imports
them by a top-level name. Layers, bottom first (a module may import its own layer and those below it):

    sandbox          stateact.sandbox (sandbox/)
    kernel           stateact.kernel (the loop, events, context, models, the main agent's tools)
    roles            stateact.subagents; stateact.gate.inspect and .events below .review and .judge
    orchestration    stateact.app (one run: config, harness, run, resume, show, doctor...)
    evaluation       stateact.evals: osworld and fixtures below running, below reports, below authoring
    commands         stateact.app.cli and stateact.evals.cli

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
ROOT_PACKAGE = "stateact"
LINKED = ("sandbox", "gate", "subagents", "evals")
"""The folders beside `stateact/` that are its subpackages (`stateact/sandbox` links to `../sandbox`)."""
LAUNCHER = "stateact.__main__"
"""`python -m stateact` must start the CLI: the one module below the commands allowed to name them."""
COMMANDS = ("stateact.app.cli", "stateact.evals.cli")
EVALUATION_RANKS = {"osworld": 0, "fixtures": 0, "settings": 0, "running": 1, "reports": 2, "authoring": 3}
"""Sub-layers of `evals/`; the package itself and its settings are at the bottom."""
PEERS = (("stateact.gate.review", "stateact.gate.judge"), ("stateact.subagents", "stateact.gate"))
"""(a, b): a module under a may not import b (the second pair: subagents may not import the gate)."""


def module_name(path: Path, root: Path) -> str:
    """`stateact/kernel/tools/bash.py` -> `stateact.kernel.tools.bash`, `gate/review/finish_gate.py` ->
    `stateact.gate.review.finish_gate`; a package's `__init__.py` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts[0] in LINKED:
        parts.insert(0, ROOT_PACKAGE)
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
    if within(module, "stateact.sandbox"):
        return (0, 0)
    if any(within(module, command) for command in COMMANDS):
        return (5, 0)
    if within(module, "stateact.evals"):
        parts = module.split(".")
        return (4, EVALUATION_RANKS.get(parts[2], 0) if len(parts) > 2 else 0)
    if within(module, "stateact.app"):
        return (3, 0)
    if (
        within(module, "stateact.gate.inspect")
        or within(module, "stateact.gate.events")
        or module in ("stateact.gate", "stateact.gate.settings")
    ):
        return (2, 0)
    if within(module, "stateact.subagents") or within(module, "stateact.gate"):
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
    """Every module of ours by name, each read once from its own folder (never through a link)."""
    folders = [root / name for name in (ROOT_PACKAGE, *LINKED)]
    return {
        module_name(path, root): path
        for folder in folders
        if folder.is_dir()
        for path in sorted(folder.rglob("*.py"))
        if not any((root / parent).is_symlink() for parent in path.relative_to(root).parents)
    }


def violations(root: Path = ROOT) -> list[str]:
    """Every import that breaks the layering, as `importer -> imported`; an import of one of the linked
    folders by its top-level name is one too (the module would load twice, as two modules)."""
    found = []
    for importer, path in _our_modules(root).items():
        for imported in sorted(imported_modules(path, root)):
            top = imported.split(".")[0]
            if top in LINKED or (top == ROOT_PACKAGE and forbidden(importer, imported)):
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
        ("stateact.sandbox.local", "stateact.kernel.settings"),
        ("stateact.kernel.loop", "stateact.gate"),
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


def test_a_planted_circle_is_found_through_a_lazy_import(tmp_path):
    _plant(
        tmp_path,
        {
            "evals/running/a.py": "def f():\n    from stateact.evals.running import b\n",
            "evals/running/b.py": "from stateact.evals.running.c import thing\n",
            "evals/running/c.py": "from stateact.evals.running.a import f\n",
        },
    )
    assert import_circles(import_graph(tmp_path)) == [
        ["stateact.evals.running.a", "stateact.evals.running.b", "stateact.evals.running.c"]
    ]


def test_a_planted_type_only_circle_is_found(tmp_path):
    """Imports under `if TYPE_CHECKING:` (by name or as `typing.TYPE_CHECKING`) close a circle too."""
    _plant(
        tmp_path,
        {
            "evals/reports/x.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from stateact.evals.reports.y import Y\n",
            "evals/reports/y.py": "from stateact.evals.reports.x import X\n",
            "evals/reports/p.py": "import typing\nif typing.TYPE_CHECKING:\n    from stateact.evals.reports import q\n",
            "evals/reports/q.py": "def g():\n    from stateact.evals.reports.p import P\n",
        },
    )
    assert import_circles(import_graph(tmp_path)) == [
        ["stateact.evals.reports.p", "stateact.evals.reports.q"],
        ["stateact.evals.reports.x", "stateact.evals.reports.y"],
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
    shutil.copytree(
        ROOT / "stateact", tmp_path / "stateact", symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    roles = tmp_path / "stateact/kernel/roles.py"
    roles.write_text(
        roles.read_text()
        + "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from stateact.kernel.runtime import RunContext\n"
    )
    assert import_circles(import_graph(tmp_path)) != []
    roles.write_text(roles.read_text().replace("from stateact.kernel.runtime import RunContext", "pass"))
    assert import_circles(import_graph(tmp_path)) == []


def test_an_import_by_a_top_level_name_is_refused(tmp_path):
    """`from sandbox.base import X` would load `sandbox/base.py` a second time, as another module."""
    _plant(tmp_path, {"gate/review/x.py": "from sandbox.base import Sandbox\n", "sandbox/base.py": ""})
    assert violations(tmp_path) == [
        "stateact.gate.review.x -> sandbox.base",
        "stateact.gate.review.x -> sandbox.base.Sandbox",
    ]


def test_each_linked_folder_is_the_package_of_its_name():
    for name in LINKED:
        link = ROOT / ROOT_PACKAGE / name
        assert link.is_symlink() and link.resolve() == ROOT / name, link
