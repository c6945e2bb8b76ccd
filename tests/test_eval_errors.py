"""Expected files fetched from URLs, and failures that are not the agent's: error.json, never a 0."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stateact.app.config import RunConfig
from stateact.app.exit_codes import ExitCode
from stateact.app.run import execute
from stateact.evals.cli import write_tables
from stateact.evals.osworld.cache import DownloadError, FileCache, url_key
from stateact.evals.reports.html_report import write_html_report
from stateact.evals.running.jobs import SuiteOptions
from stateact.evals.running.results import ARTIFACTS_DIR, ERROR_FILE, RESULT_FILE, is_done
from stateact.evals.running.runner import TaskOutcome, run_task_file
from stateact.evals.running.suite_runner import run_suite
from stateact.kernel.runtime import RoleModels
from stateact.sandbox.base import Sandbox
from tests.support.file_server import FileServer, served_files
from tests.support.osworld_agent import scripted_agent
from tests.support.osworld_artifacts import sales_book

REPO = Path(__file__).resolve().parents[1]
SUITE = Path(__file__).parent / "fixtures" / "evalsuite"
GOLD_BOOK, GOLD_NOTES, INPUT_NOTES = "/gold/Sales_gold.xlsx", "/gold/notes_gold.txt", "/files/notes.txt"
SHEET_DATA = {"rules": [{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"}]}


@pytest.fixture
def server(tmp_path) -> FileServer:
    book = sales_book(tmp_path / "gold.xlsx").read_bytes()
    files = {GOLD_BOOK: book, GOLD_NOTES: b"NOTES\nDONE\n", INPUT_NOTES: b"notes\ndone\n"}
    with served_files(files) as running:
        yield running


def task_file(folder: Path, task_id: str, evaluator: dict, config: list | None = None) -> Path:
    path = folder / "tasks" / "os" / f"{task_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    task = {"id": task_id, "instruction": "Do the task.", "config": config or [], "evaluator": evaluator}
    path.write_text(json.dumps(task), encoding="utf-8")
    return path


def book_task(folder: Path, url: str, options: dict = SHEET_DATA) -> Path:
    """Sales.xlsx compared with an expected workbook given as a URL."""
    evaluator = {
        "func": "compare_table",
        "result": {"type": "vm_file", "path": "/home/user/Sales.xlsx", "dest": "Sales.xlsx"},
        "expected": {"type": "cloud_file", "path": url, "dest": "gold.xlsx"},
        "options": options,
    }
    return task_file(folder, "book", evaluator)


def run(task: Path, sandbox: Sandbox, folder: Path, commands: list[str], cache: Path, **kw) -> TaskOutcome:
    agent = kw.pop("agent", None) or scripted_agent(folder / "runs", commands)
    return run_task_file(task, sandbox, agent, cache, folder / "results", model="scripted:test", **kw)


def assert_error(outcome: TaskOutcome, stage: str) -> dict:
    """The task failed at `stage`: error.json, no result.txt, not done; returns the error record."""
    assert outcome.failure is not None and outcome.failure.stage == stage and outcome.score is None
    assert not (outcome.result_dir / RESULT_FILE).exists() and not is_done(outcome.result_dir)
    record = json.loads((outcome.result_dir / ERROR_FILE).read_text())
    assert record["stage"] == stage and record["task_id"] == outcome.result_dir.name
    return record


# -- expected files given as URLs --------------------------------------------------------
def test_expected_files_are_downloaded_once_then_served_from_the_cache(tmp_path, server, local):
    evaluator = {
        "func": ["compare_table", "compare_csv"],
        "result": [
            {"type": "vm_file", "path": "/home/user/Sales.xlsx", "dest": "Sales.xlsx"},
            {"type": "vm_file", "path": "/home/user/notes.txt", "dest": "notes.txt"},
        ],
        "expected": [
            {"type": "cloud_file", "path": server.url(GOLD_BOOK), "dest": "gold.xlsx"},
            {"type": "cloud_file", "path": server.url(GOLD_NOTES), "dest": "notes_gold.txt"},
        ],
        "options": [SHEET_DATA, {}],
    }
    download = {"files": [{"url": server.url(INPUT_NOTES), "path": "/home/user/notes.txt"}]}
    task = task_file(tmp_path, "fetched", evaluator, [{"type": "download", "parameters": download}])
    sales_book(tmp_path / "right.xlsx")
    work = [
        f"cp {tmp_path}/right.xlsx ~/Sales.xlsx",
        "tr a-z A-Z < ~/notes.txt > ~/up && mv ~/up ~/notes.txt",
    ]
    cache = tmp_path / "cache"
    first = run(task, local, tmp_path / "first", work, cache)
    second = run(task, local, tmp_path / "second", work, cache)
    assert (first.score, second.score) == (1.0, 1.0)
    assert server.requests == {GOLD_BOOK: 1, GOLD_NOTES: 1, INPUT_NOTES: 1}
    cached = cache / "by-url" / url_key(server.url(GOLD_BOOK)) / "Sales_gold.xlsx"
    assert cached.read_bytes() == server.files[GOLD_BOOK]


def test_the_scored_files_are_kept_and_linked_from_the_task_page(tmp_path, server, local):
    evaluator = {
        "func": ["compare_table", "compare_csv"],
        "result": [
            {"type": "vm_file", "path": "/home/user/Sales.xlsx", "dest": "Sales.xlsx"},
            {"type": "vm_file", "path": "/home/user/notes.txt", "dest": "out/notes.txt"},
        ],
        "expected": [
            {"type": "cloud_file", "path": server.url(GOLD_BOOK), "dest": "gold.xlsx"},
            {"type": "cloud_file", "path": server.url(GOLD_NOTES), "dest": "notes_gold.txt"},
        ],
        "options": [SHEET_DATA, {}],
    }
    task = task_file(tmp_path, "kept", evaluator)
    sales_book(tmp_path / "wrong.xlsx", qty_of_pen=99)
    work = [f"cp {tmp_path}/wrong.xlsx ~/Sales.xlsx", "printf 'NOTES\\nDONE\\n' > ~/notes.txt"]
    outcome = run(task, local, tmp_path, work, tmp_path / "cache")
    local.run("rm ~/Sales.xlsx ~/notes.txt")  # the sandbox's files are gone; the scored copies stay
    assert outcome.report is not None and [p["score"] for p in outcome.report.parts] == [0.0, 1.0]
    kept = outcome.result_dir / ARTIFACTS_DIR
    assert sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*") if p.is_file()) == [
        "Sales.xlsx",
        "gold.xlsx",
        "notes_gold.txt",
        "out/notes.txt",
    ]
    assert (kept / "Sales.xlsx").read_bytes() == (tmp_path / "wrong.xlsx").read_bytes()
    assert (kept / "gold.xlsx").read_bytes() == server.files[GOLD_BOOK]
    assert (kept / "out" / "notes.txt").read_text() == "NOTES\nDONE\n"
    pages = write_html_report(tmp_path / "results").parent / "tasks"
    (page,) = pages.glob("*kept.html")
    links = re.findall(r'<ul id="artifacts">(.*?)</ul>', page.read_text())[0]
    targets = [(pages / href).resolve() for href in re.findall(r'href="([^"]+)"', links)]
    assert targets == sorted(p.resolve() for p in kept.rglob("*") if p.is_file())


def test_a_cached_file_is_used_without_asking_the_server(tmp_path, server):
    (tmp_path / "notes_gold.txt").write_text("from the cache\n")
    assert FileCache(tmp_path).read(server.url(GOLD_NOTES)) == b"from the cache\n"
    assert not server.requests


def test_a_failed_download_names_the_status_and_the_url(tmp_path, server):
    url = server.url("/gold/absent.xlsx")
    with pytest.raises(DownloadError, match=r"HTTP 404") as error:
        FileCache(tmp_path).read(url)
    assert url in str(error.value) and str(tmp_path / "absent.xlsx") in str(error.value)
    assert not list(tmp_path.rglob("*.partial*")) and not list(tmp_path.rglob("absent.xlsx"))


# -- errors that are not the agent's --------------------------------------------------------
def test_an_expected_url_that_404s_is_an_error_before_the_agent_and_runs_again(tmp_path, server, local):
    missing = "/gold/late.xlsx"
    task = book_task(tmp_path, server.url(missing))
    sales_book(tmp_path / "right.xlsx")
    work = [f"cp {tmp_path}/right.xlsx ~/Sales.xlsx"]
    failed = run(task, local, tmp_path, work, tmp_path / "cache")
    record = assert_error(failed, "scoring")
    assert record["what"] == "pre-flight check: expected file gold.xlsx"
    assert "HTTP 404" in record["error"] and server.url(missing) in record["error"]
    assert not (tmp_path / "runs").exists()  # found before the agent ran

    server.files[missing] = server.files[GOLD_BOOK]  # the file appears: the re-run scores it
    again = run(task, local, tmp_path, work, tmp_path / "cache")
    assert not again.skipped and again.score == 1.0
    assert is_done(again.result_dir) and not (again.result_dir / ERROR_FILE).exists()


def test_a_download_step_that_404s_fails_the_setup_before_the_agent(tmp_path, server, local):
    download = {"files": [{"url": server.url("/files/none.txt"), "path": "/home/user/none.txt"}]}
    evaluator = {"func": "exact_match", "result": {"type": "rule", "rules": 1}, "expected": {"type": "rule"}}
    task = task_file(tmp_path, "setup", evaluator, [{"type": "download", "parameters": download}])
    record = assert_error(run(task, local, tmp_path, ["true"], tmp_path / "cache"), "setup")
    assert "HTTP 404" in record["error"] and "none.txt" in record["error"]
    assert not (tmp_path / "runs").exists()  # the agent never ran


@pytest.mark.parametrize(
    ("rule", "named"),
    [
        ({"type": "sparkline", "sheet_idx0": 0, "sheet_idx1": "EI0"}, "unsupported compare_table rule"),
        (
            {
                "type": "check_cell",
                "sheet_idx": 0,
                "coordinate": "B2",
                "props": {"value": {"method": "range.le"}},
            },
            "unsupported rule method",
        ),
        (
            {"type": "style", "sheet_idx0": 0, "sheet_idx1": "EI0", "props": ["glow"]},
            "unsupported cell style",
        ),
    ],
    ids=["rule", "check_cell-method", "style-prop"],
)
def test_an_unsupported_rule_is_refused_before_the_agent_runs(rule, named, tmp_path, server, local):
    task = book_task(tmp_path, server.url(GOLD_BOOK), {"rules": [rule]})
    record = assert_error(run(task, local, tmp_path, ["true"], tmp_path), "setup")
    assert "compare_table" in record["error"] and named in record["error"]
    assert not (tmp_path / "runs").exists()  # the agent never ran


def test_a_missing_or_corrupt_agent_file_still_scores_zero(tmp_path, server, local):
    task = book_task(tmp_path, server.url(GOLD_BOOK))
    missing = run(task, local, tmp_path / "missing", ["true"], tmp_path / "cache")
    corrupt = run(task, local, tmp_path / "corrupt", ["echo junk > ~/Sales.xlsx"], tmp_path / "cache")
    for outcome in (missing, corrupt):
        assert outcome.failure is None and outcome.score == 0.0
        assert (outcome.result_dir / RESULT_FILE).read_text() == "0.0\n"
        assert not (outcome.result_dir / ERROR_FILE).exists()


def test_a_provider_that_fails_before_the_first_turn_is_an_agent_error(tmp_path, server, local):
    empty = tmp_path / "empty.json"
    empty.write_text("[]")

    def run_agent(instruction: str, sandbox: Sandbox) -> Path:
        models = RoleModels(main=f"scripted:{empty}")
        config = RunConfig(
            instruction=instruction, models=models, harness="bash-only", runs_root=tmp_path / "runs"
        )
        return Path(execute(config, sandbox=sandbox).run_dir)

    task = book_task(tmp_path, server.url(GOLD_BOOK))
    record = assert_error(run(task, local, tmp_path, [], tmp_path / "cache", agent=run_agent), "agent")
    assert "script" in record["error"] and record["run_dir"]
    assert server.requests == {GOLD_BOOK: 1}  # the pre-flight check's fetch; nothing was scored


def run_task_command(tmp_path: Path, task: Path, model: str) -> subprocess.CompletedProcess:
    """`stateact run --task TASK` under bash-only, no display, with every folder under `tmp_path`."""
    args = ["--task", str(task), "--model", model, "--harness", "bash-only", "--no-display"]
    paths = ["--cache", str(tmp_path / "cache"), "--results", str(tmp_path / "results")]
    paths += ["--runs-root", str(tmp_path / "runs"), "--workdir", str(tmp_path / "home")]
    return subprocess.run(
        [sys.executable, "-m", "stateact", "run", *args, *paths],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "300"},
    )


@pytest.mark.slow
def test_run_task_exits_3_on_an_error_and_prints_it(tmp_path, server):
    task = book_task(tmp_path, server.url("/gold/late.xlsx"))
    script = tmp_path / "finish.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]}]))
    done = run_task_command(tmp_path, task, f"scripted:{script}")
    assert done.returncode == ExitCode.ERROR == 3, done.stdout + done.stderr
    assert "error in scoring" in done.stdout and "HTTP 404" in done.stdout
    [error] = (tmp_path / "results").rglob(ERROR_FILE)
    assert not (error.parent / RESULT_FILE).exists()


# -- suites: an errored task is an error, not a 0 ----------------------------------------------
@pytest.mark.slow
def test_a_suite_shows_an_errored_task_as_error_and_does_not_count_it_as_zero(tmp_path, server):
    suite = tmp_path / "suite"
    shutil.copytree(SUITE / "files", suite / "files")
    broken = json.loads((suite / "files" / "shout.json").read_text())
    broken["id"] = "shout-gold"
    broken["evaluator"] = {
        "func": "compare_csv",
        "result": {"type": "vm_file", "path": "/home/user/output.txt", "dest": "output.txt"},
        "expected": {"type": "cloud_file", "path": server.url("/gold/late.txt"), "dest": "gold.txt"},
    }
    (suite / "files" / "shout-gold.json").write_text(json.dumps(broken))
    shutil.copyfile(suite / "files" / "shout.solution.json", suite / "files" / "shout-gold.solution.json")
    results = tmp_path / "results"
    options = SuiteOptions(suite, ("bash-only",), "reference", results, tmp_path / "cache", display=False)
    outcomes = {o.job.task.id: o for o in run_suite(options)}
    assert outcomes["shout"].score == 1.0 and not outcomes["shout"].error
    assert outcomes["shout-gold"].score is None and "HTTP 404" in outcomes["shout-gold"].error
    write_tables(results)
    [row] = [
        r for r in csv.DictReader(io.StringIO((results / "summary.csv").read_text())) if r["domain"] == "all"
    ]
    assert (row["tasks"], row["binary"], row["partial"], row["errors"]) == ("1", "1.0", "1.0", "1")
    tasks = {r["task_id"]: r for r in csv.DictReader(io.StringIO((results / "tasks.csv").read_text()))}
    errored = tasks["shout-gold"]
    assert (errored["status"], errored["failed"], errored["error_stage"], errored["score"]) == (
        "error",
        "True",
        "scoring",
        "",
    )
    assert "HTTP 404" in errored["error"]
    index = write_html_report(results).read_text()
    assert "error (scoring)" in index
