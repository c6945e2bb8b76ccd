"""The `stateact` command line end to end, with the scripted provider and a real local sandbox."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.app.exit_codes import ExitCode
from stateact.kernel.events import read_events
from stateact.kernel.models import API_KEYS
from stateact.kernel.runlog import load_message

REPO = Path(__file__).resolve().parents[1]
QUICKSTART = REPO / "stateact" / "examples" / "quickstart.json"
WORKDIR = Path("/tmp/stateact-quickstart")  # a fixed --workdir; the script names it as /home/user


def stateact(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stateact", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", "PYTHONPATH": str(REPO)},
    )


def stateact_in_process(
    *args: str, cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> subprocess.CompletedProcess:
    """The command line's own checks run in this process, in `cwd`, with no model key or endpoint set."""
    monkeypatch.chdir(cwd)
    for variables in API_KEYS.values():
        for variable in variables:
            monkeypatch.delenv(variable, raising=False)
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"}, catch_exceptions=False)
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def only_run_dir(runs: Path) -> Path:
    (run_dir,) = list(runs.iterdir())
    return run_dir


@pytest.mark.slow
def test_scripted_multi_step_file_task(tmp_path):
    subprocess.run(["rm", "-rf", str(WORKDIR)], check=True)
    runs = tmp_path / "runs"
    done = stateact(
        "run",
        "Write ~/notes/todo.md: a Todo heading, items 'buy milk' and 'call Bob', 'call Bob' checked.",
        "--model",
        f"scripted:{QUICKSTART}",
        "--workdir",
        str(WORKDIR),
        "--no-display",
        "--runs-root",
        str(runs),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "finished after 9 turns" in done.stdout
    assert re.search(r"^main step 1 · run so far: [\d,]+ tokens, \$0\.0000$", done.stdout, re.MULTILINE)
    assert "gate#1 step 1 · run so far:" in done.stdout  # one running total across roles
    assert (WORKDIR / "notes" / "todo.md").read_text() == "# Todo\n\n- [ ] buy milk\n- [x] call Bob\n"

    run_dir = only_run_dir(runs)
    config = json.loads((run_dir / "config.json").read_text())
    assert config["models"]["main"] == f"scripted:{QUICKSTART}"
    result = json.loads((run_dir / "result.json").read_text())
    assert result["status"] == "finished" and result["turns"] == 9 and result["infeasible"] is False
    assert result["gate_passed"] is True
    assert set(result["spend"]["by_role"]) == {"main", "gate"}
    plan = json.loads((run_dir / "plan.json").read_text())
    assert [item["status"] for item in plan["items"]] == ["done", "done", "done"]
    assert [item["verified_by"] for item in plan["items"]] == ["gate", "probe", "gate"]

    events = list(read_events(run_dir / "events.jsonl"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_start" and kinds[-1] == "run_end"
    assert kinds.count("tool_call") == kinds.count("tool_result") == 9 + 2  # main, then the gate's two
    verdict = next(e for e in events if e.kind == "gate_verdict")
    assert verdict.scope == "gate#1" and verdict.passed is True
    main_events = [e for e in events if e.scope == "main"]
    history = [load_message(e.message, run_dir) for e in main_events if e.kind == "message"]
    assert [m.role for m in history] == ["user", "assistant"] * 9 + ["user"]
    calls = [b.id for m in history for b in m.tool_uses()]
    answers = [b.tool_use_id for m in history for b in m.tool_results()]
    assert calls == answers

    shown = stateact("show", str(run_dir), cwd=tmp_path)
    assert shown.returncode == 0
    assert "str_replace_based_edit_tool" in shown.stdout and "finished" in shown.stdout


@pytest.mark.slow
def test_script_running_out_ends_with_error_and_a_complete_run_folder(tmp_path):
    script = tmp_path / "short.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "bash", "input": {"command": "echo one"}}]}]))
    runs = tmp_path / "runs"
    done = stateact(
        "run",
        "Do two things.",
        "--model",
        f"scripted:{script}",
        "--workdir",
        str(tmp_path / "home"),
        "--no-display",
        "--runs-root",
        str(runs),
        cwd=tmp_path,
    )
    assert done.returncode == ExitCode.ERROR
    assert "error" in done.stderr
    run_dir = only_run_dir(runs)
    result = json.loads((run_dir / "result.json").read_text())
    assert result["status"] == "error"
    assert "script exhausted" in result["text"]
    assert any(e.kind == "error" for e in read_events(run_dir / "events.jsonl"))


def test_bad_model_spec_and_harness_are_clear_errors(tmp_path, monkeypatch):
    bad_spec = stateact_in_process(
        "run",
        "x",
        "--model",
        "nonsense",
        "--no-display",
        "--runs-root",
        str(tmp_path),
        cwd=tmp_path,
        monkeypatch=monkeypatch,
    )
    assert bad_spec.returncode == 2
    assert "bad model spec" in bad_spec.stdout + bad_spec.stderr
    bad_harness = stateact_in_process(
        "run",
        "x",
        "--model",
        "scripted:quickstart",
        "--harness",
        "nope",
        "--no-display",
        "--runs-root",
        str(tmp_path),
        cwd=tmp_path,
        monkeypatch=monkeypatch,
    )
    assert bad_harness.returncode == 2
    assert "unknown harness" in bad_harness.stderr


def test_show_refuses_a_folder_without_a_log(tmp_path, monkeypatch):
    shown = stateact_in_process("show", str(tmp_path), cwd=tmp_path, monkeypatch=monkeypatch)
    assert shown.returncode == 2
    assert "no events.jsonl" in shown.stderr


@pytest.mark.apps
@pytest.mark.slow
def test_pixel_harness_runs_on_the_local_desktop_and_can_declare_infeasible(tmp_path):
    script = tmp_path / "pixel.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {"name": "computer", "input": {"action": "mouse_move", "coordinate": [640, 400]}}
                    ]
                },
                {
                    "tool_calls": [
                        {"name": "fail", "input": {"reason": "There is no printer on this desktop."}}
                    ]
                },
            ]
        )
    )
    runs = tmp_path / "runs"
    done = stateact(
        "run",
        "Print the report on the office printer.",
        "--model",
        f"scripted:{script}",
        "--harness",
        "pixel",
        "--workdir",
        str(tmp_path / "home"),
        "--runs-root",
        str(runs),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    run_dir = only_run_dir(runs)
    result = json.loads((run_dir / "result.json").read_text())
    assert result["status"] == "finished" and result["infeasible"] is True and result["turns"] == 2
    assert len(list((run_dir / "images").glob("*.png"))) >= 2  # the first look and the screen after the move
    start = next(e for e in read_events(run_dir / "events.jsonl") if e.kind == "loop_start")
    assert sorted(start.tools) == ["computer", "done", "fail"]


SUITE = REPO / "evals" / "suites" / "office"
REFUSED_AT_ONCE = {
    "no turns": (["run", "x", "--max-steps", "0"], "error: --max-steps must be at least 1 (got 0)"),
    "negative dollars": (["run", "x", "--max-usd", "-1"], "error: --max-usd must be more than 0 (got -1)"),
    "no time": (["run", "x", "--max-minutes", "0"], "error: --max-minutes must be more than 0 (got 0)"),
    "no API key": (
        ["run", "x", "--model", "anthropic:claude-sonnet-4-5"],
        "error: anthropic:claude-sonnet-4-5 needs ANTHROPIC_API_KEY in the environment",
    ),
    "no API key for a role": (
        ["run", "x", "--model", "scripted:quickstart", "--gate-model", "openai:gpt-4.1"],
        "error: openai:gpt-4.1 needs OPENAI_API_KEY in the environment",
    ),
    "resume with no turns": (
        ["resume", "runs/x", "--max-steps", "0"],
        "error: --max-steps must be at least 1",
    ),
    "relay folder missing": (["relay", "no-such-folder"], "error: no relay folder no-such-folder"),
    "suite with a bad model": (
        ["eval", "run", str(SUITE), "--model", "foo:bar"],
        "error: bad model spec 'foo:bar'",
    ),
    "suite with no dollars": (
        ["eval", "run", str(SUITE), "--max-usd", "0"],
        "error: --max-usd must be more than 0 (got 0)",
    ),
    "memory that is not a size": (
        ["run", "x", "--model", "scripted:quickstart", "--max-memory", "lots"],
        "error: not a size: 'lots'",
    ),
    "suite with too few processes": (
        ["eval", "run", str(SUITE), "--max-processes", "3"],
        "error: --max-processes must be at least 32 (got 3)",
    ),
    "unknown harness": (
        ["run", "x", "--model", "scripted:quickstart", "--harness", "nope"],
        "error: unknown harness 'nope'",
    ),
    "script missing": (
        ["run", "x", "--model", "scripted:/no/such.json"],
        "error: scripted:/no/such.json: no script file /no/such.json",
    ),
    "script that does not parse": (
        ["run", "x", "--model", "scripted:{bad}"],
        "error: scripted:{bad}: cannot read script {bad}: Expecting",
    ),
    "script for a role that does not parse": (
        ["run", "x", "--model", "scripted:quickstart", "--gui-model", "scripted:{bad}"],
        "error: scripted:{bad}: cannot read script",
    ),
    "relay folder whose parent is missing": (
        ["run", "x", "--model", "relay:/no/such/relay"],
        "error: relay:/no/such/relay: the folder's parent /no/such does not exist",
    ),
    "relay folder that is a file": (
        ["run", "x", "--model", "relay:{bad}"],
        "error: relay:{bad}: {bad} is not a folder",
    ),
    "task file missing": (
        ["run", "--task", "/no/such/task.json", "--model", "scripted:quickstart"],
        "error: task file not found: /no/such/task.json",
    ),
    "task file that does not parse": (
        ["run", "--task", "{bad}", "--model", "scripted:quickstart"],
        "error: {bad} is not valid JSON",
    ),
    "suite with a relay folder whose parent is missing": (
        ["eval", "run", str(SUITE), "--model", "relay:/no/such/relay"],
        "error: relay:/no/such/relay: the folder's parent /no/such does not exist",
    ),
    "suite with no tasks": (["eval", "run", "{empty}"], "error: no task files in {empty}"),
    "validating a suite with no tasks": (["eval", "validate", "{empty}"], "error: no task files in {empty}"),
    "checking a suite with no tasks": (["eval", "check", "{empty}"], "error: no task files in {empty}"),
}


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory) -> dict[str, str]:
    """Files the refused cases name, outside the folder they run in: a file that is not JSON, an empty
    folder."""
    folder = tmp_path_factory.mktemp("inputs")
    (folder / "bad.json").write_text("{not json")
    (folder / "empty").mkdir()
    return {"bad": str(folder / "bad.json"), "empty": str(folder / "empty")}


@pytest.mark.parametrize("case", list(REFUSED_AT_ONCE))
def test_bad_arguments_are_refused_before_anything_starts(tmp_path, monkeypatch, case, bad_inputs):
    args, message = REFUSED_AT_ONCE[case]
    args = [arg.format(**bad_inputs) for arg in args]
    message = message.format(**bad_inputs)
    done = stateact_in_process(*args, cwd=tmp_path, monkeypatch=monkeypatch)
    assert done.returncode == ExitCode.USAGE, done.stdout + done.stderr
    assert done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == [], "nothing was made: no run folder, no results, no fixtures"


@pytest.mark.slow
def test_a_key_is_not_needed_for_another_endpoint_and_the_version_is_printed(tmp_path):
    from importlib.metadata import version

    from stateact.kernel.models import missing_api_key

    assert missing_api_key("openai:qwen@http://127.0.0.1:8000/v1") is None
    assert missing_api_key("anthropic:claude@http://127.0.0.1:9/") is None
    assert missing_api_key("scripted:quickstart") is None
    shown = stateact("--version", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout == f"stateact {version('stateact')}\n"
