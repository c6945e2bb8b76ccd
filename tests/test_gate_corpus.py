"""The gate accuracy corpus: every case spec is well-formed, and cases staged for real get the pre-gate's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import settings
from evals.authoring.gate_corpus import (
    CORPUS_DIR,
    KINDS,
    CaseError,
    check_balance,
    load_cases,
    pregate_verdict,
    rates,
    staged_case,
    suite_tasks,
)
from stateact.kernel.events import read_events


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


def test_rates_count_wrong_ones_failed_and_correct_ones_failed() -> None:
    catch, false_fail = rates(["fail", "fail", "pass", "pass"], ["fail", "pass", "pass", "fail"])

    assert (catch, false_fail) == (0.5, 0.5)


@pytest.mark.parametrize(
    "case_id",
    ["calc-merge-monthly-correct", "calc-merge-monthly-wrong-folder", "calc-grade-book-uncached-formulas"],
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
