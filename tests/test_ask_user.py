"""`ask_user`: the main agent asks, and each answerer answers through a real `stateact run` — the person
at the terminal (a pty), a script, a relay folder, a simulated user through the real Anthropic SDK
against a local wire server, and nobody — with the questions and answers in the log, `show`, traj.jsonl,
a resumed run and the finish gate's request."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pexpect
import pytest

from stateact.app.config import RunConfig
from stateact.app.run import execute, resume
from stateact.evals.running.results import trajectory_steps
from stateact.gate.review import FinishGate
from stateact.kernel.events import UserAnswer, UserQuestion
from stateact.kernel.models.relay import PENDING, pending_stem
from stateact.kernel.runtime import RoleModels
from tests.support.run_events import logged_events
from tests.support.tool_context import run_context
from tests.support.wire_servers import AnthropicWireServer, anthropic_reply
from tests.test_cli import REPO, stateact_in_process

INSTRUCTION = "Write the user's favourite colour into ~/colour.txt."
QUESTION = "Which colour is your favourite?"


def ask(question: str = QUESTION, **turn: object) -> dict:
    return {"tool_calls": [{"name": "ask_user", "input": {"question": question}}], **turn}


def finish(**turn: object) -> dict:
    return {"tool_calls": [{"name": "finish", "input": {"summary": "done"}}], **turn}


def script(tmp_path: Path, turns: list[dict], name: str = "main.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(turns))
    return path


def run_args(tmp_path: Path, main: Path, *extra: str) -> list[str]:
    return [
        "run",
        INSTRUCTION,
        "--model",
        f"scripted:{main}",
        "--harness",
        "no-verify",
        "--no-display",
        "--isolation",
        "none",
        "--runs-root",
        str(tmp_path / "runs"),
        "--workdir",
        str(tmp_path / "home"),
        *extra,
    ]


def run_config(tmp_path: Path, main: Path, **more: object) -> RunConfig:
    """The in-process run of `run_args`, with `more` settings."""
    return RunConfig(
        instruction=INSTRUCTION,
        models=RoleModels(main=f"scripted:{main}"),
        harness="no-verify",
        display=False,
        isolation="none",
        runs_root=tmp_path / "runs",
        **more,
    )


def the_run(tmp_path: Path) -> Path:
    (run_dir,) = (tmp_path / "runs").iterdir()
    return run_dir


def answers(run_dir: Path) -> list[tuple[str | None, str]]:
    return [(e.answer, e.answerer) for e in logged_events(run_dir / "events.jsonl", "user_answer")]


def test_nobody_answers_a_run_without_a_user_at_once_and_the_agent_goes_on(tmp_path, monkeypatch):
    main = script(tmp_path, [ask(), finish(expect={"contains": "No answer: no one can be asked"})])
    done = stateact_in_process(*run_args(tmp_path, main), cwd=tmp_path, monkeypatch=monkeypatch)
    assert done.returncode == 0, done.stdout + done.stderr
    run_dir = the_run(tmp_path)
    (question,) = logged_events(run_dir / "events.jsonl", "user_question")
    assert isinstance(question, UserQuestion) and question.question == QUESTION
    assert question.answerer == "nobody"
    assert answers(run_dir) == [(None, "nobody")]
    assert json.loads((run_dir / "result.json").read_text())["status"] == "finished"


def test_scripted_user_answers_in_order_and_show_and_traj_rows_carry_them(tmp_path, monkeypatch):
    user = script(tmp_path, ["blue", "navy blue, not royal"], "user.json")
    main = script(
        tmp_path,
        [
            ask(),
            ask("Which shade?", expect={"contains": "The user answered:\nblue"}),
            ask("Anything else?", expect={"contains": "navy blue, not royal"}),
            finish(expect={"contains": "no answer left after 2"}),
        ],
    )
    args = run_args(tmp_path, main, "--user", f"scripted:{user}")
    done = stateact_in_process(*args, cwd=tmp_path, monkeypatch=monkeypatch)
    assert done.returncode == 0, done.stdout + done.stderr
    run_dir = the_run(tmp_path)
    assert answers(run_dir) == [
        ("blue", "scripted"),
        ("navy blue, not royal", "scripted"),
        (None, "scripted"),
    ]
    config = json.loads((run_dir / "config.json").read_text())
    assert config["user"] == f"scripted:{user}"

    rows = [step for step in trajectory_steps(run_dir) if step["action"] == "ASK_USER"]
    assert [(r["question"], r["user_response"]) for r in rows] == [
        (QUESTION, "blue"),
        ("Which shade?", "navy blue, not royal"),
        ("Anything else?", None),
    ]
    shown = stateact_in_process("show", str(run_dir), cwd=tmp_path, monkeypatch=monkeypatch)
    assert f"asks the user (scripted): {QUESTION}" in shown.stdout
    assert "the user answers: navy blue, not royal" in shown.stdout


def test_bad_user_arguments_are_refused_before_anything_starts(tmp_path, monkeypatch):
    main = script(tmp_path, [finish()])
    (tmp_path / "bad.json").write_text('{"answers": [1]}')
    for extra, problem in (
        (["--user", "someone"], "bad --user 'someone'"),
        (["--user", f"scripted:{tmp_path / 'missing.json'}"], "cannot read the user's script"),
        (["--user", f"scripted:{tmp_path / 'bad.json'}"], "is not a list of answers"),
        (["--user", f"relay:{tmp_path / 'no' / 'such'}"], "does not exist"),
        (["--user", "none", "--user-model", f"scripted:{main}"], "not both"),
    ):
        done = stateact_in_process(*run_args(tmp_path, main, *extra), cwd=tmp_path, monkeypatch=monkeypatch)
        assert done.returncode == 2 and problem in done.stderr, (extra, done.stderr)
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_relay_user_answers_in_the_relay_folder(tmp_path):
    folder = tmp_path / "relay"
    main = script(tmp_path, [ask(), finish(expect={"contains": "The user answered:\nteal"})])
    config = run_config(tmp_path, main, user=f"relay:{folder}")
    answered: list[str] = []

    def person() -> None:
        deadline = time.monotonic() + 60
        while (stem := pending_stem(folder)) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stem is not None
        answered.append((folder / f"{stem}.request.txt").read_text())
        (folder / f"{stem}.reply.txt").write_text("teal\n")

    helper = threading.Thread(target=person)
    helper.start()
    result = execute(config)
    helper.join()
    assert result.status == "finished", result.text
    assert QUESTION in answered[0] and INSTRUCTION in answered[0]
    assert not (folder / PENDING).exists()
    assert answers(Path(result.run_dir)) == [("teal", "relay")]


@pytest.mark.slow
def spawn_run(tmp_path: Path, main: Path, *extra: str) -> pexpect.spawn:
    """`stateact run` of `run_args` in a pty: the person at its terminal is the test."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "stateact", *run_args(tmp_path, main, *extra)],
        cwd=str(tmp_path),
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "COLUMNS": "200"},
        encoding="utf-8",
        timeout=60,
    )


def test_person_at_the_terminal_answers_through_a_pty(tmp_path):
    main = script(tmp_path, [ask(), finish(expect={"contains": "The user answered:\nmagenta"})])
    child = spawn_run(tmp_path, main)
    try:
        child.expect_exact("The agent asks you:")
        child.expect_exact(QUESTION)
        child.expect_exact("your answer")
        child.sendline("magenta")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.before
    run_dir = the_run(tmp_path)
    assert answers(run_dir) == [("magenta", "terminal")]
    assert json.loads((run_dir / "config.json").read_text())["user"] == "terminal"


def write_task(tmp_path: Path) -> Path:
    task = {
        "id": "favourite-colour",
        "instruction": "Write my favourite colour (one word) into /home/user/colour.txt.",
        "config": [],
        "related_apps": ["os"],
        "user": {
            "persona": "Dana, who owns this computer.",
            "knows": ["Your favourite colour is ochre."],
            "does_not_know": ["Anything about files or programs."],
            "answers": "briefly",
        },
        "evaluator": {
            "func": "exact_match",
            "result": {"type": "vm_command_line", "command": "cat /home/user/colour.txt", "shell": True},
            "expected": {"type": "rule", "rules": {"expected": "ochre"}},
        },
    }
    path = tmp_path / "favourite-colour.json"
    path.write_text(json.dumps(task))
    return path


@pytest.mark.slow
def test_simulated_user_plays_the_task_persona_through_the_anthropic_sdk(tmp_path, monkeypatch):
    main = script(
        tmp_path,
        [
            ask(),
            ask("Lower case?", expect={"contains": "The user answered:\nOchre."}),
            {
                "tool_calls": [{"name": "bash", "input": {"command": "printf ochre > ~/colour.txt"}}],
                "expect": {"contains": "yes"},
            },
            finish(),
        ],
    )
    replies = [anthropic_reply(text="Ochre."), anthropic_reply(text="yes")]
    with AnthropicWireServer(replies) as server:
        args = [
            *run_args(tmp_path, main, "--user-model", f"anthropic:claude-sonnet-4-5@{server.base_url}"),
            "--task",
            str(write_task(tmp_path)),
            "--results",
            str(tmp_path / "results"),
            "--cache",
            str(tmp_path / "cache"),
        ]
        args.remove(INSTRUCTION)
        done = stateact_in_process(*args, cwd=tmp_path, monkeypatch=monkeypatch)
        requests = list(server.requests)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "score 1" in done.stdout
    first, second = requests
    assert "Your favourite colour is ochre." in str(first["system"])
    assert QUESTION in json.dumps(first["messages"])
    assert "Q: Which colour is your favourite?\\n  A: Ochre." in json.dumps(second["messages"])
    run_dir = the_run(tmp_path)
    assert answers(run_dir) == [("Ochre.", "simulated"), ("yes", "simulated")]
    result = json.loads((run_dir / "result.json").read_text())
    assert result["spend"]["by_role"]["user"]["turns"] == 2
    (traj,) = (tmp_path / "results").rglob("traj.jsonl")
    rows = [json.loads(line) for line in traj.read_text().splitlines()]
    assert [(r["question"], r["user_response"]) for r in rows if r["action"] == "ASK_USER"] == [
        (QUESTION, "Ochre."),
        ("Lower case?", "yes"),
    ]


def test_a_resumed_run_keeps_its_questions_and_answers(tmp_path):
    user = script(tmp_path, ["first", "second", "third"], "user.json")
    main = script(
        tmp_path,
        [
            ask("one?"),
            ask("two?", expect={"contains": "first"}),
            ask("three?", expect={"contains": "second"}),
            finish(expect={"contains": "third"}),
        ],
    )
    stopped = execute(run_config(tmp_path, main, max_turns=2, user=f"scripted:{user}"))
    assert stopped.status == "budget"
    done = resume(Path(stopped.run_dir), max_turns=4)
    assert done.status == "finished", done.text
    assert answers(Path(done.run_dir)) == [
        ("first", "scripted"),
        ("second", "scripted"),
        ("third", "scripted"),
    ]


def test_the_gate_sees_the_users_answers_as_clarifications_of_the_instruction(tmp_path):
    with run_context(tmp_path, task=INSTRUCTION) as context:
        gate = FinishGate(context, task_started_at=1.0)
        assert "<user_answers>" not in gate._task_text([], "gate#1", [])
        context.log.emit(UserQuestion(question=QUESTION, answerer="scripted"))
        context.log.emit(UserAnswer(answer="teal", answerer="scripted"))
        context.log.emit(UserQuestion(question="Lower case?", answerer="scripted"))
        context.log.emit(UserAnswer(answer=None, answerer="scripted", reason="none left"))
        text = gate._task_text([], "gate#1", [])
        claim = gate._task_text([], "gate#1", [], claim="No such file.")
    for prompt in (text, claim):
        assert f'<user_answers>\n- asked: "{QUESTION}"\n  answered: "teal"\n</user_answers>' in prompt
        assert "Lower case?" not in prompt
