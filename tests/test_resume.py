"""Kill -9 the harness at several points of a scripted run, resume it, and compare with an unbroken run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from stateact.app.exit_codes import ExitCode
from stateact.app.resume import load_run_state
from stateact.kernel.events import read_events
from stateact.kernel.loop import UNKNOWN_OUTCOME
from stateact.sandbox.processes import tagged_pids

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "COLUMNS": "300"}
TASK = "Write one, two and three into a.txt, b.txt and c.txt in the home folder."
LONG_COMMAND = "sleep 4; echo two > ~/b.txt"
"""The script's long bash call: long enough to kill or stop the run inside it (the kill lands 0.2 s after
the call is logged, the stop signals within a second), short enough that every full run does not wait long."""
SCRIPT = [
    {"tool_calls": [{"name": "bash", "input": {"command": "echo one > ~/a.txt"}}]},
    {"delay": 1.5, "tool_calls": [{"name": "bash", "input": {"command": LONG_COMMAND}}]},
    {
        "expect": {"is_error": None},  # a kill during the sleep leaves this call's outcome unknown
        "tool_calls": [{"name": "bash", "input": {"command": "test -f ~/b.txt || echo two > ~/b.txt"}}],
    },
    {"delay": 1.5, "tool_calls": [{"name": "bash", "input": {"command": "echo three > ~/c.txt"}}]},
    {"tool_calls": [{"name": "finish", "input": {"summary": "wrote the three files"}}]},
]


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "stateact", *args]


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The `stateact` command to its end, output captured."""
    return subprocess.run(cli(*args), cwd=REPO, env=ENV, capture_output=True, text=True, timeout=timeout)


def start_run(
    tmp_path: Path, name: str, display: bool = False, turns: list[dict] = SCRIPT, *extra: str
) -> tuple[subprocess.Popen, Path, Path]:
    """The scripted task (`turns`) in a child process; its output is piped (read it with communicate)."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    runs, home = tmp_path / f"runs-{name}", tmp_path / f"home-{name}"
    options = ["--harness", "no-verify", "--workdir", str(home), "--runs-root", str(runs)]
    options += ["--display" if display else "--no-display", *extra]
    proc = subprocess.Popen(
        cli("run", TASK, "--model", f"scripted:{script}", *options),
        cwd=REPO,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return proc, runs, home


def wait_for_event(runs: Path, matches, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for events_file in runs.glob("*/events.jsonl"):
            if any(matches(e) for e in read_events(events_file)):
                return
        time.sleep(0.05)
    raise AssertionError("the run never reached the kill point")


def files_of(home: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(home.glob("*.txt"))}


def ended(tag: str, timeout: float = 10) -> bool:
    """Whether every process tagged `tag` is gone within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while tagged_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not tagged_pids(tag)


def kill_hard(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def unbroken_files(tmp_path_factory) -> dict[str, str]:
    tmp_path = tmp_path_factory.mktemp("unbroken")
    proc, _, home = start_run(tmp_path, "unbroken")
    assert proc.wait(timeout=60) == 0
    return files_of(home)


KILL_POINTS = {
    "during a model call": lambda e: e.kind == "request" and e.scope == "main" and e.seq > 10,
    "during a long bash command": lambda e: e.kind == "tool_call" and LONG_COMMAND in json.dumps(e.input),
    "between turns": lambda e: e.kind == "tool_result" and e.id == "toolu_s0002_0",
}


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_kill_then_resume_matches_an_unbroken_run(tmp_path, unbroken_files, point):
    proc, runs, home = start_run(tmp_path, "killed")
    wait_for_event(runs, KILL_POINTS[point])
    time.sleep(0.2)
    kill_hard(proc)
    (run_dir,) = list(runs.iterdir())
    assert not (run_dir / "result.json").exists()

    resumed = run_cli("resume", str(run_dir), timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert files_of(home) == unbroken_files

    events = list(read_events(run_dir / "events.jsonl"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1)), "an event was lost or duplicated"
    assert [e.kind for e in events].count("run_resumed") == 1
    result = json.loads((run_dir / "result.json").read_text())
    assert result["status"] == "finished"
    assert result["spend"]["by_role"]["main"]["turns"] == result["turns"]

    state = load_run_state(run_dir)
    calls = Counter(b.id for m in state.history for b in m.tool_uses())
    answers = Counter(b.tool_use_id for m in state.history for b in m.tool_results())
    assert calls == answers and max(calls.values()) == 1, "every tool call is answered exactly once"
    unknown = [b for m in state.history for b in m.tool_results() if b.text() == UNKNOWN_OUTCOME]
    if point == "during a long bash command":
        assert len(unknown) == 1
    again = run_cli("resume", str(run_dir), timeout=60)
    assert again.returncode == 2 and "already finished" in again.stderr


def test_resume_refuses_a_folder_that_is_not_a_run(tmp_path):
    refused = run_cli("resume", str(tmp_path), timeout=60)
    assert refused.returncode == 2
    assert "no readable config.json" in refused.stderr


def run_out_of_turns(tmp_path: Path) -> tuple[subprocess.CompletedProcess, Path]:
    """The scripted task stopped by a two-turn budget; its run folder."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    runs = tmp_path / "runs"
    first = run_cli(
        "run",
        TASK,
        "--model",
        f"scripted:{script}",
        "--harness",
        "no-verify",
        "--workdir",
        str(tmp_path / "home"),
        "--no-display",
        "--runs-root",
        str(runs),
        "--max-steps",
        "2",
        timeout=60,
    )
    (run_dir,) = list(runs.iterdir())
    return first, run_dir


def test_resume_with_a_raised_budget(tmp_path):
    first, run_dir = run_out_of_turns(tmp_path)
    assert first.returncode == ExitCode.BUDGET and "budget" in first.stdout
    again = run_cli("resume", str(run_dir), "--max-steps", "10", timeout=60)
    assert again.returncode == 0, again.stdout
    assert files_of(tmp_path / "home") == {"a.txt": "one\n", "b.txt": "two\n", "c.txt": "three\n"}
    assert json.loads((run_dir / "result.json").read_text())["turns"] == 5


@pytest.mark.apps
@pytest.mark.parametrize(
    ("signals", "code"),
    [
        ([signal.SIGINT], ExitCode.INTERRUPTED),
        ([signal.SIGTERM], ExitCode.TERMINATED),
        ([signal.SIGINT, signal.SIGINT], ExitCode.INTERRUPTED),  # the second arrives during the clean-up
    ],
    ids=["ctrl-c", "sigterm", "ctrl-c twice"],
)
def test_ctrl_c_or_sigterm_stops_cleanly_and_prints_the_resume_command(
    tmp_path, unbroken_files, signals, code
):
    proc, runs, home = start_run(tmp_path, "interrupted", display=True)
    wait_for_event(runs, KILL_POINTS["during a long bash command"])
    (run_dir,) = list(runs.iterdir())
    tag = next(e.sandbox_tag for e in read_events(run_dir / "events.jsonl") if e.kind == "run_start")
    for sig in signals:
        proc.send_signal(sig)
        time.sleep(0.3)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == code, output
    assert f"stateact resume {run_dir}" in output
    assert json.loads((run_dir / "result.json").read_text())["status"] == "interrupted"
    assert tagged_pids(tag) == [], "the sandbox's processes (Xvfb, the shell, the sleep) were ended"

    resumed = run_cli("resume", str(run_dir), timeout=120)
    assert resumed.returncode == 0, resumed.stdout
    assert files_of(home) == unbroken_files


def test_a_damaged_line_in_the_middle_of_the_log_is_refused_by_resume_and_shown_with_a_warning(tmp_path):
    _, run_dir = run_out_of_turns(tmp_path)
    events = run_dir / "events.jsonl"
    lines = events.read_text().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if '"kind": "tool_result"' in line)
    lines[number - 1] = lines[number - 1][: len(lines[number - 1]) // 2] + "\n"
    events.write_text("".join(lines))

    refused = run_cli("resume", str(run_dir), "--max-steps", "10", timeout=60)
    assert refused.returncode == ExitCode.USAGE
    assert f"{events} line {number} is not JSON" in refused.stderr
    assert "start the task again" in refused.stderr
    shown = run_cli("show", str(run_dir), timeout=60)
    assert shown.returncode == 0
    assert f"warning: {events} line {number} is not JSON" in shown.stderr
    assert "budget" in shown.stdout

    events.write_text("".join(lines[: number - 1]) + lines[number - 1].rstrip("\n"))  # a torn last line
    shown = run_cli("show", str(run_dir), timeout=60)
    assert shown.returncode == 0 and "warning" not in shown.stderr


STOPPED_LIST = "sleep 30; echo rest ran > ~/side.txt; sleep 0.5; echo second >> ~/side.txt"


@pytest.mark.parametrize(
    "signals",
    [[signal.SIGINT], [signal.SIGTERM], [signal.SIGINT, signal.SIGINT]],
    ids=["ctrl-c", "sigterm", "ctrl-c twice"],
)
@pytest.mark.parametrize("isolation", ["bwrap", "none"])
def test_a_stop_signal_ends_the_rest_of_the_command_line_too(tmp_path, signals, isolation):
    turns = [{"tool_calls": [{"name": "bash", "input": {"command": STOPPED_LIST}}]}]
    proc, runs, home = start_run(tmp_path, "list", False, turns, "--isolation", isolation)
    wait_for_event(runs, lambda e: e.kind == "tool_call" and "sleep 30" in json.dumps(e.input))
    time.sleep(1.0)  # the shell is inside `sleep 30`
    for sig in signals:
        proc.send_signal(sig)
        time.sleep(0.3)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode in (ExitCode.INTERRUPTED, ExitCode.TERMINATED), output
    (run_dir,) = list(runs.iterdir())
    assert json.loads((run_dir / "result.json").read_text())["status"] == "interrupted"
    time.sleep(1.0)
    assert not (home / "side.txt").exists(), "the command line went on after the stop"


def test_resume_keeps_the_gate_rounds_the_task_start_and_the_instruction(tmp_path):
    finding = {"problem": "out.txt says no", "location": "~/out.txt", "evidence": "cat printed no"}
    check = {"requirement": "out.txt says yes", "result": "pass", "evidence": "cat printed yes"}
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "roles": {
                    "main": [
                        {"tool_calls": [{"name": "bash", "input": {"command": "echo no > ~/out.txt"}}]},
                        {"tool_calls": [{"name": "finish", "input": {"summary": "wrote it"}}]},
                        {
                            "expect": {"is_error": True, "contains": "out.txt says no"},
                            "tool_calls": [{"name": "bash", "input": {"command": "echo yes > ~/out.txt"}}],
                        },
                        {"tool_calls": [{"name": "finish", "input": {"summary": "fixed it"}}]},
                    ],
                    "gate": [
                        {
                            "tool_calls": [
                                {"name": "verdict", "input": {"verdict": "FAIL", "findings": [finding]}}
                            ]
                        },
                        {
                            "tool_calls": [
                                {"name": "verdict", "input": {"verdict": "PASS", "checklist": [check]}}
                            ]
                        },
                    ],
                }
            }
        )
    )
    runs, home = tmp_path / "runs", tmp_path / "home"
    first = run_cli(
        "run",
        "Write ~/out.txt containing the word yes.",
        "--model",
        f"scripted:{script}",
        "--workdir",
        str(home),
        "--no-display",
        "--runs-root",
        str(runs),
        "--max-steps",
        "2",
        timeout=120,
    )
    assert first.returncode == ExitCode.BUDGET and "budget" in first.stdout, first.stdout
    (run_dir,) = list(runs.iterdir())
    again = run_cli("resume", str(run_dir), "--max-steps", "6", timeout=120)
    assert again.returncode == 0, again.stdout
    events = list(read_events(run_dir / "events.jsonl"))
    verdicts = [(e.scope, e.round, e.passed) for e in events if e.kind == "gate_verdict"]
    assert verdicts == [("gate#1", 1, False), ("gate#2", 2, True)]
    starts = [e for e in events if e.kind == "run_start"]
    assert len(starts) == 2 and starts[1].resumed is True
    assert starts[0].task_started_at == starts[1].task_started_at is not None
    assert starts[0].instruction == starts[1].instruction
    result = json.loads((run_dir / "result.json").read_text())
    assert result["gate_passed"] is True and result["turns"] == 4
    assert (home / "out.txt").read_text() == "yes\n"


@pytest.mark.apps
def test_kill_during_a_delegation_then_resume(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "roles": {
                    "main": [
                        {"tool_calls": [{"name": "bash", "input": {"command": "echo one > ~/a.txt"}}]},
                        {
                            "tool_calls": [
                                {
                                    "name": "delegate_gui",
                                    "input": {"subgoal": "Move the pointer to the middle."},
                                }
                            ]
                        },
                        {
                            "expect": {"is_error": True, "contains": "What gui#1 had done before the stop"},
                            "tool_calls": [{"name": "bash", "input": {"command": "echo three > ~/c.txt"}}],
                        },
                        {"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]},
                    ],
                    "gui": [
                        {
                            "delay": 3,
                            "tool_calls": [
                                {
                                    "name": "computer",
                                    "input": {"action": "mouse_move", "coordinate": [640, 400]},
                                }
                            ],
                        },
                        {
                            "tool_calls": [
                                {"name": "done", "input": {"summary": "The pointer is in the middle."}}
                            ]
                        },
                    ],
                }
            }
        )
    )
    runs, home = tmp_path / "runs", tmp_path / "home"
    proc = subprocess.Popen(
        cli(
            "run",
            "Write a.txt and c.txt; move the pointer to the middle.",
            "--model",
            f"scripted:{script}",
            "--harness",
            "no-verify",
            "--workdir",
            str(home),
            "--runs-root",
            str(runs),
        ),
        cwd=REPO,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_event(runs, lambda e: e.kind == "request" and e.scope == "gui#1")
    time.sleep(0.3)
    kill_hard(proc)
    (run_dir,) = list(runs.iterdir())
    resumed = run_cli("resume", str(run_dir), timeout=120)
    assert resumed.returncode == 0, resumed.stdout
    assert files_of(home) == {"a.txt": "one\n", "c.txt": "three\n"}
    events = list(read_events(run_dir / "events.jsonl"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    first_tag = next(e.sandbox_tag for e in events if e.kind == "run_start")
    assert tagged_pids(first_tag) == [], "the killed run's display and shell were ended on resume"
    resumed_event = next(e for e in events if e.kind == "run_resumed")
    delegation = next(e for e in events if e.kind == "tool_call" and e.name == "delegate_gui")
    assert resumed_event.unknown_outcomes == [delegation.id]
    assert json.loads((run_dir / "result.json").read_text())["status"] == "finished"


@pytest.mark.apps
def test_what_a_killed_run_left_is_listed_then_removed_by_the_next_run(tmp_path):
    from stateact.sandbox.leftovers import image_folder, tmp_folder

    proc, runs, _ = start_run(tmp_path, "killed", True, SCRIPT, "--isolation", "bwrap")
    wait_for_event(runs, KILL_POINTS["during a long bash command"])
    kill_hard(proc)
    (run_dir,) = list(runs.iterdir())
    tag = next(e.sandbox_tag for e in read_events(run_dir / "events.jsonl") if e.kind == "run_start")
    assert tmp_folder(tag).is_dir(), "the sandbox's /tmp outlives a kill -9, for a resume to carry over"
    assert ended(tag), "the sandbox's guard ended Xvfb, the shell and the sleep with the harness"

    listed = run_cli("cleanup", "--runs-root", str(runs))
    assert listed.returncode == 0, listed.stderr
    assert f"sandbox {tag} of dead process {proc.pid}" in listed.stdout
    assert f"folder {tmp_folder(tag)}, folder {image_folder(tag)}" in listed.stdout
    assert f"run {run_dir} (killed) is kept for its resume: stateact resume {run_dir}" in listed.stdout
    assert tmp_folder(tag).is_dir(), "listing removes nothing"

    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]}]))
    unrelated = run_cli(
        "run", "Nothing to do.", "--model", f"scripted:{other}", "--harness", "no-verify", "--no-display",
        "--workdir", str(tmp_path / "other-home"), "--runs-root", str(tmp_path / "other-runs"),
    )  # fmt: skip
    assert unrelated.returncode == 0, unrelated.stdout + unrelated.stderr
    assert tagged_pids(tag) == [] and not tmp_folder(tag).exists() and not image_folder(tag).exists()
    listed = run_cli("cleanup", "--runs-root", str(runs))
    assert tag not in listed.stdout and f"stateact resume {run_dir}" in listed.stdout
    assert run_cli("resume", str(run_dir)).returncode == 0
    assert "nothing left by dead runs" in run_cli("cleanup", "--runs-root", str(runs)).stdout


@pytest.mark.apps
def test_cleanup_remove_ends_what_a_killed_sandbox_left(tmp_path):
    from stateact.sandbox.leftovers import image_folder, tmp_folder

    owner = subprocess.Popen(
        [sys.executable, "-c", KEEP_A_SANDBOX_OPEN, str(tmp_path / "home")],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    tag = owner.stdout.readline().strip()
    assert tag and tagged_pids(tag) and tmp_folder(tag).is_dir() and image_folder(tag).is_dir()
    kill_hard(owner)

    removed = run_cli("cleanup", "--runs-root", str(tmp_path / "runs"), "--remove")
    assert removed.returncode == 0, removed.stderr
    assert f"removed sandbox {tag} of dead process {owner.pid}" in removed.stdout
    assert tagged_pids(tag) == [] and not tmp_folder(tag).exists() and not image_folder(tag).exists()
    assert "nothing left by dead runs" in run_cli("cleanup", "--runs-root", str(tmp_path / "runs")).stdout


KEEP_A_SANDBOX_OPEN = """
import sys, time
from pathlib import Path
from stateact.sandbox.local import LocalSandbox

sandbox = LocalSandbox(Path(sys.argv[1]), display=True, isolation="bwrap")
sandbox.start()
print(sandbox.tag, flush=True)
time.sleep(600)
"""


def test_a_run_that_is_still_running_is_not_resumed(tmp_path, unbroken_files):
    """Resuming a live run would end its sandbox's programs under it: it is refused, the run goes on."""
    proc, runs, home = start_run(tmp_path, "live")
    try:
        wait_for_event(runs, KILL_POINTS["during a long bash command"])
        (run_dir,) = list(runs.iterdir())
        refused = run_cli("resume", str(run_dir), timeout=60)
        assert refused.returncode == ExitCode.USAGE, refused.stdout + refused.stderr
        assert f"is still running (process {proc.pid} owns its sandbox)" in " ".join(refused.stderr.split())
    finally:
        output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, output
    assert files_of(home) == unbroken_files
