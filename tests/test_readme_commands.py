"""README.md's commands, run exactly as written from a fresh folder, as a new user would; and `stateact
run --task` with default flags from a fresh folder, its downloads and expected file fetched over HTTP."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stateact.evals.osworld.cache import FileCache, url_key
from stateact.kernel.events import read_events
from stateact.kernel.models.script_expectations import exit_code
from tests.support.doc_commands import code_lines
from tests.support.file_server import served_files

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
FIXTURES_URL = "https://fixtures.stateact.dev/office/"
REGION_EXPORT = REPO / "evals" / "suites" / "office" / "calc" / "calc-region-export.json"


def readme_command(pattern: str) -> str:
    """The first command line in a code block of README.md that matches `pattern`."""
    for line in code_lines(README):
        if re.search(pattern, line):
            return line
    raise AssertionError(f"README.md has no command matching {pattern!r}")


def user_env() -> dict[str, str]:
    """A user's environment after set-up: the project's `stateact` first on PATH, running this checkout."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, "PATH": path, "PYTHONPATH": str(REPO)}


def failed_tool_calls(events_file: Path) -> list[str]:
    """Every tool result of any agent in the run that is an error or shows a non-zero exit."""
    failed = []
    for event in read_events(events_file):
        if event.kind != "tool_result":
            continue
        code = exit_code(event.text)
        if event.is_error or (code is not None and code != 0):
            failed.append(f"{event.scope} {event.name}: {event.text[:200]}")
    return failed


def run_offline_quick_start(folder: Path, as_user: list[str] = ()) -> Path:
    """The README's offline quick start, verbatim, from `folder` (as another user: `as_user`, a runuser
    prefix); its run folder, checked: a clean finished run whose home holds the todo list."""
    command = readme_command(r"stateact run .*scripted:")
    done = subprocess.run(
        [*as_user, "bash", "-c", command],
        cwd=folder,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = (folder / "runs").iterdir()
    assert failed_tool_calls(run_dir / "events.jsonl") == []
    result = json.loads((run_dir / "result.json").read_text())
    assert (result["status"], result["gate_passed"]) == ("finished", True)
    home = run_dir / "home"
    assert f"the agent's home: {home}" in done.stdout
    assert (home / "notes" / "todo.md").read_text() == "# Todo\n\n- [ ] buy milk\n- [x] call Bob\n"
    return run_dir


@pytest.mark.slow
def test_readme_offline_run_command_works_again_and_again_from_fresh_folders(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second, first / "again"):
        folder.mkdir()
        run_offline_quick_start(folder)


OTHER_USER = "nobody"


def other_user_problem(folder: Path) -> str:
    """Why the quick start cannot run as OTHER_USER here (empty: it can): this process must be root, and
    that user must be able to run this Python and make a bubblewrap sandbox."""
    if os.geteuid() != 0 or not shutil.which("runuser"):
        return "needs root and runuser to act as another user"
    probe = (
        "from sandbox.isolation import bwrap_problem; from sandbox.runtime import runtime_ready; "
        "print(bwrap_problem() or (None if runtime_ready() else 'the sandbox Python is not built'))"
    )
    done = subprocess.run(
        ["runuser", "-u", OTHER_USER, "--", sys.executable, "-c", probe],
        cwd=folder,
        env={**user_env(), "HOME": str(folder)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        return f"{OTHER_USER} cannot run {sys.executable}: {done.stderr.strip()[-200:]}"
    return "" if done.stdout.strip() == "None" else f"no sandbox for {OTHER_USER}: {done.stdout.strip()}"


@pytest.mark.slow
def test_readme_offline_run_command_works_for_another_user(tmp_path):
    folder = tmp_path / "other"
    folder.mkdir()
    os.chmod(tmp_path, 0o755)
    shutil.chown(folder, OTHER_USER)
    if problem := other_user_problem(folder):
        pytest.skip(problem)
    run_offline_quick_start(folder, ["runuser", "-u", OTHER_USER, "--", "env", f"HOME={folder}"])


def test_readme_test_command_is_what_ci_runs():
    command = readme_command(r"pytest")
    ci_lines = (REPO / ".ci" / "run").read_text().splitlines()
    assert command in ci_lines


def fixture_host(task_text: str, built: Path) -> dict[str, bytes]:
    """What fixtures.stateact.dev serves for the task's URLs: each URL path below /office/ with the
    built file the cache resolves the URL to (found, never downloaded)."""
    cache = FileCache(built)
    served = {}
    for url in sorted(set(re.findall(re.escape(FIXTURES_URL) + r'[^"\s]+', task_text))):
        path = next((p for p in cache.candidates(url) if p.is_file()), None)
        assert path is not None, f"no built fixture for {url}"
        served["/" + url.removeprefix(FIXTURES_URL)] = path.read_bytes()
    return served


def run_region_export(task: Path, folder: Path) -> subprocess.CompletedProcess:
    """`stateact run --task TASK` with the region-export task's reference solution, from `folder`."""
    solution = REGION_EXPORT.with_name("calc-region-export.solution.json")
    return subprocess.run(
        ["stateact", "run", "--task", str(task), "--model", f"scripted:{solution}"],
        cwd=folder,
        env=user_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.apps
def test_run_task_with_default_flags_fetches_inputs_and_expected_file_over_http(built_fixtures, tmp_path):
    text = REGION_EXPORT.read_text(encoding="utf-8")
    expected_path = "/expected/east_orders_expected.csv"
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    task = tmp_path / "suite" / "calc" / REGION_EXPORT.name
    task.parent.mkdir(parents=True)

    with served_files(fixture_host(text, built_fixtures)) as host:
        assert sorted(host.files) == [expected_path, "/sales_2024.xlsx"]
        task.write_text(text.replace(FIXTURES_URL, host.url("/")), encoding="utf-8")
        done = run_region_export(task, fresh)
        requests = dict(host.requests)

    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "score 1 " in done.stdout, output
    (result,) = (fresh / "results").rglob("result.txt")
    assert float(result.read_text()) == 1.0
    (run_dir,) = (fresh / "runs").iterdir()
    assert failed_tool_calls(run_dir / "events.jsonl") == []
    # each file fetched over HTTP once: the scoring's cloud_file of the input is a cache hit
    assert requests == {"/sales_2024.xlsx": 1, expected_path: 1}
    cached = fresh / "cache" / "by-url" / url_key(host.url(expected_path)) / "east_orders_expected.csv"
    assert cached.read_bytes() == (built_fixtures / "east_orders_expected.csv").read_bytes()


@pytest.mark.apps
def test_run_task_of_a_shipped_suite_builds_its_fixtures_into_the_cache(tmp_path):
    done = run_region_export(REGION_EXPORT, tmp_path)
    assert done.returncode == 0 and "score 1 " in done.stdout, done.stdout + done.stderr
    assert (tmp_path / "cache" / "sales_2024.xlsx").is_file()  # built, as `eval run` builds them
