"""The marathon suite: each task's length and checkpoints, its step budget, the Desk's refusals and
confirmation numbers, and the intranet's paginated portal and validated forms.

Replaying a marathon task takes minutes; validate them with `stateact eval validate evals/suites/marathon`.
"""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from stateact.app.config import RoleModels
from stateact.evals import settings
from stateact.evals.authoring.marathon_tasks import MARATHON_SUITE, MAX_STEPS, SERVER_FILE, _server_module
from stateact.evals.fixtures import marathon
from stateact.evals.fixtures.apps.desk import confirmation, refused
from stateact.evals.osworld.task import load_task, step_budget
from stateact.evals.running.jobs import SuiteJob, SuiteOptions, job_config
from stateact.evals.running.suite import discover
from tests.support.desk_app import running_desk
from tests.support.tool_calls import calls_in
from tests.support.web_site import serve_site
from tests.test_eval_suite import assert_downloads_resolve
from tests.test_gui_desktop import wait_for

TASKS = discover(MARATHON_SUITE)
MIN_TASKS, MIN_CALLS, MIN_CHECKPOINTS = 6, 100, 30


def _roles(task) -> dict[str, list[dict]]:
    return json.loads(task.solution_path.read_text(encoding="utf-8"))["roles"]


def test_the_suite_has_a_task_per_theme() -> None:
    assert len(TASKS) >= MIN_TASKS
    assert sorted(t.id for t in TASKS) == sorted(theme.id for theme in marathon.THEMES)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_each_reference_makes_a_hundred_tool_calls_and_the_task_has_thirty_checkpoints(task) -> None:
    script = _roles(task)
    assert sum(len(calls_in(turns)) for turns in script.values()) >= MIN_CALLS
    assert task.checkpoints >= MIN_CHECKPOINTS
    assert task.task.max_steps == MAX_STEPS
    main = calls_in(script["main"])
    assert main[-1]["name"] == "finish" and calls_in(script["gate"])[-1]["input"]["verdict"] == "PASS"
    # the GUI types one record per turn: a refused code is typed again after the window answered
    retyped = [t for t in script["gui"] if t["text"].startswith("Refused:")]
    assert len(retyped) == 2 * len(marathon.BY_ID[task.id].retired)


def test_every_download_resolves_to_a_built_fixture(built_fixtures: Path) -> None:
    assert_downloads_resolve(TASKS, built_fixtures)


# -- the step budget --------------------------------------------------------------------------------
def test_a_task_file_carries_its_step_budget_to_suite_runs_unless_the_user_gives_one() -> None:
    task = TASKS[0]
    options = SuiteOptions(MARATHON_SUITE, (), ("stateact",), "scripted:x", Path("/tmp/r"), Path("/tmp/c"))
    models = RoleModels(main="scripted:x")

    def turns(given: int | None, budget: int | None) -> int | None:
        job = SuiteJob(replace(task, task=task.task.model_copy(update={"max_steps": budget})), "stateact")
        return job_config(replace(options, max_turns=given), job, models, Path("/tmp")).max_turns

    assert turns(None, 350) == 350
    assert turns(40, 350) == 40
    assert turns(None, None) == settings.TASK_MAX_TURNS
    assert step_budget(load_task(task.path), None, None) == MAX_STEPS  # `run --task` with no --max-steps


# -- the Desk ---------------------------------------------------------------------------------------
def test_confirmation_numbers_follow_the_seed_and_the_record_and_rules_refuse_by_value_or_form() -> None:
    first = confirmation("CD", "seed", ["CL-1001", "AUTO-1", "12.50"])
    assert re.fullmatch(r"CD-[0-9A-F]{6}", first)
    assert first == confirmation("CD", "seed", ["CL-1001", "AUTO-1", "12.50"])
    assert first != confirmation("CD", "seed", ["CL-1001", "AUTO-1", "12.51"])
    assert first != confirmation("CD", "other", ["CL-1001", "AUTO-1", "12.50"])
    rules = [{"field": "Policy", "value": "TRAV-3", "message": "use TRAV-7"}, marathon.amount_rule("Amount")]
    assert refused(rules, {"Policy": "trav-3", "Amount": "1.00"}) == ("Policy", "use TRAV-7")
    assert refused(rules, {"Policy": "TRAV-7", "Amount": "1234.50"}) is None
    for written in ("3,723.28", "3723.3", "3723", "€3723.28"):
        field, message = refused(rules, {"Policy": "TRAV-7", "Amount": written})
        assert field == "Amount" and "e.g. 1234.50" in message


@pytest.mark.apps
@pytest.mark.slow
def test_the_desk_deletes_its_rules_and_shows_refusals_and_confirmations_in_its_window_only(
    tmp_path: Path,
) -> None:
    refuse = [{"field": "Code", "value": "OLD", "message": "enter NEW"}, marathon.amount_rule("Amount")]
    rules = json.dumps({"refuse": refuse, "confirm": "RD", "seed": "seed-7f3q"}).encode()
    options = "--fields Ref,Code,Amount --store {home}/records.json --rules {home}/rules.json"
    with running_desk(tmp_path, "Rule Desk", options, {"rules.json": rules}) as (sandbox, port):
        store = f"{sandbox.home}/records.json"
        assert not sandbox.exists(
            f"{sandbox.home}/rules.json"
        )  # read at start, then deleted: only the window tells
        assert "seed-7f3q" not in sandbox.run("ps -eo args").stdout

        def status() -> str:
            return httpx.get(f"http://127.0.0.1:{port}/").json()["status"]

        sandbox.run(
            "xdotool type R1; xdotool key Tab; xdotool type OLD; xdotool key Tab; xdotool type 3,723.28"
        )
        sandbox.run("xdotool key Return; sleep 0.5")
        assert status() == "Refused: enter NEW" and not Path(store).exists()  # the Code field cleared
        sandbox.run("xdotool type NEW; xdotool key Return; sleep 0.5")
        assert status().startswith("Refused: Amount must be a plain number") and not Path(store).exists()
        sandbox.run("xdotool type 3723.28; xdotool key Return")
        wait_for(lambda: Path(store).exists(), "the corrected record saved")
        number = confirmation("RD", "seed-7f3q", ["R1", "NEW", "3723.28"])
        assert status() == f"Added record 1: R1. Confirmation {number}."
        assert json.loads(Path(store).read_text()) == [{"ref": "R1", "code": "NEW", "amount": "3723.28"}]
        assert number not in json.dumps(httpx.get(f"http://127.0.0.1:{port}/").json()["records"])


# -- the intranet -----------------------------------------------------------------------------------
def _fetch(url: str, fields: dict[str, str] | None = None) -> tuple[int, str]:
    body = urllib.parse.urlencode(fields).encode() if fields is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body)) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _intranet(tmp_path: Path):
    module = _server_module()
    theme = marathon.THEMES[0]
    private = tmp_path / "private.json"
    private.write_text(marathon.site_private(theme))
    (tmp_path / "www").mkdir()
    state = tmp_path / "state.db"
    module.prepare_state(state)
    handler = module.make_filing_handler(tmp_path / "www", state, private)
    assert not private.exists()  # read, then deleted
    return module, theme, handler, state


def test_portal_pages_open_only_through_the_previous_pages_link(tmp_path: Path) -> None:
    module, theme, handler, _ = _intranet(tmp_path)
    with serve_site(handler) as base:
        status, first = _fetch(f"{base}/portal/{theme.id}/1")
        assert status == 200 and "Page 1 of 8" in first and "CL-1001" in first
        link = re.search(r'href="([^"]+)">Next page', first).group(1)
        assert _fetch(f"{base}/portal/{theme.id}/2")[0] == 403
        assert _fetch(f"{base}/portal/{theme.id}/2?token=wrong")[0] == 403
        status, second = _fetch(base + link)
        assert status == 200 and "Page 2 of 8" in second and "CL-1006" in second
        assert _fetch(f"{base}/portal/{theme.id}/9")[0] == 404
        assert _fetch(f"{base}/portal/{theme.id}.json")[0] == 404  # the data file is not served
    assert link.endswith(module.page_token(f"marathon-{theme.id}", theme.id, 2))
    assert SERVER_FILE.name == "long_server.py"


def test_a_ruled_form_refuses_with_its_message_and_answers_a_filing_with_its_receipt(tmp_path: Path) -> None:
    module, theme, handler, state = _intranet(tmp_path)
    suspended, parent = next(iter(theme.suspended.items()))
    item = {
        "period": "2024-11",
        "ref": "CL-1001",
        "party": suspended,
        "amount": "1600.00",
        "confirmation": "CD-1",
    }
    with serve_site(handler) as base:
        status, page = _fetch(f"{base}/file/item", item)
        assert status == 422 and f"Refused: {suspended} is under review" in page and parent in page
        status, page = _fetch(f"{base}/file/item", {**item, "party": parent, "amount": "1,600.00"})
        assert (
            status == 422 and "Amount must be a plain number with two decimals" in page and "1234.50" in page
        )
        status, page = _fetch(f"{base}/file/item", {**item, "party": parent})
        number = module.receipt("IT", "item", {**item, "party": parent})
        assert status == 200 and f"Receipt: {number}" in page
        status, page = _fetch(f"{base}/file/close", {"period": "2024-11", "count": "1", "total": "1600.00"})
        assert status == 200 and "Notice: Correction to the 2024-11 source list" in page
        status, page = _fetch(f"{base}/file/amend", {"receipt": "IT-99999", "amount": "1700.00"})
        assert status == 422 and "no filing has the receipt IT-99999" in page
        status, page = _fetch(f"{base}/file/amend", {"receipt": number, "amount": "1700.00"})
        amended = module.receipt("AM", "amend", {"receipt": number, "amount": "1700.00"})
        assert status == 200 and f"Receipt: {amended}" in page
    stored = [
        json.loads(d) for (d,) in sqlite3.connect(state).execute("SELECT data FROM filings ORDER BY id")
    ]
    assert [s["receipt"] for s in stored][0] == number and len(stored) == 3
    assert stored[2] == {"amends": number, "amount": "1700.00", "receipt": amended}
