"""The gate accuracy corpus: every case spec is well-formed, and cases staged for real get the pre-gate's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.evals import settings
from stateact.evals.authoring.gate_corpus import (
    CORPUS_DIR,
    KINDS,
    CaseError,
    StagedCase,
    check_balance,
    load_cases,
    pregate_verdict,
    rates,
    staged_case,
    suite_tasks,
)
from stateact.gate.inspect.changes import describe_changes, load_baseline
from stateact.gate.inspect.deliverables import mentioned_paths
from stateact.gate.inspect.pregate import PregateResult, run_pregate
from stateact.kernel.events import read_events
from stateact.sandbox.office_profile import PROFILE_USER_DIR, SETTINGS_NAME


def test_every_case_is_well_formed_and_the_corpus_is_balanced() -> None:
    cases = load_cases()  # raises on an unknown task, a bad step, a replacement that matches nothing
    tasks = suite_tasks()

    assert len(cases) >= 40
    check_balance(cases)
    assert {c.kind for c in cases} == set(KINDS)
    for case in cases:
        assert case.reason.strip() and case.expected in ("pass", "fail")
        assert (case.kind == "correct") == (case.expected == "pass"), case.id
        if case.infeasible_claim is not None and case.expected == "pass":
            assert tasks[case.task].infeasible, f"{case.id}: a true claim needs an infeasible task"
    shares = [sum(c.expected == side for c in cases) / len(cases) for side in ("pass", "fail")]
    assert min(shares) >= settings.GATE_CORPUS_MIN_SHARE


def test_a_replacement_that_matches_no_solution_command_is_a_clear_error(tmp_path: Path) -> None:
    spec = json.loads((CORPUS_DIR / "calc-reorder-list-wrong-value.json").read_text())
    spec["steps"][0]["replace"] = [["no such text", "x"]]
    (tmp_path / f"{spec['id']}.json").write_text(json.dumps(spec))

    with pytest.raises(CaseError, match="'no such text' is in none of the solution's bash commands"):
        load_cases(tmp_path)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("instruction", "", "at least 1 character"),
        ("setup", [{"run": "solution"}], "setup.0.command"),
    ],
)
def test_a_case_s_own_instruction_and_setup_are_validated(
    field: str, value: object, message: str, tmp_path: Path
) -> None:
    spec = json.loads((CORPUS_DIR / "logs-folder-correct.json").read_text())
    spec[field] = value
    (tmp_path / f"{spec['id']}.json").write_text(json.dumps(spec))

    with pytest.raises(CaseError, match=message):
        load_cases(tmp_path)


def test_rates_count_wrong_ones_failed_and_correct_ones_failed() -> None:
    catch, false_fail = rates(["fail", "fail", "pass", "pass"], ["fail", "pass", "pass", "fail"])

    assert (catch, false_fail) == (0.5, 0.5)


@pytest.mark.parametrize(
    "case_id",
    [
        "calc-merge-monthly-correct",
        "calc-merge-monthly-wrong-folder",
        "calc-grade-book-uncached-formulas",
        "home-errors-txt-correct",
        "home-errors-txt-wrong-folder",
    ],
)
@pytest.mark.slow
def test_staged_cases_get_the_expected_pregate_verdict(
    case_id: str, tmp_path: Path, built_fixtures: Path
) -> None:
    [case] = load_cases(only=[case_id])

    with staged_case(case, tmp_path / "case", built_fixtures) as staged:
        verdict = pregate_verdict(staged)
        events = list(read_events(staged.context.run_dir / "events.jsonl"))

    assert verdict == case.expected
    assert any(e.kind == "gate_baseline" for e in events)  # taken after the setup, as a run does


def _staged_facts(case_id: str, root: Path, fixtures: Path) -> tuple[StagedCase, PregateResult, str]:
    """The case staged in `root` with its pre-gate result and the gate's 'What changed' text (sandbox closed)."""
    [case] = load_cases(only=[case_id])
    with staged_case(case, root, fixtures) as staged:
        context = staged.context
        result = run_pregate(context.sandbox, mentioned_paths(context.task), staged.started_at)
        changes = describe_changes(context.sandbox, context.run_dir, context.log, "gate#1", context.task)
    return staged, result, changes


@pytest.mark.slow
def test_a_profile_an_app_run_rewrote_is_no_change_of_the_task(tmp_path: Path, built_fixtures: Path) -> None:
    staged, result, changes = _staged_facts(
        "office-profile-export-correct", tmp_path / "case", built_fixtures
    )
    profile = f"/home/user/{PROFILE_USER_DIR}/{SETTINGS_NAME}"
    recorded = load_baseline(staged.context.run_dir).old_bytes(profile)

    assert (
        recorded is not None
        and (tmp_path / "case" / "home" / PROFILE_USER_DIR / SETTINGS_NAME).read_bytes() != recorded
    )
    assert SETTINGS_NAME not in changes and "+ added: /home/user/Documents/handbook.pdf" in changes
    assert not result.findings and not result.notes


@pytest.mark.slow
def test_the_logs_of_a_named_folder_are_in_the_baseline_and_a_changed_one_shows(
    tmp_path: Path, built_fixtures: Path
) -> None:
    staged, result, changes = _staged_facts("logs-folder-input-changed", tmp_path / "case", built_fixtures)
    recorded = load_baseline(staged.context.run_dir).files
    logs = sorted(p for p, fact in recorded.items() if p.startswith("/home/user/logs/") and fact["copy"])

    assert [p.rsplit("/", 1)[1] for p in logs] == [
        f"{n}.log" for n in ("auth", "billing", "cron", "mail", "web", "worker")
    ]
    assert "~ changed: /home/user/logs/billing.log" in changes
    assert "-08:30 ERROR billing: card declined for order 4411" in changes
    assert changes.count("/home/user/logs/") == 1  # the five logs left alone are not listed
    assert not result.findings


@pytest.mark.slow
def test_a_running_script_is_an_input_the_pregate_does_not_ask_to_change(
    tmp_path: Path, built_fixtures: Path
) -> None:
    staged, result, changes = _staged_facts("process-script-correct", tmp_path / "case", built_fixtures)

    assert [(f["path"], f["exists"]) for f in result.facts] == [("~/my_process.sh", True)]
    assert not result.findings and not result.notes
    assert changes.startswith("(nothing changed")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case_id", "noted"), [("bare-name-notes-correct", False), ("bare-name-notes-wrong-folder", True)]
)
def test_a_bare_file_name_is_checked_in_the_home_folder(
    case_id: str, noted: bool, tmp_path: Path, built_fixtures: Path
) -> None:
    staged, result, changes = _staged_facts(case_id, tmp_path / "case", built_fixtures)
    [notes_fact] = [f for f in result.facts if f["path"] == "~/notes.txt"]

    assert notes_fact["resolved"] == "/home/user/notes.txt" and notes_fact["exists"]
    assert notes_fact["modified_after_start"] is not noted
    assert not result.findings  # an inferred location is a note to the gate model, never a FAIL
    assert any(n.startswith("~/notes.txt: the file has not been changed") for n in result.notes) is noted
