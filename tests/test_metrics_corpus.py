"""Every case of the differential corpora scores as OSWorld's own metric code scored it: the office
metrics (cases.py) and the image and VLC metrics (cases_media.py)."""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path

import pytest

from evals.metrics import METRICS

CORPUS = Path(__file__).parents[1] / "evals/metrics_corpus"
CORPORA = {"cases": ("osworld_scores.json", 150), "cases_media": ("osworld_scores_media.json", 100)}
"""Corpus module -> (its table of OSWorld's scores, the fewest cases it must have)."""
MODULES = {name: importlib.import_module(f"evals.metrics_corpus.{name}") for name in CORPORA}
TABLES = {name: json.loads((CORPUS / table).read_text()) for name, (table, _) in CORPORA.items()}
TOLERANCE = 1e-9
"""Scores are computed the same way (SSIM in float64, as scikit-image); only float rounding may differ."""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return {name: module.build(tmp_path_factory.mktemp(name)) for name, module in MODULES.items()}


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_the_table_covers_every_case(corpus):
    assert set(TABLES[corpus]) == set(MODULES[corpus].CASES)
    assert len(MODULES[corpus].CASES) >= CORPORA[corpus][1]


@pytest.mark.parametrize(
    ("corpus", "case_id"),
    [(corpus, case_id) for corpus in sorted(CORPORA) for case_id in sorted(TABLES[corpus])],
)
def test_case_agrees_with_osworld(corpus, case_id, built):
    theirs, case, call = TABLES[corpus][case_id], built[corpus][case_id], MODULES[corpus].call
    if "raises" in theirs:
        with pytest.raises(Exception):  # noqa: B017 - OSWorld raised; its runner records no score
            call(METRICS, case)
    else:
        assert math.isclose(call(METRICS, case), theirs["score"], abs_tol=TOLERANCE)
