"""`stateact eval run --user / --user-model`: who answers the agents' questions in a suite. The long
suite's supplier-price-rise (whose reference asks, and needs the answer) is played through the real CLI,
harness and sandbox: a script answers, the reference's own simulated user answers, a simulated user
given by --user-model answers, a second player answers in a relay folder, or nobody does (the
reference, which needs the answer, stops short of its deliverables: 0)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from stateact.evals.authoring.long_events_tasks import LONG_SUITE
from stateact.evals.authoring.long_user_tasks import RISE_ANSWER
from stateact.evals.fixtures.long_user import RISE_ID
from stateact.evals.running.jobs import SuiteJob, job_user
from stateact.evals.running.suite import discover
from stateact.kernel.events import UserAnswer, read_events
from stateact.kernel.models.relay import pending_stem
from tests.test_eval_runner import run_cli

TASK = ["eval", "run", str(LONG_SUITE), "--task-id", RISE_ID, "--no-html", "--no-record"]


def test_bad_user_arguments_are_refused_before_anything_starts(tmp_path):
    script = tmp_path / "answers.json"
    script.write_text(json.dumps([RISE_ANSWER]))
    results = tmp_path / "results"
    for args, message in [
        (["--user", "terminal"], "needs a person at the run's terminal"),
        (["--user", "someone"], "bad --user 'someone'"),
        (["--user", f"scripted:{tmp_path / 'missing.json'}"], "cannot read the user's script"),
        (["--user", f"relay:{tmp_path / 'no' / 'such'}"], "does not exist"),
        (["--user", "none", "--user-model", f"scripted:{script}"], "not both"),
    ]:
        code, output = run_cli(*TASK, "--results", str(results), *args)
        assert code == 2 and message in output, (args, output)
        assert not results.exists()


def test_each_job_gets_a_relay_folder_of_its_own_and_a_script_from_its_start(tmp_path):
    task = discover(LONG_SUITE, only=[RISE_ID])[0]
    one, two = SuiteJob(task, "stateact"), SuiteJob(task, "bash-only")
    relays = {job_user(f"relay:{tmp_path}", job) for job in (one, two)}
    assert relays == {
        f"relay:{tmp_path / 'stateact/long' / RISE_ID}",
        f"relay:{tmp_path / 'bash-only/long' / RISE_ID}",
    }
    assert job_user("scripted:/a.json", one) == "scripted:/a.json" and job_user(None, one) is None


def answers(results: Path) -> list[tuple[str | None, str]]:
    (log,) = results.rglob("events.jsonl")
    return [(e.answer, e.answerer) for e in read_events(log) if isinstance(e, UserAnswer)]


def score(results: Path) -> float | None:
    found = list(results.rglob("result.txt"))
    return float(found[0].read_text()) if found else None


def answer_in(folder: Path) -> None:
    """Answer the first question that appears in the relay folder `folder`."""
    deadline = time.monotonic() + 120
    while (stem := pending_stem(folder)) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    (folder / f"{stem}.reply.txt").write_text(RISE_ANSWER)


@pytest.mark.slow
@pytest.mark.apps
@pytest.mark.parametrize(
    ("user", "answerer", "full_marks"),
    [
        ("scripted", "scripted", True),
        ("reference", "simulated", True),
        ("model", "simulated", True),
        ("relay", "relay", True),
        ("none", "nobody", False),
    ],
)
def test_the_suites_questions_are_answered_by_the_user_given(
    tmp_path, built_fixtures, user, answerer, full_marks
):
    script = tmp_path / "answers.json"
    script.write_text(json.dumps([RISE_ANSWER]))
    model = tmp_path / "user.json"
    model.write_text(json.dumps({"roles": {"user": [{"text": RISE_ANSWER}]}}))
    args = {
        "scripted": ["--user", f"scripted:{script}"],
        "reference": [],
        "model": ["--user-model", f"scripted:{model}"],
        "relay": ["--user", f"relay:{tmp_path / 'relay'}"],
        "none": ["--user", "none"],
    }[user]
    results = tmp_path / "results"
    answering = threading.Thread(
        target=answer_in, args=(tmp_path / "relay" / "stateact/long" / RISE_ID,), daemon=True
    )
    if user == "relay":  # a second player answers in the task's own relay folder
        answering.start()
    cache = ("--cache", str(built_fixtures))  # built once for the run, not at each of these runs
    code, output = run_cli(*TASK, "--results", str(results), "--workers", "1", *cache, *args)
    expected = RISE_ANSWER if full_marks else None
    assert answers(results) == [(expected, answerer)], output
    assert (code, score(results)) == (0, 1.0 if full_marks else 0.0), output
    assert ("questions to the user appear in" in output) == (user == "relay")
