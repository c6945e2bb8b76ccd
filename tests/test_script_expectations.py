"""Scripted turns that look at what they get: whole runs with a real bash and a real gate loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.app.config import RunConfig
from stateact.app.run import execute
from stateact.kernel.events import read_events
from stateact.kernel.models.script_expectations import exit_code
from stateact.kernel.runtime import RoleModels


def bash(command: str, **expect) -> dict:
    turn = {"tool_calls": [{"name": "bash", "input": {"command": command}}]}
    return {"expect": expect, **turn} if expect else turn


def finish(**expect) -> dict:
    turn = {"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]}
    return {"expect": expect, **turn} if expect else turn


def run_script(tmp_path: Path, roles: dict, harness: str = "no-verify"):
    tmp_path.mkdir(parents=True, exist_ok=True)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"roles": roles}))
    config = RunConfig(
        instruction="Write ~/out.txt.",
        models=RoleModels(main=f"scripted:{script}"),
        harness=harness,
        workdir=tmp_path / "home",
        display=False,
        runs_root=tmp_path / "runs",
    )
    return execute(config)


@pytest.mark.slow
def test_a_script_that_meets_its_expectations_finishes(tmp_path):
    result = run_script(
        tmp_path,
        {
            "main": [
                bash("echo hello > ~/out.txt && cat ~/out.txt"),
                bash("grep -c nothing ~/out.txt", exit=0, contains="hello"),
                finish(exit=1, contains="0"),
            ]
        },
    )
    assert result.status == "finished", result.text


@pytest.mark.slow
def test_an_undeclared_non_zero_exit_ends_the_run_in_error(tmp_path):
    result = run_script(tmp_path, {"main": [bash("cat ~/missing.txt"), finish()]})

    assert result.status == "error"
    assert "script expectation failed at main turn 2: result 1 (`bash`) shows exit 1, expected exit 0" in (
        result.text
    )
    assert "No such file or directory" in result.text
    errors = [e for e in read_events(Path(result.run_dir) / "events.jsonl") if e.kind == "error"]
    assert errors and errors[0].error == "ScriptExpectationError"


@pytest.mark.parametrize(
    ("expect", "problem"),
    [
        ({"contains": "goodbye"}, "does not contain 'goodbye'"),
        ({"not_contains": "hello"}, "contains 'hello'"),
        ({"is_error": True}, "was expected to be an error result"),
        ({"exit": 3}, "shows exit 0, expected exit 3"),
        ({"exitcode": 3}, "malformed `expect`"),
        ([{}, {}], "`expect` has 2 entries but the previous turn gave 1 tool result(s)"),
    ],
)
@pytest.mark.slow
def test_each_kind_of_unmet_expectation_names_the_turn_and_the_problem(tmp_path, expect, problem):
    turns = [bash("echo hello"), {"expect": expect, **finish()}]

    result = run_script(tmp_path, {"main": turns})

    assert result.status == "error"
    assert "script expectation failed at main turn 2" in result.text and problem in result.text


@pytest.mark.slow
def test_an_unmet_expectation_inside_the_gate_ends_the_whole_run(tmp_path):
    """Not swallowed as a gate without a verdict: the run itself is an error."""
    gate = [bash("cat ~/out.txt"), {"expect": {"contains": "goodbye"}, "tool_calls": []}]

    result = run_script(
        tmp_path, {"main": [bash("echo hello > ~/out.txt"), finish()], "gate": gate}, harness="stateact"
    )

    assert result.status == "error"
    assert "script expectation failed at gate turn 2" in result.text
    assert "does not contain 'goodbye'" in result.text


@pytest.mark.slow
def test_a_tool_error_is_accepted_only_where_declared(tmp_path):
    bad_edit = {
        "tool_calls": [{"name": "str_replace_based_edit_tool", "input": {"command": "view", "path": "x"}}]
    }
    declared = run_script(tmp_path / "a", {"main": [bad_edit, finish(is_error=True, contains="absolute")]})
    undeclared = run_script(tmp_path / "b", {"main": [bad_edit, finish()]})

    assert declared.status == "finished", declared.text
    assert undeclared.status == "error" and "is an error result" in undeclared.text


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("out\n[exit 2 · cwd /home/user]", 2),
        ("[interrupted · exit 130 · cwd /tmp]", 130),
        ("listing\n[exit code 0]", 0),
        ("[still running after 30s: …]", None),
        ("no status line", None),
    ],
)
def test_exit_codes_are_read_from_the_status_line_of_both_shells(text, code):
    assert exit_code(text) == code


@pytest.mark.slow
def test_a_call_to_a_tool_the_variant_lacks_is_not_checked_but_its_neighbours_are(tmp_path):
    """A script for the full harness replayed on `bash-only`: its editor call is the variant's loss."""
    turn = {
        "tool_calls": [
            {"name": "str_replace_based_edit_tool", "input": {"command": "view", "path": str(tmp_path)}},
            {"name": "bash", "input": {"command": "echo hello"}},
        ]
    }
    edited = [{"contains": "Directory listing"}]

    lenient = run_script(tmp_path / "a", {"main": [turn, {"expect": [*edited, {}], **finish()}]}, "bash-only")
    checked = run_script(
        tmp_path / "b", {"main": [turn, {"expect": [*edited, {"contains": "bye"}], **finish()}]}, "bash-only"
    )

    assert lenient.status == "finished", lenient.text
    assert checked.status == "error" and "result 2 (`bash`) does not contain 'bye'" in checked.text
