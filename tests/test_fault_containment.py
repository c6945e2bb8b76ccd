"""Faults of the harness and its helpers are contained: a `kill -9` of the harness ends the sandbox's
command line at once, a dead Xvfb, window manager or pasta is noticed at the next tool call (restarted
and told, or the run ends with exit 3), and a full runs folder ends the run with exit 3 and a valid log
that `stateact resume` continues once space is freed. Real bubblewrap sandboxes, real Xvfb, real
`stateact` processes with a scripted model."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from stateact.app.exit_codes import ExitCode
from stateact.kernel.events import read_events
from stateact.sandbox.isolation import bwrap_problem
from stateact.sandbox.leftovers import remove_folders
from stateact.sandbox.mounts import unmount
from stateact.sandbox.processes import kill_tagged, tagged_pids
from stateact.sandbox.runtime import runtime_ready
from tests.test_resume import ENV, REPO, cli, ended, run_cli, wait_for_event

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(bwrap_problem()) or not runtime_ready(),
        reason="bubblewrap or the sandbox Python is not available",
    ),
]

CUT_LINE = "touch ~/started; sleep 2; touch ~/after"
"""A command line whose last part must never run once the harness is killed during the sleep."""
AFTER_CUT_S = 4.0
"""How long the test waits after the kill: well past the end of the cut `sleep 2`."""

HARNESS = """
import sys, threading, time
from pathlib import Path
from stateact.sandbox.local import LocalSandbox

isolation, action, display, work = sys.argv[1], sys.argv[2], sys.argv[3] == "display", Path(sys.argv[4])
box = LocalSandbox(work / "home", display=display, isolation=isolation)
box.start()
line = sys.argv[5]
if action == "shell":
    assert box.open_shell(work / "scratch").run(line, timeout=0.5).running
elif action == "run":
    threading.Thread(target=box.run, args=(line,), daemon=True).start()
else:
    box.launch(line)
print(box.tag, flush=True)
time.sleep(600)
"""
"""A harness that starts a sandbox, leaves `CUT_LINE` running in it (through the persistent shell, a
one-shot command or a launched program) and prints the sandbox's tag."""


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@pytest.mark.parametrize("isolation", ["bwrap", "none"])
@pytest.mark.parametrize("action", ["shell", "run", "launch"])
def test_kill_9_of_the_harness_ends_the_command_line_at_once(tmp_path, isolation, action):
    display = "display" if action == "shell" else "no-display"
    # a temp folder of its own, for its sandbox's record too: no other sandbox's start removes it first
    # (short: the session bus's socket path in it has a length limit)
    private_tmp = Path(tempfile.mkdtemp(prefix="fault-"))
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, isolation, action, display, str(tmp_path), CUT_LINE],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(private_tmp)},
        stdout=subprocess.PIPE,
        text=True,
    )
    tag = harness.stdout.readline().strip()
    try:
        assert tag, "the harness did not start its sandbox"
        deadline = time.monotonic() + 30
        while not (tmp_path / "home" / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        harness.send_signal(signal.SIGKILL)
        harness.wait(timeout=10)
        time.sleep(AFTER_CUT_S)
        assert not (tmp_path / "home" / "after").exists(), "the rest of the cut command line ran"
        assert ended(tag, timeout=0), f"outlived the harness: {[comm(p) for p in tagged_pids(tag)]}"
    finally:
        harness.kill()
        kill_tagged(tag)
        remove_folders(tag)  # its home image, if it had one
        for folder in private_tmp.glob("stateact-sandbox-*"):  # its /tmp and state tmpfs
            unmount(folder)
        shutil.rmtree(private_tmp, ignore_errors=True)


def start_scripted(tmp_path: Path, script: dict, *options: str) -> tuple[subprocess.Popen, Path]:
    """`stateact run` playing `script` in a child process (its output piped); its runs folder."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    runs = tmp_path / "runs"
    proc = subprocess.Popen(
        cli(
            "run",
            "A fault test.",
            "--model",
            f"scripted:{path}",
            "--harness",
            "no-verify",
            "--workdir",
            str(tmp_path / "home"),
            "--runs-root",
            str(runs),
            *options,
        ),  # fmt: skip
        cwd=REPO,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return proc, runs


def bash(command: str, **expect) -> dict:
    """A turn running `command`; `expect`: what the results of the turn before must show."""
    turn = {"tool_calls": [{"name": "bash", "input": {"command": command}}]}
    return {"expect": expect, **turn} if expect else turn


FINISH = {"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]}
PAUSE = "sleep 3"
"""The command during which the test kills a helper."""


def kill_helper_during_pause(runs: Path, names: set[str]) -> str:
    """Once the run's `PAUSE` command runs, SIGKILL its sandbox's helper processes named `names`; the
    sandbox's tag."""
    wait_for_event(runs, lambda e: e.kind == "tool_call" and PAUSE in json.dumps(e.input))
    (events,) = runs.glob("*/events.jsonl")
    tag = next(e.sandbox_tag for e in read_events(events) if e.kind == "run_start")
    helpers = [pid for pid in tagged_pids(tag) if comm(pid) in names]
    assert helpers, f"no {names} in {[comm(p) for p in tagged_pids(tag)]}"
    for pid in helpers:
        os.kill(pid, signal.SIGKILL)
    return tag


@pytest.mark.apps
def test_a_killed_xvfb_ends_the_run_with_exit_3_and_never_a_gui_success(tmp_path):
    script = {
        "roles": {
            "main": [
                bash(PAUSE),
                {"tool_calls": [{"name": "delegate_gui", "input": {"subgoal": "Move the pointer."}}]},
                {"expect": {"is_error": None}, **FINISH},
            ],
            "gui": [{"tool_calls": [{"name": "done", "input": {"summary": "The pointer moved."}}]}],
        }
    }
    proc, runs = start_scripted(tmp_path, script, "--display")
    kill_helper_during_pause(runs, {"Xvfb"})
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == ExitCode.ERROR, out
    assert "error: SandboxLost: the sandbox's X server (Xvfb) died" in out
    (run_dir,) = runs.iterdir()
    events = list(read_events(run_dir / "events.jsonl"))
    assert not [e for e in events if e.kind == "gui_report" and e.status == "DONE"], "a GUI success"
    assert json.loads((run_dir / "result.json").read_text())["status"] == "error"
    resumed = run_cli("resume", str(run_dir))  # in a new sandbox, with a display of its own
    assert resumed.returncode == ExitCode.DONE, resumed.stdout + resumed.stderr


@pytest.mark.apps
def test_a_killed_window_manager_is_restarted_and_the_agent_told(tmp_path):
    told = "The window manager had died and was started again"
    script = [bash(PAUSE), bash("echo next"), bash("echo last", contains=told), FINISH]
    proc, runs = start_scripted(tmp_path, script, "--display")
    tag = kill_helper_during_pause(runs, {"openbox", "xfwm4", "fluxbox", "matchbox-window-manager"})
    wait_for_event(runs, lambda e: e.kind == "tool_call" and "echo last" in json.dumps(e.input))
    assert any(comm(pid) in {"openbox", "xfwm4", "fluxbox"} for pid in tagged_pids(tag))
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == ExitCode.DONE, out


@pytest.mark.skipif(shutil.which("pasta") is None, reason="pasta (passt) is not installed")
def test_a_killed_pasta_is_restarted_and_the_agent_told(tmp_path):
    told = "outbound network route (pasta) had died and was started again"
    default_routes = "awk '$2 == \"00000000\"' /proc/net/route | wc -l"
    script = [bash(PAUSE), bash(default_routes), {"expect": {"contains": told}, **FINISH}]
    proc, runs = start_scripted(tmp_path, script, "--no-display")
    kill_helper_during_pause(runs, {"pasta", "passt", "passt.avx2"})
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == ExitCode.DONE, out
    (events,) = runs.glob("*/events.jsonl")
    result = [e for e in read_events(events) if e.kind == "tool_result"][1]
    assert result.text.split("\n")[1] == "1", "the namespace has its route out again"


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs, unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def test_a_full_runs_folder_ends_with_exit_3_a_valid_log_and_a_resumable_run(tmp_path, small_disk):
    ballast = small_disk / "ballast"
    ballast.write_bytes(b"x" * (1024 * 1024 - 64 * 1024))  # what is left holds the log, not a big output
    script = [
        bash("echo one > ~/one.txt"),
        bash("head -c 300000 /dev/zero | tr '\\0' x | fold -w 100"),  # saved under outputs/: no room
        {"expect": {"is_error": None}, **bash("echo two > ~/two.txt")},
        FINISH,
    ]
    (tmp_path / "script.json").write_text(json.dumps(script))
    runs = small_disk / "runs"
    first = run_cli(
        "run", "Fill the disk.", "--model", f"scripted:{tmp_path / 'script.json'}", "--harness", "no-verify",
        "--workdir", str(tmp_path / "home"), "--runs-root", str(runs), "--no-display",
    )  # fmt: skip
    assert first.returncode == ExitCode.ERROR, first.stdout + first.stderr
    errors = [line for line in first.stderr.splitlines() if line.strip()]
    assert errors == [errors[0]] and "error: RunFolderFull: the disk of the runs folder is full" in errors[0]
    assert "Traceback" not in first.stdout + first.stderr
    (run_dir,) = runs.iterdir()
    lines = (run_dir / "events.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1]), "no half line"
    if (run_dir / "result.json").exists():
        assert json.loads((run_dir / "result.json").read_text())["status"] == "error"
    assert not list(run_dir.glob("**/*.tmp"))

    ballast.unlink()
    resumed = run_cli("resume", str(run_dir))
    assert resumed.returncode == ExitCode.DONE, resumed.stdout + resumed.stderr
    assert (tmp_path / "home" / "two.txt").read_text() == "two\n"
    assert json.loads((run_dir / "result.json").read_text())["status"] == "finished"


def test_the_runs_time_budget_bounds_a_waiting_tool_call(tmp_path):
    """A bash call asking to wait 300 s returns when `--max-minutes` runs out, and the run ends there
    (exit 4): the command it left running never gets to its next part."""
    waits = {"name": "bash", "input": {"command": "sleep 30; touch ~/late", "timeout": 300}}
    proc, runs = start_scripted(
        tmp_path, [{"tool_calls": [waits]}, FINISH], "--no-display", "--max-minutes", "0.1"
    )
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == ExitCode.BUDGET, out
    (events,) = runs.glob("*/events.jsonl")
    (result,) = [e for e in read_events(events) if e.kind == "tool_result"]
    assert "timeout lowered to the run's remaining time" in result.text
    assert not (tmp_path / "home" / "late").exists()
