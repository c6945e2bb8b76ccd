"""Every case of each differential corpus scores as OSWorld's own metric code scored it."""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import math
from pathlib import Path

import pytest

from stateact.evals.osworld.metric_call import call_metric
from stateact.evals.osworld.metrics import METRICS
from stateact.evals.osworld.metrics.explain import collect

APP_FIXTURES = frozenset({"built"})
"""The fixtures here that start a real application: their tests are marked `apps`."""

CORPUS = Path(__file__).parents[1] / "tests/metrics_corpus"
FAMILIES = [
    ("cases", "osworld_scores.json", 150),
    ("cases_general", "osworld_scores_general.json", 150),
    ("cases_chrome", "osworld_scores_chrome.json", 60),
    ("cases_docs", "osworld_scores_docs.json", 150),
    ("cases_slides", "osworld_scores_slides.json", 140),
    ("cases_media", "osworld_scores_media.json", 100),
]
"""Per metric family: its corpus module, OSWorld's table of it, and the least number of cases."""
TOLERANCE = 1e-9
"""Scores are ratios computed the same way; only float rounding may differ."""


def _confined(name: str, *args, **options) -> float:
    return call_metric(name, args, options)[0]


CONFINED = {name: functools.partial(_confined, name) for name in METRICS}
"""The metrics as scoring calls them: each call in a limited child (evals/osworld/metric_call.py)."""


@functools.cache
def _module(name: str):
    return importlib.import_module(f"tests.metrics_corpus.{name}")


@functools.cache
def _table(name: str) -> dict:
    return json.loads((CORPUS / name).read_text())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each family's cases, built once, by module name."""
    return {name: _module(name).build(tmp_path_factory.mktemp(name)) for name, _, _ in FAMILIES}


@pytest.mark.parametrize(("module", "table", "least"), FAMILIES)
def test_the_table_covers_every_case(module, table, least):
    cases = _module(module).CASES
    assert set(_table(table)) == set(cases) and len(cases) >= least


@pytest.mark.parametrize(
    ("module", "table", "case_id"),
    [(module, table, case_id) for module, table, _ in FAMILIES for case_id in sorted(_module(module).CASES)],
)
@pytest.mark.parametrize("way", ["plain", "explained", "confined"])
def test_case_agrees_with_osworld(module, table, case_id, built, way):
    """Also while scoring keeps the metric's notes (evals/osworld/metrics/explain.py): explaining never
    changes a score; and as scoring calls it, in a limited child."""
    theirs = _table(table)[case_id]
    call = functools.partial(_module(module).call, CONFINED if way == "confined" else METRICS)
    with collect() if way == "explained" else contextlib.nullcontext():
        if "raises" in theirs:
            with pytest.raises(Exception):  # noqa: B017 - OSWorld raised; its runner records no score
                call(built[module][case_id])
        else:
            assert math.isclose(call(built[module][case_id]), theirs["score"], abs_tol=TOLERANCE)
