"""The long suite's event, course, procurement and project tasks (evals/authoring/long_events_tasks.py): structure
and fixtures. The task files are written by `python -m stateact.evals.authoring.long_events_tasks`.

Full validation of a long task takes minutes; run it with
`stateact eval validate evals/suites/long --task conference-pack` (and
`python benchmarks/checker_sensitivity.py evals/suites/long --task conference-pack` for the checkers).
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from stateact.evals.authoring.long_events_tasks import LONG_SUITE, SPECS
from stateact.evals.running.suite import SuiteTask, discover
from tests.support.desk_app import running_desk
from tests.support.tool_calls import calls_in
from tests.test_eval_suite import assert_downloads_resolve
from tests.test_gui_desktop import wait_for

MIN_CHECKPOINTS = 20
MIN_APPS = 2
SPEC_BUILDERS = {make.__name__.replace("_", "-"): make for make in SPECS}
TASKS = discover(LONG_SUITE, only=sorted(SPEC_BUILDERS))


def roles(task: SuiteTask) -> dict[str, list[dict]]:
    return json.loads(task.solution_path.read_text(encoding="utf-8"))["roles"]


def test_every_builder_has_its_task_file() -> None:
    assert [t.id for t in TASKS] == sorted(SPEC_BUILDERS)
    assert len(TASKS) >= 4


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.id)
def test_each_task_is_long_and_its_solution_carries_expectations(task: SuiteTask) -> None:
    assert task.checkpoints >= MIN_CHECKPOINTS
    assert len(task.task.related_apps) >= MIN_APPS
    script = roles(task)
    main = script["main"]
    assert all("expect" in turn for turn in main[1:]), "every main turn checks the results before it"
    assert all("tool_calls" in turn for turn in main + script["gate"]), (
        "every main and gate turn calls a tool"
    )
    assert calls_in(main)[-1]["name"] == "finish"
    assert calls_in(script["gate"])[-1]["input"]["verdict"] == "PASS"
    assert "gui" in script, "each task has a subgoal only the GUI reaches"
    for role in ("gui", "web"):
        delegations = [c for c in calls_in(main) if c["name"] == f"delegate_{role}"]
        assert bool(delegations) == (role in script)


def test_every_download_resolves_to_a_built_fixture(built_fixtures: Path) -> None:
    assert_downloads_resolve(TASKS, built_fixtures)


@pytest.mark.apps
def test_the_desk_keeps_the_records_typed_into_its_window_in_its_store_and_on_its_port(
    tmp_path: Path,
) -> None:
    existing = json.dumps([{"room": "Room C", "session": "Existing"}]).encode()
    options = "--fields Room,Session --store {home}/data/records.json"
    with running_desk(tmp_path, "Test Desk", options, {"data/records.json": existing}) as (sandbox, port):
        store = f"{sandbox.home}/data/records.json"

        def records() -> list[dict]:
            return json.loads(sandbox.read_file(store))

        sandbox.run("xdotool type 'Main Hall'; xdotool key Tab; xdotool type Keynote; xdotool key Return")
        wait_for(lambda: len(records()) == 2, "the first record saved")
        # a record with an empty field is refused: the form keeps it for completion
        sandbox.run(
            "xdotool type 'Room B'; xdotool key Return; xdotool key Tab; xdotool type Panel; xdotool key Return"
        )
        wait_for(lambda: len(records()) == 3, "the completed record saved")
        assert records() == [
            {"room": "Room C", "session": "Existing"},
            {"room": "Main Hall", "session": "Keynote"},
            {"room": "Room B", "session": "Panel"},
        ]
        served = httpx.get(f"http://127.0.0.1:{port}/").json()  # field names as the window shows them
        assert served == {
            "title": "Test Desk",
            "records": [{"Room": r["room"], "Session": r["session"]} for r in records()],
            "status": "Added record 3: Room B.",
        }
