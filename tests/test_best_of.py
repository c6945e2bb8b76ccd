"""Best-of-N: three rollouts of each office task through the real Anthropic SDK against local wire
servers; the judge (a wire model that must read the state evidence) picks, the pick is scored, and
the suite table has pass@N and the judge's pick accuracy."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stateact.evals.cli import eval_app
from tests.support.best_of_scripts import (
    MARKER,
    MODEL,
    RolloutRouter,
    budget_totals,
    judge_turn,
    read_request,
    rollout,
    shows,
)

SUITE = Path(__file__).parent / "fixtures" / "bestofn"
"""Two short calc tasks (office-style workbooks made by their setup)."""


def best_of_3(main, judge) -> list[str]:
    """Options of three rollouts on the no-verify harness, the models being the wire servers `main` and `judge`."""
    return [
        "--best-of",
        "3",
        "--harness",
        "no-verify",
        "--model",
        f"anthropic:{MODEL}@{main.base_url}",
        "--judge-model",
        f"anthropic:{MODEL}@{judge.base_url}",
    ]


def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(eval_app, list(args), catch_exceptions=False)
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture(scope="module")
def suite_run(tmp_path_factory):
    """The office suite of two calc tasks, three rollouts each: budget (right, wrong value, provider
    error) and rates (two wrong values, provider error)."""
    from tests.support.wire_servers import AnthropicWireServer

    router = RolloutRouter(
        {
            "budget.xlsx": [
                rollout("Costs", {"A5": "Total", "B5": 1404}),
                rollout("Costs", {"A5": "Total", "B5": 1440}),
            ],
            "rates.xlsx": [
                rollout("Rates", {"A3": "Converted", "B3": 250}),
                rollout("Rates", {"A3": "Converted", "B3": 350}),
            ],
        }
    )
    root = tmp_path_factory.mktemp("bestof")
    with AnthropicWireServer([router] * 30) as main, AnthropicWireServer([judge_turn] * 2) as judge:
        code, output = run_cli(
            "run",
            str(SUITE),
            *best_of_3(main, judge),
            "--workers",
            "3",
            "--no-display",
            "--no-html",
            "--results",
            str(root),
            "--cache",
            str(root / "cache"),
        )
        judge_requests = list(judge.requests)
    return root, code, output, judge_requests


def _task(root: Path, task_id: str) -> Path:
    (folder,) = root.glob(f"no-verify/*/calc/{task_id}")
    return folder


@pytest.mark.slow
def test_the_judge_picks_the_right_rollout_from_state_evidence_alone(suite_run):
    root, code, output, judge_requests = suite_run
    assert code == 0, output
    assert len(judge_requests) == 2
    for request in judge_requests:
        assert MARKER not in json.dumps(request)
    budget_request = next(r for r in judge_requests if "budget.xlsx" in json.dumps(r["messages"][0]))
    candidates, _, _ = read_request(budget_request)
    assert [shows(text, "B5", "1440") for text in candidates.values()].count(True) == 1
    assert [shows(text, "B5", "1404") for text in candidates.values()].count(True) == 1
    budget = json.loads((_task(root, "calc-budget-total") / "best_of.json").read_text())
    assert budget["by"] == "model" and len(budget["candidates"]) == 2
    picked = budget["rollouts"][budget["picked"] - 1]
    assert picked["success"] and picked["score"] == 1.0
    assert [r["success"] for r in budget["rollouts"]].count(True) == 1
    assert sum(bool(r["error"]) for r in budget["rollouts"]) == 1


@pytest.mark.slow
def test_the_picked_home_is_what_is_scored(suite_run):
    root = suite_run[0]
    task = _task(root, "calc-budget-total")
    record = json.loads((task / "best_of.json").read_text())
    picked = task / "rollouts" / str(record["picked"])
    assert float((task / "result.txt").read_text()) == 1.0
    assert (task / "score.json").read_text() == (picked / "score.json").read_text()
    assert "B5=1440" in (task / "score.json").read_text()
    wrong = next(r for r in record["rollouts"] if r["score"] is not None and not r["success"])
    assert "B5=1404" in (task / "rollouts" / str(wrong["rollout"]) / "score.json").read_text()
    assert json.loads((task / "run" / "result.json").read_text())["status"] == "finished"


@pytest.mark.slow
def test_the_suite_table_has_pass_at_n_and_pick_accuracy(suite_run):
    root = suite_run[0]
    rows = {r["domain"]: r for r in csv.DictReader(io.StringIO((root / "summary.csv").read_text()))}
    everything = rows["all"]
    assert int(everything["tasks"]) == 2 and int(everything["best_of"]) == 3
    assert float(everything["binary"]) == 0.5
    assert float(everything["pass_at_n"]) == 0.5
    assert float(everything["pick_accuracy"]) == 1.0
    tasks = {r["task_id"]: r for r in csv.DictReader(io.StringIO((root / "tasks.csv").read_text()))}
    budget = json.loads((_task(root, "calc-budget-total") / "best_of.json").read_text())
    assert float(tasks["calc-budget-total"]["usd"]) == pytest.approx(budget["usd"])
    assert budget["usd"] == pytest.approx(sum(r["usd"] for r in budget["rollouts"]) + budget["judge_usd"])
    assert budget["judge_usd"] > 0
    assert "pass@N" in (root / "summary.md").read_text()
    from stateact.evals.reports.html_report import write_html_report

    assert "pick acc" in write_html_report(root).read_text()


@pytest.mark.slow
def test_stateact_run_best_of_copies_the_picked_home_into_the_work_folder(
    anthropic_server, tmp_path, monkeypatch
):
    import openpyxl

    from stateact.app.cli import app

    work = tmp_path / "work"
    (work / "Documents").mkdir(parents=True)
    book = openpyxl.Workbook()
    book.active.title = "Costs"
    for row in (["Item", "Cost"], ["Rent", 1200], ["Power", 150], ["Water", 90]):
        book.active.append(row)
    book.save(work / "Documents" / "budget.xlsx")
    (work / "notes.txt").write_text("kept\n")
    router = budget_totals(1404, 1440)
    main, judge = anthropic_server(*[router] * 10), anthropic_server(judge_turn)
    monkeypatch.chdir(tmp_path)
    instruction = (
        'In ~/Documents/budget.xlsx (sheet Costs), put the label "Total" in A5 and the total cost of '
        "B2:B4 as a number in B5. Save the workbook in place."
    )
    result = CliRunner().invoke(
        app,
        [
            "run",
            instruction,
            "--workdir",
            str(work),
            *best_of_3(main, judge),
            "--no-display",
            "--runs-root",
            str(tmp_path / "runs"),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert openpyxl.load_workbook(work / "Documents" / "budget.xlsx")["Costs"]["B5"].value == 1440
    assert (work / "notes.txt").read_text() == "kept\n"
    (folder,) = (tmp_path / "runs").iterdir()
    summary = json.loads((folder / "best_of.json").read_text())
    assert summary["pick"]["by"] == "model" and len(summary["pick"]["candidates"]) == 2
    statuses = sorted(r["status"] for r in summary["rollouts"])
    assert statuses == ["error", "finished", "finished"]
    for k in (1, 2, 3):
        assert (folder / "rollouts" / str(k) / "run" / "events.jsonl").is_file()
    assert len(judge.requests) == 1 and MARKER not in json.dumps(judge.requests[0])


@pytest.mark.slow
def test_best_of_3_on_a_pool_of_three_vm_doubles(anthropic_server, tmp_path):
    """Each rollout on its own VM slot (a VM server over a local home, reset by restoring a copy)."""
    from stateact.evals.running.jobs import SuiteOptions
    from stateact.evals.running.suite_runner import run_suite
    from stateact.sandbox.local import LocalSandbox
    from stateact.sandbox.pool_file import load_pool
    from tests.support.osworld_vm_server import VMServer
    from tests.test_sandbox_pool import VMDouble, pool_file

    vms: list[VMDouble] = []
    try:
        for name in ("vm1", "vm2", "vm3"):
            local = LocalSandbox(tmp_path / name / "home")
            local.start()
            snapshot = tmp_path / name / "snapshot"
            shutil.copytree(local.home, snapshot, symlinks=True)
            vms.append(VMDouble(local, VMServer(local).start(), snapshot))
        router = budget_totals(1440, 1404)
        main, judge = anthropic_server(*[router] * 10), anthropic_server(judge_turn)
        options = SuiteOptions(
            SUITE,
            ("no-verify",),
            f"anthropic:{MODEL}@{main.base_url}",
            tmp_path / "results",
            tmp_path / "cache",
            role_models={"judge": f"anthropic:{MODEL}@{judge.base_url}"},
            only=("calc-budget-total",),
            pool=tuple(load_pool(pool_file(tmp_path, vms, [vm.restore for vm in vms]))),
            best_of=3,
            display=False,
        )
        (outcome,) = run_suite(options)
    finally:
        for vm in vms:
            vm.server.stop()
            vm.local.close()
    assert outcome.score == 1.0 and not outcome.error
    record = json.loads((outcome.result_dir / "best_of.json").read_text())
    assert record["by"] == "model" and record["pick_correct"] is True
    homes = {
        json.loads((outcome.result_dir / "rollouts" / str(k) / "evidence.json").read_text())["home"]
        for k in (1, 2, 3)
    }
    assert homes == {vm.local.home for vm in vms}
    assert MARKER not in json.dumps(judge.requests)


@pytest.mark.slow
def test_stateact_run_task_best_of_scores_the_pick(anthropic_server, tmp_path, monkeypatch):
    from stateact.app.cli import app

    router = RolloutRouter(
        {
            "rates.xlsx": [
                rollout("Rates", {"A3": "Converted", "B3": 350}),
                rollout("Rates", {"A3": "Converted", "B3": 300}),
                rollout("Rates", {"A3": "Converted", "B3": 250}),
            ]
        }
    )
    main, judge = anthropic_server(*[router] * 10), anthropic_server(judge_turn)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--task",
            str(SUITE / "calc" / "calc-rate-convert.json"),
            *best_of_3(main, judge),
            "--no-display",
            "--results",
            str(tmp_path / "results"),
            "--cache",
            str(tmp_path / "cache"),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "score 1" in " ".join(result.output.split())
    (task,) = (tmp_path / "results").glob("no-verify/*+best3/libreoffice_calc/calc-rate-convert")
    record = json.loads((task / "best_of.json").read_text())
    assert len(record["candidates"]) == 3 and record["pick_correct"] is True
    assert [r["success"] for r in record["rollouts"]].count(True) == 1


def test_bad_best_of_options_are_clear_errors(tmp_path):
    from stateact.app.cli import app

    code, output = run_cli("run", str(SUITE), "--best-of", "3", "--results", str(tmp_path / "r"))
    assert code == 2 and "needs a --judge-model" in output
    code, output = run_cli("run", str(SUITE), "--best-of", "0", "--results", str(tmp_path / "r"))
    assert code == 2 and "--best-of" in output
    result = CliRunner().invoke(
        app,
        [
            "run",
            "a task",
            "--best-of",
            "2",
            "--sandbox",
            "osworld://127.0.0.1:9",
            "--model",
            "scripted:quickstart",
            "--runs-root",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 2 and "eval run --best-of N" in " ".join(result.output.split())
    assert list(tmp_path.iterdir()) == []


def test_the_work_folder_ends_as_the_picked_home(tmp_path):
    from stateact.evals.running.best_of_run import mirror

    picked, work = tmp_path / "picked", tmp_path / "work"
    (picked / "Documents").mkdir(parents=True)
    (picked / "Documents" / "new.txt").write_text("made\n")
    (picked / "kept.txt").write_text("changed\n")
    (picked / "was-a-folder").write_text("now a file\n")
    (work / "Documents").mkdir(parents=True)
    (work / "kept.txt").write_text("old\n")
    (work / "Documents" / "removed.txt").write_text("gone\n")
    (work / "was-a-folder").mkdir()
    (work / "was-a-folder" / "inner.txt").write_text("x\n")
    mirror(picked, work)
    files = sorted(p.relative_to(work).as_posix() for p in work.rglob("*") if p.is_file())
    assert files == ["Documents/new.txt", "kept.txt", "was-a-folder"]
    assert (work / "kept.txt").read_text() == "changed\n"
