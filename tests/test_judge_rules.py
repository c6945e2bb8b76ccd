"""The judge's rule: a rollout that passed beats one whose gate failed or whose run errored, decided
without a model call when it settles the pick."""

from __future__ import annotations

import json

from stateact.gate.judge.evidence import Evidence
from stateact.gate.judge.judge import judge_request, judge_rollouts

PASSED = Evidence("finished", gate_passed=True, changes="Costs!B5: (empty) → 1440")
GATE_FAILED = Evidence("finished", gate_passed=False, changes="Costs!B5: (empty) → 1404")
ERRORED = Evidence("error")
NO_GATE = Evidence("finished", gate_passed=None, changes="Costs!B5: (empty) → 1450")


def test_the_only_rollout_that_passed_is_picked_without_a_model(tmp_path):
    pick = judge_rollouts("task", [GATE_FAILED, ERRORED, PASSED], None, tmp_path)
    assert (pick.rollout, pick.by, pick.passed) == (3, "rule", [3])
    assert not (tmp_path / "events.jsonl").exists()
    assert json.loads((tmp_path / "judge.json").read_text())["rollout"] == 3


def test_a_run_that_stopped_without_finish_or_errored_does_not_pass():
    assert not Evidence("budget").passed and not ERRORED.passed and not GATE_FAILED.passed
    assert PASSED.passed and NO_GATE.passed


def test_when_several_passed_the_failed_ones_are_no_candidates(tmp_path):
    pick = judge_rollouts("task", [GATE_FAILED, NO_GATE, PASSED], None, tmp_path)
    assert pick.candidates == [2, 3]
    assert (pick.rollout, pick.by) == (2, "fallback")
    assert "no judge model" in pick.reasons


def test_when_none_passed_every_rollout_with_evidence_is_a_candidate(tmp_path):
    assert judge_rollouts("task", [GATE_FAILED, None, ERRORED], None, tmp_path).candidates == [1, 3]
    single = judge_rollouts("task", [None, GATE_FAILED, None], None, tmp_path)
    assert (single.rollout, single.by) == (2, "rule")


def test_the_request_holds_each_candidates_state_and_verdict():
    text = judge_request("Put the total in B5", {1: PASSED, 3: GATE_FAILED})
    assert "## Candidate 1" in text and "## Candidate 3" in text and "## Candidate 2" not in text
    assert "→ 1440" in text and "→ 1404" in text
    assert "Finish gate: PASS" in text and "Finish gate: FAIL" in text
