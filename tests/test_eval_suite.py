"""The office suite: task files, fixtures, reference solutions replayed end to end, partial credit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stateact.evals.cli import eval_app
from stateact.evals.fixtures.build import build_fixtures
from stateact.evals.osworld.cache import FileCache
from stateact.evals.running.suite import OFFICE_SUITE, SuiteTask, discover
from stateact.evals.running.validate import ValidationRow, validate_task
from tests.support.tool_calls import calls_in

SUITE = discover(OFFICE_SUITE)
BY_ID = {task.id: task for task in SUITE}


def solution(task: SuiteTask) -> dict:
    return json.loads(task.solution_path.read_text(encoding="utf-8"))


# -- the task files ---------------------------------------------------------------
def test_the_suite_spans_apps_web_gui_and_infeasible_tasks() -> None:
    domains = {task.domain for task in SUITE}
    assert len(SUITE) >= 30
    assert {"calc", "writer", "impress", "web", "multi", "desktop"} <= domains
    assert sum(task.infeasible for task in SUITE) >= 3
    assert sum("gui" in solution(task)["roles"] for task in SUITE) >= 2
    assert sum("web" in solution(task)["roles"] for task in SUITE) >= 5


@pytest.mark.parametrize("task", SUITE, ids=lambda task: task.id)
def test_each_task_has_checkpoints_and_a_reference_solution(task: SuiteTask) -> None:
    assert task.checkpoints >= 5
    assert task.task.related_apps
    roles = solution(task)["roles"]
    main = calls_in(roles["main"])
    assert main[-1]["name"] == "finish"
    assert main[-1]["input"]["infeasible"] is task.infeasible
    verdict = calls_in(roles["gate"])[-1]  # an infeasibility claim goes through the gate too
    assert verdict["name"] == "verdict" and verdict["input"]["verdict"] == "PASS"
    for role in ("gui", "web"):
        delegations = [c for c in main if c["name"] == f"delegate_{role}"]
        assert bool(delegations) == (role in roles)


def test_task_ids_are_unique_and_match_file_names() -> None:
    assert len(BY_ID) == len(SUITE)
    assert all(task.path.stem == task.id for task in SUITE)


# -- fixtures ------------------------------------------------------------------------
@pytest.mark.slow
def test_fixture_generation_is_deterministic(tmp_path: Path, built_fixtures: Path) -> None:
    again = build_fixtures(tmp_path / "again")
    first = {path.name: path.read_bytes() for path in built_fixtures.iterdir()}
    assert sorted(again) == sorted(first)
    assert all((tmp_path / "again" / name).read_bytes() == data for name, data in first.items())


def assert_downloads_resolve(tasks: list[SuiteTask], cache: Path) -> None:
    """Every file the tasks' setups download is a fixture built into `cache`."""
    files = FileCache(cache)
    for task in tasks:
        for step in task.task.config:
            for item in step.parameters.get("files", []) if step.type == "download" else []:
                assert files.resolve(item["url"], item["path"]).is_file(), (task.id, item["url"])


def test_every_download_resolves_to_a_built_fixture(built_fixtures: Path) -> None:
    assert_downloads_resolve(SUITE, built_fixtures)


# -- end to end: reference solutions through the full harness --------------------------
def check_valid(row: ValidationRow) -> None:
    assert row.valid, row
    assert row.met == row.checkpoints and row.partial == 1.0
    gate_ran = row.gate_passed is not None
    assert set(row.unplayed) <= (set() if gate_ran else {"gate"}), row.unplayed  # every other turn played


@pytest.mark.apps
@pytest.mark.parametrize(
    "task_id",
    [
        "calc-budget-variance",  # the file is open in Calc during the task
        "writer-meeting-minutes",
        "impress-outline-deck",
        "impress-embed-usb-video",  # infeasible
        "web-q3-report",  # local website, browser download
        "desktop-preferences",  # in-memory state of a desktop app: GUI only
    ],
)
def test_reference_solution_scores_full_marks(task_id: str, built_fixtures: Path, tmp_path: Path) -> None:
    check_valid(validate_task(BY_ID[task_id], built_fixtures, tmp_path))


@pytest.mark.apps
def test_validate_command_prints_the_table_and_total_time(built_fixtures: Path, tmp_path: Path) -> None:
    args = [
        "validate",
        "--task-id",
        "calc-reorder-list",
        "--results",
        str(tmp_path),
        "--cache",
        str(built_fixtures),
    ]
    for _ in range(2):  # a second validation into the same folder replays again
        result = CliRunner().invoke(eval_app, args, env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert "calc-reorder-list" in result.output and "10/10" in result.output
        assert "1/1 tasks valid; total time" in result.output


def test_validate_command_rejects_an_unknown_task() -> None:
    result = CliRunner().invoke(eval_app, ["validate", "--task-id", "no-such-task"])
    assert result.exit_code == 2
    assert "no task no-such-task" in result.output


# -- wrong solutions get partial credit -----------------------------------------------------
def altered(task: SuiteTask, folder: Path, change) -> Path:
    script = solution(task)
    change(script["roles"]["main"])
    path = folder / f"{task.id}.wrong.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return path


@pytest.mark.apps
def test_a_wrong_order_quantity_earns_partial_credit(built_fixtures: Path, tmp_path: Path) -> None:
    task = BY_ID["calc-reorder-list"]

    def wrong_formula(turns: list[dict]) -> None:
        for call in calls_in(turns):
            command = call["input"].get("command", "")
            call["input"]["command"] = command.replace("2 * level - stock", "level - stock")

    row = validate_task(task, built_fixtures, tmp_path, solution=altered(task, tmp_path, wrong_formula))
    assert row.status == "finished"
    assert row.score == 0.0 and not row.valid
    assert 0.0 < row.partial < 1.0
    assert row.met == row.checkpoints - 2  # the first and last Order Qty cells


@pytest.mark.apps
def test_finishing_an_infeasible_task_as_done_misses_one_checkpoint(
    built_fixtures: Path, tmp_path: Path
) -> None:
    task = BY_ID["impress-embed-usb-video"]

    def claim_done(turns: list[dict]) -> None:
        calls_in(turns)[-1]["input"]["infeasible"] = False

    row = validate_task(task, built_fixtures, tmp_path, solution=altered(task, tmp_path, claim_done))
    assert row.score == 0.0
    assert row.met == row.checkpoints - 1
    assert row.partial == pytest.approx((row.checkpoints - 1) / row.checkpoints)


@pytest.mark.apps
def test_a_harness_without_the_web_subagent_scores_lower_on_a_web_task(
    built_fixtures: Path, tmp_path: Path
) -> None:
    row = validate_task(BY_ID["web-q3-report"], built_fixtures, tmp_path, harness="bash-only")
    assert not row.valid
    assert row.partial < 1.0 and row.score == 0.0
    assert "delegate_web" in row.error
