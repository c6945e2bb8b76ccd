"""Scores at step budgets (`--checkpoint-steps`): steps are every role's tool calls, a task is scored when
its count passes each budget into result_step_N.txt/.json, one not safe to score mid-run is recorded as
skipped with the reason, a budget never reached gets the final score, and the report draws the curve."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.evals.osworld.task import Task
from stateact.evals.reports.budget_curve import budget_points
from stateact.evals.reports.html_report import _series_label
from stateact.evals.reports.task_metrics import collect_metrics
from stateact.evals.running.budget_scores import steps_in, unsafe_reason
from stateact.evals.running.step_budgets import parse_budgets
from stateact.kernel.events import ToolCall, ToolCutOff
from stateact.kernel.runlog import RunLog
from tests.test_eval_runner import run_cli as run_eval_cli


def test_budgets_are_positive_whole_numbers():
    assert parse_budgets("300,150,150") == (150, 300)
    assert parse_budgets(None) == ()
    for bad in ("150,", "abc", "0", "-5", "1.5"):
        with pytest.raises(ValueError, match="--checkpoint-steps takes positive whole numbers"):
            parse_budgets(bad)


def test_every_role_s_tool_calls_are_steps_and_a_cut_off_call_is_not(tmp_path):
    log = RunLog(tmp_path / "run")
    for scope in ("main", "gui#1", "web#1", "gate#1", "main"):
        log.emit(ToolCall(scope=scope, id="c", name="bash"))
    log.emit(ToolCutOff(scope="main", id="d", name="bash"))
    log.close()
    assert steps_in(tmp_path / "run") == 5


def task(postconfig: list[dict], **fields) -> Task:
    evaluator = {"func": "check_include_exclude", "postconfig": postconfig}
    return Task.model_validate({"id": "t", "instruction": "i", "evaluator": evaluator, **fields})


def test_a_task_whose_postconfig_acts_on_applications_is_not_scored_mid_run_unless_it_says_so():
    save = {"type": "execute", "parameters": {"command": "xdotool key ctrl+s"}}
    close = {"type": "close_window", "parameters": {"window_name": "Calc"}}
    assert unsafe_reason(task([])) == ""
    assert unsafe_reason(task([{"type": "sleep", "parameters": {"seconds": 1}}])) == ""
    assert "postconfig acts on the applications (close_window, execute)" in unsafe_reason(task([save, close]))
    assert unsafe_reason(task([save], checkpoint_safe=True)) == ""
    assert "checkpoint_safe: false" in unsafe_reason(task([], checkpoint_safe=False))


def test_bad_checkpoint_steps_are_refused_before_any_run(tmp_path):
    script = tmp_path / "script.json"
    script.write_text("[]")
    args = ["run", "do it", "--model", f"scripted:{script}", "--checkpoint-steps", "5"]
    refused = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
    assert refused.exit_code == 2 and "--checkpoint-steps scores a task file: give --task" in refused.output
    two_part_task(tmp_path, "t", [])
    task = ["run", "--task", str(tmp_path / "os" / "t.json"), *args[2:], "--best-of", "2"]
    refused = CliRunner().invoke(app, task, env={"COLUMNS": "300"})
    assert refused.exit_code == 2 and "with --best-of, use `eval run`" in refused.output
    code, output = run_eval_cli("eval", "run", str(tmp_path), "--checkpoint-steps", "10,x")
    assert code == 2 and "positive whole numbers separated by commas, not 'x'" in output


def two_part_task(suite: Path, task_id: str, postconfig: list[dict]) -> None:
    """A task that needs `alpha` and `beta` in ~/out.txt; its solution writes one per step."""
    folder = suite / "os"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{task_id}.json").write_text(
        json.dumps(
            {
                "id": task_id,
                "instruction": "Write alpha and beta into ~/out.txt.",
                "config": [],
                "evaluator": {
                    "func": "check_include_exclude",
                    "result": {"type": "vm_command_line", "command": "cat /home/user/out.txt", "shell": True},
                    "expected": {"type": "rule", "rules": {"include": ["alpha", "beta"], "exclude": []}},
                    "postconfig": postconfig,
                },
            }
        )
    )
    steps = [
        {"tool_calls": [{"name": "bash", "input": {"command": "echo alpha > ~/out.txt"}}]},
        {"tool_calls": [{"name": "bash", "input": {"command": "echo beta >> ~/out.txt"}}]},
        {"tool_calls": [{"name": "finish", "input": {"summary": "wrote both"}}]},
    ]
    (folder / f"{task_id}.solution.json").write_text(json.dumps(steps))


@pytest.mark.slow
def test_a_suite_is_scored_at_each_budget_and_the_report_draws_the_curve(tmp_path, built_fixtures):
    suite, results = tmp_path / "suite", tmp_path / "results"
    two_part_task(suite, "safe", [])
    two_part_task(suite, "saves-first", [{"type": "execute", "parameters": {"command": "true"}}])
    args = ("eval", "run", str(suite), "--harness", "no-verify", "--results", str(results), "--no-display")
    args += ("--cache", str(built_fixtures))  # not built anew for this run
    code, output = run_eval_cli(*args, "--checkpoint-steps", "1,2,50", "--workers", "1")
    assert code == 0, output
    safe = results / "no-verify" / "reference" / "os" / "safe"
    records = {n: json.loads((safe / f"result_step_{n}.json").read_text()) for n in (1, 2, 50)}
    assert [(records[n]["score"], records[n]["at_step"], records[n]["reached"]) for n in (1, 2, 50)] == [
        (0.0, 1, True),  # only alpha written
        (1.0, 2, True),
        (1.0, 3, False),  # the run ended at 3 steps: its final score
    ]
    assert [(safe / f"result_step_{n}.txt").read_text() for n in (1, 2, 50)] == ["0.0\n", "1.0\n", "1.0\n"]
    assert "missing: beta" in json.dumps(records[1]["parts"])

    unsafe = results / "no-verify" / "reference" / "os" / "saves-first"
    skipped = json.loads((unsafe / "result_step_1.json").read_text())
    assert skipped["score"] is None and "postconfig acts on the applications (execute)" in skipped["skipped"]
    assert not (unsafe / "result_step_1.txt").exists() and not (unsafe / "result_step_2.txt").exists()
    assert (unsafe / "result_step_50.txt").read_text() == "1.0\n"  # not reached: the final score is safe

    (point_1, point_2, point_50) = budget_points(collect_metrics(results), _series_label)
    assert (point_1.budget, point_1.mean, point_1.scored, point_1.skipped) == (1, 0.0, 1, 1)
    assert (point_50.mean, point_50.partial, point_50.scored, point_50.reached) == (1.0, 1.0, 2, 0)
    assert records[50]["parts"][0]["score"] == 1.0  # the final scoring's checkpoints
    page = (results / "report" / "index.html").read_text()
    assert 'id="budget-curve"' in page and 'class="line" data-series="no-verify (reference)"' in page
    assert '<table id="budgets">' in page
    task_page = next((results / "report" / "tasks").glob("*__safe.html")).read_text()
    assert "score at step budget 1: 0" in task_page and "score at step budget 2: 1" in task_page
