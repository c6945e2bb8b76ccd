"""A `--task` run killed with kill -9 during a GUI delegation, resumed: its setup's server runs again,
its /tmp is carried over, the agent is told so and what the subagent had done, and it is scored."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from stateact.kernel.events import read_events
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
    (tmp_path / "script.json").write_text(json.dumps(script(port)))
    runs, results = tmp_path / "runs", tmp_path / "results"
    options = ["--model", f"scripted:{tmp_path / 'script.json'}", "--harness", "no-verify"]
    options += ["--cache", str(tmp_path / "cache"), "--results", str(results), "--runs-root", str(runs)]
    proc = subprocess.Popen(
        cli("run", "--task", str(task), *options),
        cwd=REPO,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_event(runs, lambda e: e.kind == "tool_result" and e.scope == "gui#1", timeout=120)
    time.sleep(0.5)
    kill_hard(proc)
    (run_dir,) = list(runs.iterdir())
    assert not list(results.rglob("result.txt"))

    resumed = run_cli("resume", str(run_dir), timeout=240)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "score 1" in resumed.stdout
    (result_txt,) = results.rglob("result.txt")
    assert float(result_txt.read_text()) == 1.0
    events = list(read_events(run_dir / "events.jsonl"))
    notice = next(
        m.message.text() for m in events if m.kind == "message" and "has been resumed" in m.message.text()
    )
    carried = (run_dir / "home" / "tmp-seen.txt").exists()
    # another sandbox starting on this machine between the kill and the resume removes what dead
    # sandboxes left, their /tmp included: the notice says which of the two happened
    assert ("The sandbox's own /tmp was carried over: note.txt." in notice) or (
        "The sandbox's own /tmp was not kept" in notice
    ), notice
    assert carried == ("carried over: note.txt" in notice)
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
