"""The long suite's finance tasks: structure of each task and solution, their fixtures, the filing server.

Replaying the long tasks is too slow for the test suite; validate them with
`stateact eval validate evals/suites/long --task month-end-close` and measure their checkers with
`python benchmarks/checker_sensitivity.py --suite evals/suites/long`.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import sqlite3
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from stateact.evals.authoring.mutators import EXTRA, ROW, VALUE
from stateact.evals.authoring.sensitivity import task_sensitivity
from stateact.evals.osworld.task import load_task
from stateact.evals.running.suite import SuiteTask, discover
from tests.support.tool_calls import calls_in
from tests.support.web_site import serve_site
from tests.test_eval_suite import assert_downloads_resolve

LONG_SUITE = Path(__file__).resolve().parents[1] / "evals" / "suites" / "long"
FINANCE_TASKS = (
    "month-end-close",
    "expense-audit",
    "inventory-year-end",
    "payroll-adjustments",
    "grant-report",
    "sales-territory-review",
)
MIN_CHECKPOINTS, MIN_APPS = 20, 2
SERVER = Path(__file__).resolve().parents[1] / "evals" / "fixtures" / "site" / "long_server.py"
BY_ID = {task.id: task for task in discover(LONG_SUITE)}


def roles(task: SuiteTask) -> dict[str, list[dict]]:
    return json.loads(task.solution_path.read_text(encoding="utf-8"))["roles"]


@pytest.mark.parametrize("task_id", FINANCE_TASKS)
def test_each_task_is_long_across_apps_with_a_gui_step(task_id: str) -> None:
    task = BY_ID[task_id]
    assert task.checkpoints >= MIN_CHECKPOINTS
    assert len(task.task.related_apps) >= MIN_APPS
    script = roles(task)
    main = calls_in(script["main"])
    assert main[-1]["name"] == "finish" and main[-1]["input"]["infeasible"] is False
    assert any(c["name"] == "delegate_gui" for c in main) and script["gui"]  # a step only the GUI reaches
    assert calls_in(script["gate"])[-1]["input"]["verdict"] == "PASS"
    for role, turns in script.items():  # every turn checks what the previous one of its run returned
        for previous, turn in itertools.pairwise(turns):
            ended = calls_in([previous])[-1]["name"] == "done"  # the next delegation starts a new run
            assert ended or turn.get("expect"), (role, turn["text"])


@pytest.mark.parametrize("task_id", FINANCE_TASKS)
def test_the_plan_spans_eight_subgoals(task_id: str) -> None:
    plan = next(c for c in calls_in(roles(BY_ID[task_id])["main"]) if c["name"] == "plan")
    assert len(plan["input"]["items"]) >= 8


def test_every_download_resolves_to_a_built_fixture(built_fixtures: Path) -> None:
    assert_downloads_resolve([BY_ID[task_id] for task_id in FINANCE_TASKS], built_fixtures)


def _filing_server(tmp_path: Path):
    spec = importlib.util.spec_from_file_location("long_server", SERVER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    state = tmp_path / "state.db"
    module.prepare_state(state)
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "filed.html").write_text("<p>Filed</p>")
    return module.make_filing_handler(tmp_path / "www", state), state


def _post(url: str, fields: dict[str, str]) -> int:
    body = urllib.parse.urlencode(fields).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, method="POST")) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_filing_server_stores_a_complete_form_and_refuses_an_incomplete_one(tmp_path: Path) -> None:
    handler, state = _filing_server(tmp_path)
    with serve_site(handler) as base:
        assert (
            _post(f"{base}/file/close", {"period": "2024-11", "checking": "1.50"}) == 200
        )  # after the redirect
        assert _post(f"{base}/file/close", {"period": "2024-11", "checking": " "}) == 400
        assert _post(f"{base}/file/", {"period": "2024-11"}) == 404  # no form named
    rows = sqlite3.connect(state).execute("SELECT form, data FROM filings").fetchall()
    assert rows == [("close", json.dumps({"checking": "1.50", "period": "2024-11"}))]


# -- checker sensitivity over SQLite deliverables and live checkpoints -------------------------
BALANCES = "CREATE TABLE balances (id INTEGER PRIMARY KEY, account TEXT, month TEXT, closing REAL)"
ROWS_PROBE = 'python3 -c \'import sqlite3; print(sqlite3.connect("/home/user/book.db").execute("SELECT account, month, closing FROM balances ORDER BY rowid").fetchall())\''
DELIVERED = "[('Checking', '2024-10', 100.0), ('Savings', '2024-10', 50.0), ('Checking', '2024-11', 120.5)]"


def _book(path: Path, rows: list[tuple]) -> None:
    db = sqlite3.connect(path)
    db.execute(BALANCES)
    db.executemany("INSERT INTO balances (account, month, closing) VALUES (?, ?, ?)", rows)
    db.commit()
    db.close()


def _db_task(tmp_path: Path, probes: list[tuple[str, str]]) -> SuiteTask:
    """A task whose setup downloads book.db (two October rows) and whose deliverable adds a November row."""
    cache, home = tmp_path / "cache", tmp_path / "home"
    cache.mkdir()
    home.mkdir()
    october = [("Checking", "2024-10", 100.0), ("Savings", "2024-10", 50.0)]
    _book(cache / "book.db", october)
    _book(home / "book.db", [*october, ("Checking", "2024-11", 120.5)])
    task = {
        "id": "book",
        "instruction": "Add the November balance.",
        "config": [
            {
                "type": "download",
                "parameters": {
                    "files": [{"url": "https://fixtures.example/book.db", "path": "/home/user/book.db"}]
                },
            }
        ],
        "evaluator": {
            "func": ["check_include_exclude"] * len(probes),
            "result": [{"type": "vm_command_line", "command": c, "shell": True} for c, _ in probes],
            "expected": [{"type": "rule", "rules": {"include": [e], "exclude": []}} for _, e in probes],
            "conj": "and",
        },
    }
    path = tmp_path / "tasks" / "book.json"
    path.parent.mkdir()
    path.write_text(json.dumps(task), encoding="utf-8")
    return SuiteTask(path, load_task(path), "files")


def test_database_mutations_are_caught_by_a_checker_that_reads_every_row(tmp_path: Path) -> None:
    """The checker reads every column but the key: a mutation of the key would go unnoticed, so none is made."""
    task = _db_task(tmp_path, [(ROWS_PROBE, DELIVERED)])
    result = task_sensitivity(task, tmp_path / "home", tmp_path / "cache", tmp_path / "work")
    assert [(o.kind, o.caught) for o in result.outcomes] == [(VALUE, True), (ROW, True), (EXTRA, True)]
    assert "balances row 3" in result.outcomes[0].note and "untouched balances row" in result.outcomes[2].note
    rows = (
        sqlite3.connect(tmp_path / "home" / "book.db")
        .execute("SELECT account, month, closing FROM balances")
        .fetchall()
    )
    assert str(rows) == DELIVERED  # restored after every mutation


@pytest.mark.slow
def test_a_checkpoint_on_a_program_gone_after_the_replay_does_not_stop_the_measurement(
    tmp_path: Path,
) -> None:
    live = "python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://127.0.0.1:9/\").read())'"
    task = _db_task(tmp_path, [(ROWS_PROBE, DELIVERED), (live, "records")])
    result = task_sensitivity(task, tmp_path / "home", tmp_path / "cache", tmp_path / "work")
    assert not result.skipped and result.live == 1
    assert all(o.baseline == 0.5 and o.partial == 0.0 and o.caught for o in result.outcomes)
