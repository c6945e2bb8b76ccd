"""`stateact eval run`: two harness variants play the tasks' reference solutions; table, CSV, resume, errors."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from stateact.app.exit_codes import ExitCode
from stateact.evals.cli import eval_app, report
from stateact.evals.reports.task_metrics import collect_metrics
from stateact.evals.running.jobs import SuiteOptions
from stateact.evals.running.suite_runner import run_suite
from stateact.kernel.events import read_events
from stateact.sandbox.processes import tagged_pids

APP_FIXTURES = frozenset({"results"})
"""The fixtures here that start a real application: their tests are marked `apps`."""

SUITE = Path(__file__).parent / "fixtures" / "evalsuite"
HARNESSES = "no-verify,bash-only"


def stateact_cli() -> typer.Typer:
    """The commands mounted as the main CLI mounts them: `stateact eval …` and `stateact report`."""
    app = typer.Typer()
    app.add_typer(eval_app, name="eval")
    app.command("report")(report)
    return app


def run_cli(*args: str) -> tuple[int, str]:
    """Exit code and output, with the terminal's line wrapping undone."""
    result = CliRunner().invoke(stateact_cli(), list(args), catch_exceptions=False)
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """One suite run: 3 tasks x 2 harnesses, two workers, each job on its own sandbox and display."""
    root = tmp_path_factory.mktemp("results")
    code, output = run_cli(
        "eval", "run", str(SUITE), "--harness", HARNESSES, "--workers", "2", "--results", str(root)
    )
    assert code == 0, output
    return root


def _csv_rows(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    return {(r["harness"], r["domain"]): r for r in csv.DictReader(io.StringIO(path.read_text()))}


def test_the_variant_without_the_editor_scores_lower(results):
    rows = _csv_rows(results / "summary.csv")
    assert set(rows) == {(h, d) for h in ("no-verify", "bash-only") for d in ("files", "os", "all")}
    full, bash = rows[("no-verify", "all")], rows[("bash-only", "all")]
    assert (int(full["tasks"]), float(full["binary"]), float(full["partial"])) == (3, 1.0, 1.0)
    assert int(bash["tasks"]) == 3
    assert float(bash["binary"]) == pytest.approx(2 / 3)
    assert float(bash["partial"]) == pytest.approx((1 + 1 + 2 / 3) / 3)
    assert float(rows[("bash-only", "os")]["partial"]) == pytest.approx((1 + 2 / 3) / 2)
    assert float(rows[("bash-only", "files")]["binary"]) == 1.0
    assert float(full["main_turns"]) == pytest.approx((4 + 2 + 2) / 3)
    assert (
        int(full["input_tokens"]) > int(bash["input_tokens"]) > 0
    )  # the editor's schema is in every request

    tasks = {
        (r["harness"], r["task_id"]): r
        for r in csv.DictReader(io.StringIO((results / "tasks.csv").read_text()))
    }
    notes = tasks[("bash-only", "notes")]
    assert (notes["checkpoints_met"], notes["checkpoints"], notes["binary"]) == ("2", "3", "False")
    assert tasks[("no-verify", "notes")]["checkpoints_met"] == "3"
    events = (results / "bash-only" / "reference" / "os" / "notes" / "run" / "events.jsonl").read_text()
    assert "Unknown tool `str_replace_based_edit_tool`" in events  # an error result, and the script went on
    assert (
        json.loads(
            (results / "bash-only" / "reference" / "os" / "notes" / "run" / "result.json").read_text()
        )["status"]
        == "finished"
    )


def test_markdown_table(results):
    lines = (results / "summary.md").read_text().splitlines()
    assert lines[0].startswith(
        "| harness | model | role models | domain | tasks scored | success % | partial % | main turns/task "
        "| subagent turns/task"
    )
    assert (
        "| bash-only | reference | - | os | 2 | 50.0% | 83.3% | 3.0 | 0.0 | 0.0 | 0.0 | 0/0 |"
        in "\n".join(lines)
    )
    assert "| no-verify | reference | - | all | 3 | 100.0% | 100.0% |" in "\n".join(lines)
    assert len(lines) == 2 + 6


def test_results_follow_the_osworld_layout(results):
    task = results / "no-verify" / "reference" / "files" / "shout"
    assert float((task / "result.txt").read_text()) == 1.0
    assert (task / "traj.jsonl").read_text().count("\n") == 2
    assert (results / "no-verify" / "reference" / "args.json").is_file()
    solution = json.loads((task / "reference_solution.json").read_text())
    assert "/home/user/output.txt" in json.dumps(solution)  # the isolated sandbox's home is /home/user
    assert not (results / ".sandboxes").exists()


def test_a_second_run_skips_done_tasks_and_redoes_the_rest(results, tmp_path):
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    undone = copy / "bash-only" / "reference" / "os" / "notes"
    (undone / "result.txt").unlink()
    done = copy / "no-verify" / "reference" / "os" / "notes" / "run" / "events.jsonl"
    before = done.read_bytes()
    events: list[tuple[str, str]] = []
    options = SuiteOptions(
        SUITE, ("no-verify", "bash-only"), "reference", copy, cache=SUITE / "cache", workers=2, display=False
    )
    outcomes = run_suite(options, lambda event, job, outcome: events.append((event, job.label)))
    assert [o.job.label for o in outcomes if not o.skipped] == ["bash-only/os/notes"]
    assert sum(o.skipped for o in outcomes) == 5
    assert float((undone / "result.txt").read_text()) == 0.0
    assert done.read_bytes() == before
    assert len([e for e in events if e[0] == "end"]) == 6
    run_starts = (undone / "run" / "events.jsonl").read_text().count('"kind": "run_start"')
    assert run_starts == 1  # the stale attempt's log was cleared, not appended to


@pytest.mark.slow
def test_a_job_that_fails_outside_the_agent_is_an_error_row_and_runs_again(tmp_path, built_fixtures):
    suite = tmp_path / "suite"
    shutil.copytree(SUITE / "files", suite / "files")
    (suite / "files" / "shout.solution.json").unlink()
    results = tmp_path / "results"
    args = (
        "eval",
        "run",
        str(suite),
        "--harness",
        "bash-only",
        "--results",
        str(results),
        "--no-display",
        "--no-html",
        "--cache",
        str(built_fixtures),  # built once for the test run, not at each run here
    )
    code, output = run_cli(*args)
    assert code == 1
    assert "no reference solution" in output
    [metrics] = collect_metrics(results)
    assert (metrics.status, metrics.score, metrics.binary, metrics.failed) == ("error", None, None, True)
    assert metrics.error_stage == "setup"
    assert "not scored" in (results / "summary.md").read_text()
    all_row = _csv_rows(results / "summary.csv")[("bash-only", "all")]
    assert (all_row["errors"], all_row["tasks"], all_row["binary"]) == ("1", "0", "")  # no score, not a 0

    shutil.copyfile(SUITE / "files" / "shout.solution.json", suite / "files" / "shout.solution.json")
    code, output = run_cli(*args)
    assert code == 0, output
    [metrics] = collect_metrics(results)
    assert (metrics.status, metrics.score) == ("finished", 1.0)


@pytest.mark.slow
def test_another_gui_model_runs_again_and_the_tables_name_each_role_model(tmp_path, built_fixtures):
    results = tmp_path / "results"
    args = (
        "eval",
        "run",
        str(SUITE),
        "--task-id",
        "shout",
        "--harness",
        "bash-only",
        "--results",
        str(results),
        "--cache",
        str(built_fixtures),  # built once for the test run, not at each of the three runs here
    )
    gui_models = [f"openai:grounder-{n}@http://127.0.0.1:9/v1" for n in (1, 2)]
    for gui_model in gui_models:
        code, output = run_cli(*args, "--no-display", "--gui-model", gui_model)
        assert code == 0, output
    assert run_cli(*args, "--no-display", "--no-html", "--gui-model", gui_models[1])[0] == 0  # done: skipped
    rows = list(csv.DictReader(io.StringIO((results / "summary.csv").read_text())))
    shown = {r["roles"] for r in rows if r["domain"] == "all"}
    assert shown == {f"gui={spec}" for spec in gui_models}
    folders = {path.name for path in (results / "bash-only").iterdir()}
    assert len(folders) == 2 and all(name.startswith("reference+roles-") for name in folders)
    report = (results / "report" / "index.html").read_text()
    assert all(spec in report for spec in gui_models)


def test_bad_arguments_are_clear_errors(tmp_path):
    code, output = run_cli(
        "eval", "run", str(SUITE), "--harness", "stateact,telepathy", "--results", str(tmp_path)
    )
    assert code == 2 and "unknown harness 'telepathy'" in output
    code, output = run_cli("eval", "run", str(tmp_path / "nowhere"), "--results", str(tmp_path))
    assert code == 2 and "no suite folder" in output
    code, output = run_cli("eval", "run", str(SUITE), "--task-id", "nosuch", "--results", str(tmp_path))
    assert code == 2 and "no task nosuch" in output
    code, output = run_cli("report", str(tmp_path / "nowhere"))
    assert code == 2 and "is not a folder" in output


def peeking_suite(root: Path, results: Path) -> Path:
    """The `shout` task, and `peek`: its solution lists the processes and tries to read its own task
    file and the results folder; it scores 1 only when it saw neither and no Python of the harness."""
    shutil.copytree(SUITE / "files", root / "files")
    task = root / "os" / "peek.json"
    seen = "/home/user/seen.txt"
    look = f"{{ ps -e -o comm=; cat {task} && echo READ-TASK; ls {results} && echo READ-RESULTS; }} > {seen} 2>&1"
    task.parent.mkdir()
    task.write_text(
        json.dumps(
            {
                "id": "peek",
                "instruction": "Look around.",
                "config": [],
                "evaluator": {
                    "func": "check_include_exclude",
                    "result": {"type": "vm_command_line", "command": f"cat {seen}", "shell": True},
                    "expected": {
                        "type": "rule",
                        "rules": {"include": ["ps"], "exclude": ["READ-TASK", "READ-RESULTS", "python"]},
                    },
                },
            }
        )
    )
    steps = [
        {"tool_calls": [{"name": "bash", "input": {"command": look}}]},
        {"tool_calls": [{"name": "finish", "input": {"summary": "looked"}}]},
    ]
    task.with_suffix(".solution.json").write_text(json.dumps(steps))
    return root


@pytest.mark.parametrize(("isolation", "peek_score"), [("bwrap", 1.0), ("none", 0.0)])
@pytest.mark.slow
def test_local_slots_are_isolated_by_default_and_scores_do_not_change(tmp_path, isolation, peek_score):
    results = tmp_path / "results"
    suite = peeking_suite(tmp_path / "suite", results)
    flags = () if isolation == "bwrap" else ("--isolation", "none")  # bwrap is the default
    args = ("eval", "run", str(suite), "--harness", "bash-only", "--results", str(results), "--no-display")
    code, output = run_cli(*args, "--no-html", *flags)
    assert code == 0, output
    assert ("--isolation none: the agent's commands run as host processes" in output) == (isolation == "none")
    scores = {m.task_id: m.score for m in collect_metrics(results)}
    assert scores == {"shout": 1.0, "peek": peek_score}
    config = results / "bash-only" / "reference" / "os" / "peek" / "run" / "config.json"
    assert json.loads(config.read_text())["isolation"] == isolation


def test_an_unknown_isolation_is_a_clear_error(tmp_path):
    code, output = run_cli("eval", "run", str(SUITE), "--results", str(tmp_path), "--isolation", "chroot")
    assert code == 2 and "unknown isolation 'chroot': use one of bwrap, none" in output


def _suite_on_a_silent_model(results: Path, relay: Path, cache: Path) -> subprocess.Popen:
    """Two jobs of the suite whose model never answers (a relay nobody plays), two workers."""
    args = ["eval", "run", str(SUITE), "--harness", "bash-only", "--model", f"relay:{relay}"]
    args += ["--cache", str(cache)]
    args += [
        "--task-id",
        "shout",
        "--task-id",
        "notes",
        "--workers",
        "2",
        "--results",
        str(results),
        "--no-html",
    ]
    return subprocess.Popen(
        [sys.executable, "-m", "stateact", *args],
        cwd=Path(__file__).resolve().parents[1],
        env={**os.environ, "COLUMNS": "300"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_for_both_jobs_to_ask(results: Path, proc: subprocess.Popen) -> list[Path]:
    """The run folders of the two jobs, once each is running (no result yet) with a model request pending."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        logs = sorted(results.glob("**/events.jsonl"))
        kinds = [[e.kind for e in read_events(log, lenient=True)] for log in logs]
        fresh = not any((log.parent / "result.json").exists() for log in logs)
        if len(logs) == 2 and fresh and all(k and k[-1] == "request" for k in kinds):
            return [log.parent for log in logs]
        time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"the two jobs never asked their model: {proc.communicate()[0]}")


@pytest.mark.apps
def test_a_stop_interrupts_the_running_jobs_and_the_same_command_runs_them_again(tmp_path, built_fixtures):
    results, relay = tmp_path / "results", tmp_path / "relay"
    for sig, code in [(signal.SIGINT, ExitCode.INTERRUPTED), (signal.SIGTERM, ExitCode.TERMINATED)]:
        proc = _suite_on_a_silent_model(results, relay, built_fixtures)
        run_dirs = _wait_for_both_jobs_to_ask(results, proc)
        tags = [
            e.sandbox_tag for d in run_dirs for e in read_events(d / "events.jsonl") if e.kind == "run_start"
        ]
        proc.send_signal(sig)
        started = time.monotonic()
        output, _ = proc.communicate(timeout=60)
        assert time.monotonic() - started < 10, output
        assert proc.returncode == code, output
        assert output.count("stopping") == 2 and "the same command resumes" in output, output
        for run_dir in run_dirs:
            assert json.loads((run_dir / "result.json").read_text())["status"] == "interrupted"
            assert not (run_dir.parent / "result.txt").exists(), "an interrupted job has no score"
        assert not (results / ".sandboxes").exists()
        assert [pid for tag in tags for pid in tagged_pids(tag)] == [], "no sandbox process (Xvfb) is left"
