"""The long suite's human-in-the-loop task (evals/authoring/long_user_tasks.py): its persona, a reference
that asks, and checkers that separate asking from guessing. The replays run the real harness on a local
sandbox with a display (`validate_task`): the reference, whose simulated user answers, scores 1.0; doing
nothing scores 0; the guesses the files allow (the notice's default, or schedule B on other categories)
score less than 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.evals.authoring.long_events_tasks import LONG_SUITE
from stateact.evals.authoring.long_tasks import bash, call, gate_turns, python_script, turn
from stateact.evals.authoring.long_user_tasks import SPECS, deliverables_script
from stateact.evals.fixtures.long_user import RISE_ID, RISE_USER_CHOICE
from stateact.evals.running.suite import discover, plays_user
from stateact.evals.running.validate import validate_task
from tests.support.tool_calls import calls_in
from tests.test_eval_suite import assert_downloads_resolve

TASKS = {task.id: task for task in discover(LONG_SUITE, only=[make().id for make in SPECS])}
TASK = TASKS[RISE_ID]


def solution(main: list[dict]) -> dict:
    return {"roles": {"main": main, "gate": gate_turns("true", ["the deliverables"])}}


def test_the_task_carries_a_persona_who_knows_what_no_file_says() -> None:
    user = TASK.task.user
    assert user is not None and user.knows and user.wants and user.does_not_know and user.answers
    choice = " and ".join(RISE_USER_CHOICE)
    assert choice in TASK.task.persona
    assert choice not in TASK.task.instruction


def test_the_reference_asks_before_it_writes_and_scripts_the_users_reply() -> None:
    roles = json.loads(TASK.solution_path.read_text(encoding="utf-8"))["roles"]
    names = [c["name"] for c in calls_in(roles["main"])]
    assert names.index("ask_user") < next(
        i for i, c in enumerate(calls_in(roles["main"])) if "prices_august" in json.dumps(c)
    )
    assert roles["user"] and plays_user(TASK.solution_path)


def test_every_download_resolves_to_a_built_fixture(built_fixtures: Path) -> None:
    assert_downloads_resolve(list(TASKS.values()), built_fixtures)


def guess(schedule: str, *chosen: str) -> dict:
    """A solution that reads the files and, without asking, writes the deliverables under a guess."""
    return solution(
        [
            turn("Read.", bash("cat ~/Documents/pricing/notes.txt ~/Documents/pricing/pricing_policy.txt")),
            turn(
                "No one recorded a choice: go with the guess.",
                bash(python_script(deliverables_script(schedule, chosen or RISE_USER_CHOICE))),
                expect=[{"exit": 0}],
            ),
            turn("", call("finish", summary="Done.", infeasible=False), expect=[{"exit": 0}]),
        ]
    )


@pytest.mark.slow
@pytest.mark.apps
@pytest.mark.parametrize(
    ("name", "script", "scores"),
    [
        ("reference", None, lambda score: score == 1.0),
        (
            "nothing",
            solution([turn("", call("finish", summary="Done.", infeasible=False))]),
            lambda s: s == 0.0,
        ),
        ("default-schedule", guess("A"), lambda score: score < 1.0),
        ("other-categories", guess("B", "Hardware", "Kitchen"), lambda score: score < 1.0),
    ],
)
def test_only_the_users_answer_reaches_full_marks(built_fixtures, tmp_path, name, script, scores) -> None:
    path = None
    if script is not None:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(script), encoding="utf-8")
    row = validate_task(TASK, built_fixtures, tmp_path / "out", solution=path)
    assert row.status == "finished", row.error
    assert scores(row.score), (name, row.score, row.error)
