"""Every case of the differential corpus scores as OSWorld's own metric code scored it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evals.metrics import METRICS
from evals.metrics_corpus.cases import CASES, build, call

TABLE = json.loads((Path(__file__).parents[1] / "evals/metrics_corpus/osworld_scores.json").read_text())
TOLERANCE = 1e-9
"""Scores are ratios computed the same way; only float rounding may differ."""


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return build(tmp_path_factory.mktemp("corpus"))


def test_the_table_covers_every_case():
    assert set(TABLE) == set(CASES) and len(CASES) >= 150


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_case_agrees_with_osworld(case_id, cases):
    theirs = TABLE[case_id]
    if "raises" in theirs:
        with pytest.raises(Exception):  # noqa: B017 - OSWorld raised; its runner records no score
            call(METRICS, cases[case_id])
    else:
        assert math.isclose(call(METRICS, cases[case_id]), theirs["score"], abs_tol=TOLERANCE)
