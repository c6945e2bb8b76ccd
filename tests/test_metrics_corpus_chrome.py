"""Every case of Chrome's differential corpus scores as OSWorld's own metric code scored it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.metrics import METRICS
from evals.metrics_corpus.cases_chrome import CASES, call

TABLE = json.loads(
    (Path(__file__).parents[1] / "evals/metrics_corpus/osworld_scores_chrome.json").read_text()
)


def test_the_table_covers_every_case():
    assert set(TABLE) == set(CASES) and len(CASES) >= 60


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_case_agrees_with_osworld(case_id):
    theirs = TABLE[case_id]
    if "raises" in theirs:
        with pytest.raises(Exception):  # noqa: B017 - OSWorld raised; its runner records no score
            call(METRICS, CASES[case_id])
    else:
        assert call(METRICS, CASES[case_id]) == theirs["score"]
