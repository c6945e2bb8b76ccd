"""A `--task` run killed with kill -9 during a GUI delegation, resumed: its setup's server runs again,
its /tmp is carried over, the agent is told so and what the subagent had done, and it is scored."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import warnings
from pathlib import Path

import pytest

from stateact.kernel.events import read_events
from stateact.sandbox.local import LocalSandbox
from tests.test_resume import ENV, REPO, cli, kill_hard, run_cli, wait_for_event

pytestmark = pytest.mark.apps


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


FIXTURES = "https://fixtures.stateact.dev/office/"
SERVE = """\
import http.server, pathlib, sys
seed = pathlib.Path(sys.argv[1])
(seed.parent / "page.txt").write_text(seed.read_text())
seed.unlink()  # a private input, gone once read
handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(seed.parent))
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), handler).serve_forever()
"""
"""The task's server: it reads its seed, removes it and serves the page made from it."""


def task_file(folder: Path, port: int) -> Path:
    cache = folder / "cache"
    cache.mkdir()
    (cache / "serve.py").write_text(SERVE)
    (cache / "seed.txt").write_text("served\n")
    wait = f"for i in $(seq 100); do python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 0.2)' 2>/dev/null && break; sleep 0.1; done"  # noqa: E501
    task = {
        "id": "resume-keeps-the-task",
        "snapshot": "os",
        "instruction": "Put the note you keep in /tmp and the served page into ~/out.txt.",
        "config": [
            {"type": "execute", "parameters": {"command": "mkdir -p ~/site && echo served > ~/site/page.txt.orig", "shell": True}},  # noqa: E501
            {"type": "download", "parameters": {"files": [{"url": FIXTURES + "serve.py", "path": "/home/user/site/serve.py"}, {"url": FIXTURES + "seed.txt", "path": "/home/user/site/seed.txt"}]}},  # noqa: E501
            {"type": "launch", "parameters": {"command": f"python3 /home/user/site/serve.py /home/user/site/seed.txt {port}", "shell": True}},  # noqa: E501
            {"type": "execute", "parameters": {"command": wait, "shell": True}},
            {"type": "execute", "parameters": {"command": "rm ~/site/page.txt.orig", "shell": True}},  # done once
        ],
        "related_apps": ["os"],
        "evaluator": {
            "func": "check_include_exclude",
            "result": {"type": "vm_command_line", "command": "cat /home/user/out.txt", "shell": True},
            "expected": {"type": "rule", "rules": {"include": ["kept", "served"], "exclude": []}},
        },
    }  # fmt: skip
    path = folder / "task.json"
    path.write_text(json.dumps(task))
    return path


def script(port: int) -> dict:
    fetch = f"python3 -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:{port}/page.txt').read().decode())\""  # noqa: E501
    return {
        "roles": {
            "main": [
                {"tool_calls": [{"name": "bash", "input": {"command": "echo kept > /tmp/note.txt; echo kept > ~/note.txt"}}]},  # noqa: E501
                {"tool_calls": [{"name": "bash", "input": {"command": "echo early-result"}}, {"name": "delegate_gui", "input": {"subgoal": "Move the pointer to the middle."}}]},  # noqa: E501
                {
                    "expect": [
                        {"is_error": False, "contains": "early-result"},  # finished before the stop: its own result
                        {"is_error": True, "contains": ["What gui#1 had done before the stop (1 tool call)", "- pointer read: 640,400"]},  # noqa: E501
                    ],
                    "tool_calls": [{"name": "bash", "input": {"command": f"cat ~/note.txt > ~/out.txt && {fetch} >> ~/out.txt; cp /tmp/note.txt ~/tmp-seen.txt || true"}}],  # noqa: E501
                },
                {"tool_calls": [{"name": "finish", "input": {"summary": "wrote ~/out.txt"}}]},
            ],
            "gui": [
                {"text": "pointer read: 640,400", "tool_calls": [{"name": "computer", "input": {"action": "mouse_move", "coordinate": [640, 400]}}]},  # noqa: E501
                {"delay": 30, "tool_calls": [{"name": "done", "input": {"summary": "moved"}}]},
            ],
        }
    }  # fmt: skip


def test_a_task_run_killed_during_a_delegation_is_resumed_told_the_truth_and_scored(tmp_path):
    port = free_port()
    task = task_file(tmp_path, port)
    in_the_delegation = lambda e: e.kind == "tool_result" and e.scope == "gui#1"  # noqa: E731
    run_dir, results = killed_run(tmp_path, task, script(port), in_the_delegation)
    assert not list(results.rglob("result.txt"))
    with LocalSandbox(tmp_path / "another-run"):  # its start cleans up what the killed run left
        pass

    resumed = run_cli("resume", str(run_dir), timeout=240)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "score 1" in resumed.stdout
    (result_txt,) = results.rglob("result.txt")
    assert float(result_txt.read_text()) == 1.0
    events = list(read_events(run_dir / "events.jsonl"))
    notice = next(
        m.message.text() for m in events if m.kind == "message" and "has been resumed" in m.message.text()
    )
    # the clean-up moved the dead sandbox's /tmp to the run folder, and the resume carried it over
    assert "The sandbox's own /tmp was carried over: note.txt." in notice, notice
    assert (run_dir / "home" / "tmp-seen.txt").read_text() == "kept\n"
    assert f"launch python3 /home/user/site/serve.py /home/user/site/seed.txt {port};" in notice
    assert "exited at once" not in notice
    assert "These programs were running and were ended" in notice or "ended with the stopped run" in notice
    assert (
        "pasta" not in notice and "ffmpeg" not in notice and str(tmp_path) not in notice
    )  # the harness's own
    assert (
        "first placed again, since these programs read them and they were gone: /home/user/site/seed.txt"
        in notice
    )
    assert "Files persist" not in notice
    assert json.loads((run_dir / "result.json").read_text())["status"] == "finished"

    again = run_cli("resume", str(run_dir), timeout=60)
    assert again.returncode == 2 and "already finished" in again.stderr


PLANNER = """\
import http.server, json, pathlib, sys
launch = pathlib.Path.home() / ".config" / "planner" / "launch.json"
token = pathlib.Path("/tmp/planner.token")
if not launch.exists() or not token.exists():
    sys.exit(f"planner: no launch file {launch} or token {token}")
greeting = json.loads(launch.read_text())["greeting"]
secret = token.read_text().strip()
launch.unlink()  # launch files: read once, then gone
token.unlink()
page = f"{greeting} {secret}".encode()
class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1])), Page).serve_forever()
"""
"""A service started by a task's setup: it reads and removes an `upload_file` launch file and a token a
command step wrote, neither named on its command line."""
APP = """\
import http.server, pathlib, sys
config = pathlib.Path.home() / "app" / "config.json"
if not config.exists():
    print(f"app: cannot start, {config} is missing", file=sys.stderr)
    sys.exit(3)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1])), http.server.SimpleHTTPRequestHandler).serve_forever()
"""
"""A service that needs its config file (which the agent moves away) at every start."""


def wait_step(port: int) -> dict:
    wait = f"for i in $(seq 100); do python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 0.2)' 2>/dev/null && break; sleep 0.1; done"  # noqa: E501
    return {"type": "execute", "parameters": {"command": wait, "shell": True}}


def own_task(folder: Path, task_id: str, setup: list[dict]) -> Path:
    """A task of the `os` domain in a folder that names no domain: its results go under `os/`."""
    task = {
        "id": task_id,
        "snapshot": "os",
        "instruction": "Write the served page and the note into ~/out.txt.",
        "config": setup,
        "related_apps": ["os"],
        "evaluator": {
            "func": "check_include_exclude",
            "result": {"type": "vm_command_line", "command": "cat /home/user/out.txt", "shell": True},
            "expected": {"type": "rule", "rules": {"include": ["hello s3cret", "kept"], "exclude": []}},
        },
    }
    path = folder / "tasks" / f"{task_id}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(task))
    return path


def killed_run(
    tmp_path: Path, task: Path, script: dict | list, kill_point, *options: str
) -> tuple[Path, Path]:
    """The task run with `script`, killed with kill -9 once an event matches `kill_point`;
    (the run folder, the results folder)."""
    (tmp_path / "script.json").write_text(json.dumps(script))
    runs, results = tmp_path / "runs", tmp_path / "results"
    options += ("--model", f"scripted:{tmp_path / 'script.json'}", "--harness", "no-verify")
    options += ("--cache", str(tmp_path / "cache"), "--results", str(results), "--runs-root", str(runs))
    proc = subprocess.Popen(
        cli("run", "--task", str(task), *options),
        cwd=REPO,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_event(runs, kill_point, timeout=120)
    time.sleep(0.5)
    kill_hard(proc)
    (run_dir,) = list(runs.iterdir())
    return run_dir, results


def killed_during_a_tool_call(tmp_path: Path, task: Path, turns: list[dict]) -> tuple[Path, Path]:
    """The task run without a display by the scripted `turns`, killed during its `sleep 30` bash call."""
    in_the_call = lambda e: e.kind == "tool_call" and "sleep 30" in json.dumps(e.input)  # noqa: E731
    return killed_run(tmp_path, task, turns, in_the_call, "--no-display")


def fetch_into_out(port: int) -> str:
    return f"python3 -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:{port}/').read().decode())\" >> ~/out.txt"  # noqa: E501


def test_a_program_that_consumed_its_launch_files_is_given_them_again_at_resume(tmp_path):
    port = free_port()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "planner.py").write_text(PLANNER)
    (tmp_path / "tasks" / "launch.json").write_text(json.dumps({"greeting": "hello"}))
    task = own_task(
        tmp_path,
        "planner-consumes-its-launch-files",
        [
            {"type": "upload_file", "parameters": {"files": [
                {"local_path": "planner.py", "path": "/home/user/planner/planner.py"},
                {"local_path": "launch.json", "path": "/home/user/.config/planner/launch.json"},
            ]}},
            {"type": "execute", "parameters": {"command": "printf s3cret > /tmp/planner.token", "shell": True}},
            {"type": "launch", "parameters": {"command": ["python3", "/home/user/planner/planner.py", "--port", str(port)]}},  # noqa: E501
            wait_step(port),
        ],
    )  # fmt: skip
    turns = [
        {"tool_calls": [{"name": "bash", "input": {"command": "echo kept > ~/note.txt"}}]},
        {"tool_calls": [{"name": "bash", "input": {"command": "sleep 30"}}]},
        {
            "expect": {"is_error": None},
            "tool_calls": [{"name": "bash", "input": {"command": f"cat ~/note.txt > ~/out.txt; {fetch_into_out(port)}"}}],  # noqa: E501
        },
        {"tool_calls": [{"name": "finish", "input": {"summary": "wrote ~/out.txt"}}]},
    ]  # fmt: skip
    run_dir, results = killed_during_a_tool_call(tmp_path, task, turns)
    assert not (run_dir / "home" / ".config" / "planner" / "launch.json").exists()  # consumed at setup
    kept = json.loads((run_dir / "setup-files" / "placed.json").read_text())
    assert {e["path"] for e in kept} >= {"/home/user/.config/planner/launch.json", "/tmp/planner.token"}

    resumed = run_cli("resume", str(run_dir), timeout=240)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    (result_txt,) = results.rglob("result.txt")
    assert float(result_txt.read_text()) == 1.0
    assert result_txt.parent.parent.name == "os"  # where the first run filed it: not `tasks/`
    notice = next(
        m.message.text()
        for m in read_events(run_dir / "events.jsonl")
        if m.kind == "message" and "has been resumed" in m.message.text()
    )
    assert "/home/user/.config/planner/launch.json" in notice and "/tmp/planner.token" in notice
    assert "planner.py" in notice and "not running" not in notice


def test_a_resume_whose_program_exits_names_it_and_changes_nothing(tmp_path):
    port = free_port()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "app.py").write_text(APP)
    (tmp_path / "tasks" / "config.json").write_text("{}")
    task = own_task(
        tmp_path,
        "app-needs-its-config",
        [
            {"type": "upload_file", "parameters": {"files": [
                {"local_path": "app.py", "path": "/home/user/app/app.py"},
                {"local_path": "config.json", "path": "/home/user/app/config.json"},
            ]}},
            {"type": "launch", "parameters": {"command": f"python3 /home/user/app/app.py --port {port}", "shell": True}},  # noqa: E501
            wait_step(port),
        ],
    )  # fmt: skip
    move_away = "echo kept > /tmp/note.txt; mv ~/app/config.json ~/app/config.json.bak"
    turns = [
        {"tool_calls": [{"name": "bash", "input": {"command": move_away}}]},
        {"tool_calls": [{"name": "bash", "input": {"command": "sleep 30"}}]},
        {
            "expect": {"is_error": None},
            "tool_calls": [{"name": "bash", "input": {"command": "cp /tmp/note.txt ~/out.txt; echo hello s3cret >> ~/out.txt"}}],  # noqa: E501
        },
        {"tool_calls": [{"name": "finish", "input": {"summary": "wrote ~/out.txt"}}]},
    ]  # fmt: skip
    run_dir, results = killed_during_a_tool_call(tmp_path, task, turns)

    failed = run_cli("resume", str(run_dir), timeout=240)
    assert failed.returncode == 3, failed.stdout + failed.stderr
    said = " ".join(failed.stdout.split())
    assert f"`python3 /home/user/app/app.py --port {port}` exited 3: app: cannot start" in said, said
    assert "config.json is missing" in said
    assert not (run_dir / "result.json").exists()
    # the stopped sandbox's /tmp stays staged for the next resume, unless another sandbox's start on
    # this machine removed the dead sandbox's /tmp before the resume took it over
    tmp_kept = (run_dir / "carried-tmp" / "note.txt").is_file()
    if not tmp_kept:
        warnings.warn(
            "another sandbox removed the dead sandbox's /tmp first: its carry-over is not tested",
            stacklevel=1,
        )
    listed = run_cli("cleanup", "--runs-root", str(run_dir.parent), timeout=60)
    assert f"run {run_dir} (killed) is kept for its resume" in listed.stdout
    assert ("with its sandbox's /tmp" in listed.stdout) == tmp_kept

    home = run_dir / "home" / "app"
    (home / "config.json.bak").rename(home / "config.json")  # the user puts back what the program needs
    resumed = run_cli("resume", str(run_dir), timeout=240)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    (result_txt,) = results.rglob("result.txt")
    assert result_txt.parent.parent.name == "os"
    assert float(result_txt.read_text()) == (1.0 if tmp_kept else 0.0)
    assert not (run_dir / "carried-tmp").exists()
