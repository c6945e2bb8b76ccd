"""Every case of the differential corpus scores as OSWorld's own metric code scored it."""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path

import pytest

from evals.metrics import METRICS

CORPUS = Path(__file__).parents[1] / "evals/metrics_corpus"
FAMILIES = {
    "cases": ("osworld_scores.json", 150),
    "cases_slides": ("osworld_scores_slides.json", 140),
}
"""Corpus module -> (OSWorld's score table, the fewest cases it may have)."""
TOLERANCE = 1e-9
"""Scores are ratios computed the same way; only float rounding may differ."""


def _module(family: str):
    return importlib.import_module(f"evals.metrics_corpus.{family}")


def _table(family: str) -> dict:
    return json.loads((CORPUS / FAMILIES[family][0]).read_text())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return {family: _module(family).build(tmp_path_factory.mktemp(family)) for family in FAMILIES}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_table_covers_every_case(family):
    cases = _module(family).CASES
    assert set(_table(family)) == set(cases) and len(cases) >= FAMILIES[family][1]


@pytest.mark.parametrize(
    ("family", "case_id"),
    [(family, case_id) for family in FAMILIES for case_id in sorted(_module(family).CASES)],
)
def test_case_agrees_with_osworld(family, case_id, built):
    theirs, case, call = _table(family)[case_id], built[family][case_id], _module(family).call
    if "raises" in theirs:
        with pytest.raises(Exception):  # noqa: B017 - OSWorld raised; its runner records no score
            call(METRICS, case)
    else:
        assert math.isclose(call(METRICS, case), theirs["score"], abs_tol=TOLERANCE)
