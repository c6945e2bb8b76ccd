"""A task's scheduled changes (its `schedule`): validated before the run, made in the sandbox after their
steps or seconds, logged (events, traj.jsonl) and never told to the agent; made once across a kill -9 and
its resume, and one that fell due while the run was stopped is made when it resumes."""

from __future__ import annotations

import json
import mailbox
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.evals.osworld.task import TaskError, load_task
from stateact.evals.reports.trajectory import trajectory_steps as report_steps
from stateact.evals.running.check import check_suite
from stateact.evals.running.task_ports import task_ports
from stateact.kernel.events import read_events
from tests.test_resume import ENV, REPO, cli, kill_hard, run_cli, wait_for_event
from tests.test_resume_task import free_port, killed_run, wait_step

MAIL = {
    "type": "deliver_mail",
    "parameters": {
        "mailbox": "~/Maildir",
        "from": "Dana Reyes <dana@example.org>",
        "subject": "Correction: the venue is Hall B",
        "body": "Sorry, the venue changed: Hall B, not Hall A.\nFrom now on use Hall B.",
    },
}
NOTE = {"type": "execute", "parameters": {"command": "echo 'price: 42' > ~/notes/price.txt", "shell": True}}


def task_with(folder: Path, schedule: list[dict], task_id: str = "mid-run", **fields) -> Path:
    """A task of the `os` domain that scores ~/out.txt, with `schedule`."""
    task = {
        "id": task_id,
        "snapshot": "os",
        "instruction": "Write the venue and the price into ~/out.txt.",
        "config": [{"type": "execute", "parameters": {"command": "mkdir -p ~/notes", "shell": True}}],
        "schedule": schedule,
        "related_apps": ["os"],
        "evaluator": {
            "func": "check_include_exclude",
            "result": {"type": "vm_command_line", "command": "cat /home/user/out.txt", "shell": True},
            "expected": {"type": "rule", "rules": {"include": ["Hall B", "price: 42"], "exclude": []}},
        },
        **fields,
    }
    path = folder / "tasks" / f"{task_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(task))
    return path


def bash(command: str) -> dict:
    return {"tool_calls": [{"name": "bash", "input": {"command": command}}]}


FINISH = {"tool_calls": [{"name": "finish", "input": {"summary": "wrote ~/out.txt"}}]}
IN_THE_SLEEP = lambda e: e.kind == "tool_call" and "sleep 30" in json.dumps(e.input)  # noqa: E731
READ_ALL = bash("cat ~/Maildir/new/* ~/notes/price.txt > ~/out.txt 2>&1; true")


def run_task(tmp_path: Path, task: Path, turns: list[dict], *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "script.json").write_text(json.dumps(turns))
    return run_cli(
        "run",
        "--task",
        str(task),
        "--model",
        f"scripted:{tmp_path / 'script.json'}",
        "--harness",
        "no-verify",
        "--no-display",
        "--cache",
        str(tmp_path / "cache"),
        "--results",
        str(tmp_path / "results"),
        "--runs-root",
        str(tmp_path / "runs"),
        *extra,
        timeout=180,
    )


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        (
            {"after_steps": 3, "after_seconds": 5, "steps": [NOTE]},
            "give one of `after_steps` and `after_seconds`",
        ),
        ({"steps": [NOTE]}, "give one of `after_steps` and `after_seconds`"),
        ({"after_steps": 0, "steps": [NOTE]}, "greater than or equal to 1"),
        ({"after_steps": 2, "steps": []}, "at least 1 item"),
        ({"after_steps": 2, "steps": [NOTE], "when": "later"}, "Extra inputs are not permitted"),
    ],
)
def test_a_bad_schedule_entry_is_refused_when_the_task_loads(tmp_path, entry, problem):
    with pytest.raises(TaskError, match="schedule.0") as refused:
        load_task(task_with(tmp_path, [entry]))
    assert problem in str(refused.value)


def test_two_changes_of_one_name_are_refused_and_unnamed_ones_are_numbered(tmp_path):
    twice = [
        {"id": "mail", "after_steps": 1, "steps": [MAIL]},
        {"id": "mail", "after_steps": 2, "steps": [NOTE]},
    ]
    with pytest.raises(TaskError, match="two scheduled changes are named 'mail'"):
        load_task(task_with(tmp_path, twice))
    named = load_task(
        task_with(tmp_path, [{"after_steps": 1, "steps": [MAIL]}, {"after_seconds": 9, "steps": [NOTE]}])
    )
    assert [(c.id, c.trigger) for c in named.schedule] == [
        ("change-1", "after 1 steps"),
        ("change-2", "after 9 seconds"),
    ]


def test_a_scheduled_step_of_an_unknown_kind_fails_the_pre_flight_check(tmp_path):
    task_with(tmp_path, [{"after_steps": 1, "steps": [{"type": "send_fax", "parameters": {}}]}])
    (check,) = check_suite(tmp_path / "tasks", tmp_path / "cache")
    assert "setup step send_fax" in check.unsupported


def test_a_bad_schedule_stops_run_task_before_any_sandbox(tmp_path):
    task = task_with(tmp_path, [{"after_steps": 1, "after_seconds": 2, "steps": [NOTE]}])
    (tmp_path / "script.json").write_text(json.dumps([FINISH]))
    args = ["run", "--task", str(task), "--model", f"scripted:{tmp_path / 'script.json'}"]
    refused = CliRunner().invoke(app, [*args, "--runs-root", str(tmp_path / "runs")], env={"COLUMNS": "300"})
    assert refused.exit_code == 2
    assert "give one of `after_steps` and `after_seconds`" in refused.output
    assert not (tmp_path / "runs").exists()


def test_a_port_a_scheduled_program_serves_is_the_task_s_port(tmp_path):
    serve = {"type": "launch", "parameters": {"command": ["python3", "serve.py", "--port", "18799"]}}
    task = load_task(task_with(tmp_path, [{"after_seconds": 5, "steps": [serve]}]))
    assert task_ports(task) == {18799}  # a suite does not run it beside another task on that port


@pytest.mark.slow
def test_changes_land_after_their_steps_are_logged_and_the_agent_is_told_nothing(tmp_path):
    mbox = {**MAIL, "parameters": {**MAIL["parameters"], "mailbox": "~/mail/inbox", "format": "mbox"}}
    task = task_with(
        tmp_path,
        [
            {"id": "venue-mail", "after_steps": 2, "steps": [MAIL, mbox]},
            {"id": "price-note", "after_steps": 3, "steps": [NOTE]},
        ],
    )
    turns = [
        bash("ls ~/Maildir ~/notes > ~/seen-1.txt 2>&1; true"),
        bash("ls ~/Maildir ~/notes > ~/seen-2.txt 2>&1; true"),
        bash("ls ~/Maildir/new ~/notes > ~/seen-3.txt 2>&1; true"),
        READ_ALL,
        FINISH,
    ]
    done = run_task(tmp_path, task, turns)
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    home = run_dir / "home"
    assert "No such file" in (home / "seen-1.txt").read_text()
    assert "No such file" in (home / "seen-2.txt").read_text()  # made once the 2nd step has ended
    seen = (home / "seen-3.txt").read_text()
    assert "stateact.local" in seen and "price.txt" not in seen  # the 3rd step's own change comes after it
    messages = list(mailbox.mbox(home / "mail" / "inbox"))
    assert [m["Subject"] for m in messages] == ["Correction: the venue is Hall B"]
    assert "From now on use Hall B." in messages[0].get_payload()  # quoted `From ` line read back whole

    events = list(read_events(run_dir / "events.jsonl"))
    made = [e for e in events if e.kind == "scheduled_change"]
    assert [(e.id, e.at_step, e.failed, e.scope) for e in made] == [
        ("venue-mail", 2, "", "harness"),
        ("price-note", 3, "", "harness"),
    ]
    told = " ".join(e.message.text() for e in events if e.kind == "message")
    assert "Hall B" not in told.split("Maildir/new")[0]  # the agent read the mail only with its own cat
    assert "scheduled" not in told and "change" not in told.lower()

    result_dir = next((tmp_path / "results").rglob("result.txt")).parent
    assert float((result_dir / "result.txt").read_text()) == 1.0
    lines = [json.loads(line) for line in (result_dir / "traj.jsonl").read_text().splitlines()]
    assert [line.get("step_num", line["action"]) for line in lines] == [
        1,
        2,
        "ENV_CHANGE",
        3,
        "ENV_CHANGE",
        4,
        5,
    ]
    assert lines[2]["change"] == "venue-mail" and lines[2]["info"]["steps"][0]["mailbox"].endswith("Maildir")
    shown = [step.title for step in report_steps(run_dir) if step.kind == "change"]
    assert shown == [
        "scheduled change venue-mail made after 2 steps (at step 2)",
        "scheduled change price-note made after 3 steps (at step 3)",
    ]


@pytest.mark.slow
def test_a_change_due_after_a_time_lands_while_the_agent_s_call_runs(tmp_path):
    task = task_with(tmp_path, [{"id": "price-note", "after_seconds": 2, "steps": [NOTE]}])
    turns = [
        bash(
            "for i in $(seq 100); do test -e ~/notes/price.txt && break; sleep 0.1; done; ls ~/notes > ~/seen.txt"
        ),
        FINISH,
    ]
    done = run_task(tmp_path, task, turns)
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert (run_dir / "home" / "seen.txt").read_text() == "price.txt\n"  # seen within its one call
    (made,) = [e for e in read_events(run_dir / "events.jsonl") if e.kind == "scheduled_change"]
    assert made.at_step == 1 and 2 <= made.at_seconds < 10  # made during step 1, by the timer


@pytest.mark.slow
def test_a_change_made_before_a_kill_is_not_made_again_and_one_due_while_stopped_is_made_at_resume(tmp_path):
    task = task_with(
        tmp_path,
        [
            {"id": "venue-mail", "after_steps": 1, "steps": [MAIL]},
            {"id": "price-note", "after_seconds": 8, "steps": [NOTE]},
        ],
    )
    turns = [bash("echo started"), bash("sleep 30"), {**READ_ALL, "expect": {"is_error": None}}, FINISH]
    (tmp_path / "script.json").write_text(json.dumps(turns))
    runs = tmp_path / "runs"
    options = [
        "--model",
        f"scripted:{tmp_path / 'script.json'}",
        "--harness",
        "no-verify",
        "--no-display",
        "--checkpoint-steps",
        "1,3",
    ]
    options += [
        "--cache",
        str(tmp_path / "cache"),
        "--results",
        str(tmp_path / "results"),
        "--runs-root",
        str(runs),
    ]
    proc = subprocess.Popen(
        cli("run", "--task", str(task), *options),
        cwd=REPO,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_event(runs, lambda e: e.kind == "tool_call" and "sleep 30" in json.dumps(e.input), timeout=120)
    kill_hard(proc)
    (run_dir,) = runs.iterdir()
    before = [e for e in read_events(run_dir / "events.jsonl") if e.kind == "scheduled_change"]
    assert [e.id for e in before] == ["venue-mail"]  # the timed one was not due yet
    started = next(e.t for e in read_events(run_dir / "events.jsonl") if e.kind == "run_start")
    time.sleep(max(0.0, started + 9 - time.time()))  # the timed change falls due while the run is stopped

    resumed = run_cli("resume", str(run_dir), timeout=180)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    events = list(read_events(run_dir / "events.jsonl"))
    made = [e for e in events if e.kind == "scheduled_change"]
    assert [e.id for e in made] == ["venue-mail", "price-note"]
    resumed_at = [e.seq for e in events if e.kind == "run_start"][1]
    assert made[1].seq > resumed_at and made[1].at_seconds >= 8 and made[1].at_step == 2
    assert len(list((run_dir / "home" / "Maildir" / "new").iterdir())) == 1
    (result_txt,) = (tmp_path / "results").rglob("result.txt")
    assert float(result_txt.read_text()) == 1.0
    scored = [
        (e.budget, e.at_step, e.score, e.seq < resumed_at) for e in events if e.kind == "step_budget_score"
    ]
    assert scored == [(1, 1, 0.0, True), (3, 3, 1.0, False)]  # once each, before and after the stop
    assert (result_txt.parent / "result_step_3.txt").read_text() == "1.0\n"


SERVE = """\
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[sys.argv.index("--port") + 1])), handler).serve_forever()
"""


@pytest.mark.slow
def test_a_program_a_change_started_before_a_kill_is_started_again_at_resume(tmp_path):
    port = free_port()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "serve.py").write_text(SERVE)
    (tmp_path / "tasks" / "index.html").write_text("prices v2: Hall B, price: 42")
    task = task_with(
        tmp_path,
        [{"id": "price-site", "after_steps": 1, "steps": [
            {"type": "upload_file", "parameters": {"files": [
                {"local_path": "serve.py", "path": "/home/user/srv/serve.py"},
                {"local_path": "index.html", "path": "/home/user/srv/www/index.html"}]}},
            {"type": "launch", "parameters": {"command": ["python3", "/home/user/srv/serve.py", "/home/user/srv/www", "--port", str(port)]}},
            wait_step(port),
        ]}],
    )  # fmt: skip
    fetch = f"python3 -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:{port}/').read().decode())\" > ~/out.txt"  # noqa: E501
    turns = [bash("echo started"), bash("sleep 30"), {**bash(fetch), "expect": {"is_error": None}}, FINISH]
    run_dir, results = killed_run(tmp_path, task, turns, IN_THE_SLEEP, "--no-display")
    assert [e.id for e in read_events(run_dir / "events.jsonl") if e.kind == "scheduled_change"] == [
        "price-site"
    ]

    resumed = run_cli("resume", str(run_dir), timeout=180)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "serve.py" in next(
        e.message.text() for e in read_events(run_dir / "events.jsonl") if e.kind == "message" and "has been resumed" in e.message.text()
    )  # fmt: skip
    (result_txt,) = results.rglob("result.txt")
    assert float(result_txt.read_text()) == 1.0
    made = [e for e in read_events(run_dir / "events.jsonl") if e.kind == "scheduled_change"]
    assert len(made) == 1  # started again by the resume, not made again
