"""The long suite's `trainer-claims-correction` task (evals/authoring/long_correction_task.py): a correction
lands in the mailbox mid-task and changes deliverables already made. Its reference scores 1.0, a
do-nothing run 0, and a run that made the deliverables and never read the mail again less than 1, failing
exactly the checkpoints the correction touches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.evals.authoring.long_correction_task import (
    CORRECTION_AFTER_STEPS,
    LONG_SUITE,
    TASK_ID,
    ignoring_script,
    probes,
    spec,
)
from stateact.evals.osworld.task import load_task
from stateact.evals.running.results import read_score_parts
from stateact.evals.running.suite import discover
from stateact.kernel.events import read_events
from tests.test_long_suite_b import MIN_APPS, MIN_CHECKPOINTS
from tests.test_resume import run_cli

TASK_FILE = LONG_SUITE / f"{TASK_ID}.json"


def test_the_task_is_long_schedules_the_correction_and_gives_the_user_who_sent_it():
    (task,) = discover(LONG_SUITE, only=[TASK_ID])
    assert task.checkpoints >= MIN_CHECKPOINTS and len(task.task.related_apps) >= MIN_APPS
    loaded = load_task(TASK_FILE)
    (change,) = loaded.schedule
    assert change.after_steps == CORRECTION_AFTER_STEPS and [s.type for s in change.steps] == ["deliver_mail"]
    assert (
        "95" in change.steps[0].parameters["body"]
        and "Data cleaning II" in change.steps[0].parameters["body"]
    )
    assert "Maildir" in loaded.instruction and "latest figures" in loaded.instruction
    assert "Dana Whitfield" in loaded.persona and "cancelled" in loaded.persona
    commands = [getter.command for getter in loaded.evaluator.result]
    assert len(commands) == len(
        probes()
    )  # the file is the builder's (rebuild: python -m ...long_correction_task)
    solution = json.loads((LONG_SUITE / f"{TASK_ID}.solution.json").read_text())
    assert solution["roles"] == json.loads(json.dumps(spec().solution))


def play(tmp_path: Path, name: str, script: dict | list, harness: str) -> tuple[Path, Path]:
    """The task played by `script`; (its results folder, its run folder)."""
    (tmp_path / f"{name}.json").write_text(json.dumps(script))
    results, runs = tmp_path / f"results-{name}", tmp_path / f"runs-{name}"
    args = ("--model", f"scripted:{tmp_path / f'{name}.json'}", "--harness", harness, "--no-display")
    args += ("--results", str(results), "--runs-root", str(runs), "--cache", str(tmp_path / "cache"))
    run_cli("run", "--task", str(TASK_FILE), *args, timeout=300)
    (result_txt,) = results.rglob("result.txt")
    (run_dir,) = runs.iterdir()
    return result_txt.parent, run_dir


@pytest.mark.slow
def test_the_reference_follows_the_correction_and_a_run_that_ignores_it_scores_less(tmp_path):
    reference = json.loads((LONG_SUITE / f"{TASK_ID}.solution.json").read_text())
    followed, run_dir = play(tmp_path, "reference", reference, "stateact")
    assert float((followed / "result.txt").read_text()) == 1.0
    (made,) = [e for e in read_events(run_dir / "events.jsonl") if e.kind == "scheduled_change"]
    assert made.at_step == CORRECTION_AFTER_STEPS and not made.failed

    ignored, _ = play(tmp_path, "ignoring", ignoring_script(), "stateact")
    assert float((ignored / "result.txt").read_text()) == 0.0  # every checkpoint must hold
    parts = read_score_parts(ignored)
    failed = [index for index, part in enumerate(parts) if part["score"] < 1.0]
    # the rows of Marco Rossi (cancelled session) and Priya Shah (rate), the Total, the held sessions
    # (count, dates, rows), their payments and letters; the other trainers' rows, letters and payments pass
    assert len(parts) == 23 and failed == [3, 5, 6, 9, 10, 11, 15, 17, 20, 22]

    finish = [{"tool_calls": [{"name": "finish", "input": {"summary": "nothing to do"}}]}]
    nothing, _ = play(tmp_path, "nothing", finish, "no-verify")
    assert float((nothing / "result.txt").read_text()) == 0.0
    assert all(part["score"] == 0.0 for part in read_score_parts(nothing))
