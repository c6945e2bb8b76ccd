"""The documentation: the site builds with `mkdocs build --strict` and fetches nothing from the internet,
its command-line reference is the Typer app's, every `stateact` command line in README.md and docs/
parses against the app (a renamed or mistyped flag fails here), and no page repeats another."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from stateact.app.cli import app
from tests.support.doc_commands import stateact_invocations

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
INVOCATIONS = [
    pytest.param(args, id=f"{page.name}: {line}")
    for page in PAGES
    for line, args in stateact_invocations(page)
]


def docs_hooks():
    """scripts/docs_hooks.py, the module mkdocs.yml runs as its hooks."""
    spec = importlib.util.spec_from_file_location("docs_hooks", REPO / "scripts" / "docs_hooks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_site_builds_strict_and_offline(tmp_path):
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    html = "\n".join(path.read_text(encoding="utf-8") for path in site.rglob("*.html"))
    assert not re.findall(r"<(?:link|script)[^>]+https?://", html)  # no fonts or scripts from the internet
    reference = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert "stateact eval run" in reference and "--max-minutes" in reference
    assert "Quick start" not in html and "First run" in (site / "index.html").read_text(encoding="utf-8")


def test_there_are_commands_on_the_pages():
    assert len(INVOCATIONS) >= 20


def resolve(args: list[str]) -> tuple[object, list[str]]:
    """The command `args` name, and the arguments left for it."""
    command = typer.main.get_command(app)
    while args and args[0] in getattr(command, "commands", {}):
        command, args = command.commands[args[0]], args[1:]
    return command, args


@pytest.mark.parametrize("args", INVOCATIONS)
def test_every_stateact_command_line_on_a_page_parses(args):
    done = CliRunner().invoke(app, [*args, "--help"])
    assert done.exit_code == 0, done.output
    assert "deprecated" not in done.output, done.output  # a page uses an option's current name
    command, rest = resolve(args)
    ctx = typer.Context(command, info_name=args[0])
    _, extra, _ = command.make_parser(ctx).parse_args(rest)
    assert extra == [], f"`stateact {' '.join(args)}`: more arguments than the command takes"


def test_cli_reference_has_every_command_option_and_help_text():
    hooks = docs_hooks()
    reference = hooks.cli_reference(app)
    for path, command in hooks.commands(typer.main.get_command(app)):
        assert f"`{path}`" in reference
        assert hooks.plain(command.help or "").split("\n")[0] in reference
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                assert all(name in reference for name in param.opts), f"{path} {param.opts}"


def paragraphs(page: Path) -> list[str]:
    """The page's prose paragraphs and table rows, whitespace folded (code blocks and headings left out)."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    blocks = [" ".join(block.split()) for block in re.split(r"\n\s*\n|\n(?=\|)", text)]
    return [block for block in blocks if len(block) >= 80 and not block.startswith(("#", "| ---"))]


def test_no_page_repeats_another():
    where = defaultdict(list)
    for page in PAGES:
        for paragraph in paragraphs(page):
            where[paragraph].append(page.name)
    assert {text[:80]: pages for text, pages in where.items() if len(pages) > 1} == {}
