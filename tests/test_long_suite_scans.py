"""The long suite's scanned-paper task, service-warranty-claims (evals/authoring/long_scan_tasks.py): its facts
exist only in scans, its reference solution reads them with the editor's `view` (no GUI delegation to read a
file), its gate looks at a scan, and its checkers score the reference 1.0, an untouched home 0 and every
mutated deliverable lower. The task files are written by `python -m stateact.evals.authoring.long_scan_tasks`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl
import pytest

from stateact.evals.authoring import long_scan_tasks as authoring
from stateact.evals.authoring.long_events_tasks import LONG_SUITE
from stateact.evals.authoring.long_tasks import build_all
from stateact.evals.authoring.sensitivity import originals, task_sensitivity
from stateact.evals.fixtures import long_scans as data
from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.scoring import score_task
from stateact.evals.running.runner import map_task
from stateact.evals.running.suite import discover
from stateact.evals.running.validate import validate_task
from stateact.kernel.images import image_format
from stateact.kernel.tools.pdf_view import pdf_text
from stateact.sandbox.local import LocalSandbox
from tests.support.tool_calls import calls_in
from tests.test_eval_suite import assert_downloads_resolve

(TASK,) = discover(LONG_SUITE, only=[data.TASK])
SCANS = [f"{data.TASK}_{job.file}" for job in data.JOBS] + [f"{data.TASK}_quote.pdf"]
NO_TEXT = "(no text on this page: a scan or a picture)"


def roles() -> dict[str, list[dict]]:
    return json.loads(TASK.solution_path.read_text(encoding="utf-8"))["roles"]


def scan_paths() -> list[str]:
    """Where the task's setup puts each scan."""
    return [
        item["path"]
        for step in TASK.task.config
        if step.type == "download"
        for item in step.parameters["files"]
        if item["url"].rsplit("/", 1)[1] in SCANS
    ]


def only_in_scans() -> list[str]:
    """Facts the deliverables carry that the scans alone show: the quotation's number and labour rate, each
    claim's service date and amount (its parts and hours at the quotation's prices)."""
    claims, _ = authoring.decisions()
    return [data.QUOTE_NUMBER, f"{data.LABOUR_RATE:.2f}"] + [
        f for c in claims for f in (c["date"], f"{c['total']:.2f}")
    ]


def test_the_task_is_long_and_reads_every_scan_with_the_editor_not_the_gui() -> None:
    assert TASK.checkpoints >= 20 and len(TASK.task.related_apps) >= 2
    script = roles()
    main, gate = calls_in(script["main"]), calls_in(script["gate"])
    assert len(main[0]["input"]["items"]) >= 8
    viewed = {c["input"]["path"] for c in main if c["name"] == authoring.EDITOR}
    assert viewed == set(scan_paths()) and len(viewed) == len(SCANS)
    pages = [c["input"].get("view_range") for c in main if c["input"].get("path", "").endswith(".pdf")]
    assert pages == [None]  # the PDF has no text: one view shows both its pages as pictures
    for call in main + gate:  # no shell reads a scan, and the one GUI delegation enters the claims
        assert not re.search(r"\.(png|jpg|pdf)\b", call["input"].get("command", "")), call
    delegations = [c["input"]["subgoal"] for c in main if c["name"].startswith("delegate_")]
    assert len(delegations) == 1 and "Warranty Claims window" in delegations[0]
    assert [c["name"] for c in gate] == [authoring.EDITOR, "bash", "verdict"]
    assert gate[0]["input"]["path"] in scan_paths() and gate[-1]["input"]["verdict"] == "PASS"


def test_the_scans_are_pictures_and_their_facts_are_nowhere_else(built_fixtures: Path) -> None:
    assert_downloads_resolve([TASK], built_fixtures)
    for name in SCANS[:-1]:
        assert image_format((built_fixtures / name).read_bytes()) in ("PNG", "JPEG"), name
    assert pdf_text((built_fixtures / SCANS[-1]).read_bytes()).count(NO_TEXT) == 2
    register = openpyxl.load_workbook(built_fixtures / f"{data.TASK}_assets.xlsx")
    cells = [str(v) for ws in register for row in ws.iter_rows(values_only=True) for v in row]
    readable = "\n".join(
        [TASK.task.instruction, (built_fixtures / f"{data.TASK}_policy.txt").read_text(), *cells]
    )
    assert not [fact for fact in only_in_scans() if fact in readable]
    expected = json.dumps(TASK.task.evaluator.model_dump(mode="json")["expected"])
    assert all(fact in expected for fact in only_in_scans())  # the checkers need every one of them


@pytest.mark.slow
def test_the_builder_writes_the_committed_task(tmp_path: Path) -> None:
    build_all([make() for make in authoring.SPECS], tmp_path)
    for name in (TASK.path.name, TASK.solution_path.name):
        assert (tmp_path / name).read_text() == (LONG_SUITE / name).read_text(), name


@pytest.mark.slow
def test_a_home_where_nothing_was_done_scores_zero(built_fixtures: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    sandbox = LocalSandbox(home)
    sandbox.start()
    try:
        task, cache = map_task(TASK.task, sandbox), FileCache(built_fixtures)
        for path, body in originals(task, cache).items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(body)
        report = score_task(task, sandbox, cache, tmp_path / "score", False, TASK.path.parent)
    finally:
        sandbox.close()
    assert report.score == 0.0
    assert report.checkpoints[0] == 1  # only the untouched asset register holds


@pytest.mark.apps
@pytest.mark.slow
def test_the_reference_solution_is_valid_and_every_mutated_deliverable_scores_lower(
    built_fixtures: Path, tmp_path: Path
) -> None:
    row = validate_task(TASK, built_fixtures, tmp_path)
    assert row.valid, row
    assert row.checkpoints == row.met == TASK.checkpoints
    measured = task_sensitivity(TASK, tmp_path / "homes" / TASK.id, built_fixtures, tmp_path / "mutations")
    assert not measured.skipped and len(measured.outcomes) >= 6
    assert measured.caught == len(measured.outcomes), [o for o in measured.outcomes if not o.caught]


def test_the_suite_readme_lists_the_task() -> None:
    readme = (LONG_SUITE / "README.md").read_text(encoding="utf-8")
    assert f"| {TASK.id} |" in readme
