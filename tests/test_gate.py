"""The finish gate end to end: scripted gate model, real files, real shell, real LibreOffice."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import openpyxl
import pytest
from docx import Document
from PIL import Image

from stateact.app.harness import build_main_loop
from stateact.app.variants import get_variant
from stateact.gate import settings as gate_settings
from stateact.gate.inspect.deliverables import mentioned_paths
from stateact.gate.inspect.pregate import run_pregate
from stateact.gate.review import FinishGate
from stateact.kernel import settings as kernel_settings
from stateact.kernel.events import read_events
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec
from stateact.kernel.messages import ImageBlock, ToolUseBlock
from stateact.kernel.meter import Meter
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.kernel.tools.finish import FinishClaim, FinishTool
from stateact.sandbox.local import LocalSandbox
from tests.support.documents import encoded, scanned_letter
from tests.support.run_events import logged_events
from tests.support.tool_calls import turn_calling

ROWS = [("Pens", 3, 4), ("Paper", 10, 2.5), ("Ink", 2, 12), ("Tape", 5, 1.5)]
MARKER = "NARRATION-MARKER-7f3a9c"


pytest_plugins = ["tests.support.gate_fixtures"]


def instruction_for(path: str) -> str:
    return (
        f"In the workbook {path}, fill column D (header 'Total') with Qty times Price for each item row, "
        "and put the grand total of column D in D6. Save the workbook."
    )


def write_sales(path: Path, totals: list[float] | None = None, formulas: bool = False) -> None:
    """A sales workbook; totals as literal values, or as formulas (no cached values until recalculated)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Item", "Qty", "Price", "Total"])
    for index, row in enumerate(ROWS, start=2):
        value = f"=B{index}*C{index}" if formulas else (totals[index - 2] if totals else row[1] * row[2])
        ws.append([*row, value])
    ws["D6"] = "=SUM(D2:D5)" if formulas else sum(totals or [r[1] * r[2] for r in ROWS])
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(path)


def write_division_by_zero(path: Path) -> None:
    """The sales workbook with formulas, D4 dividing by zero."""
    write_sales(path, formulas=True)
    book = openpyxl.load_workbook(path)
    book["Sales"]["D4"] = "=B4/0"
    book.save(path)


def recalculate(sandbox: LocalSandbox, path: Path) -> None:
    """Let LibreOffice compute and cache the formulas, as saving from Calc would."""
    out = path.parent / "recalc"
    result = sandbox.run(
        f"soffice --headless --norestore --calc --convert-to xlsx --outdir {out} {path}", 120
    )
    assert (out / path.name).exists(), result.output
    os.replace(out / path.name, path)
    out.rmdir()


def make_context(
    tmp_path: Path, sandbox: LocalSandbox, task: str, gate_turns: list, main_turns=()
) -> RunContext:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"roles": {"gate": gate_turns, "main": list(main_turns)}}))
    run_dir = tmp_path / "run"
    return RunContext(
        run_dir=run_dir,
        task=task,
        sandbox=sandbox,
        log=RunLog(run_dir),
        meter=Meter(),
        models=RoleModels(main=f"scripted:{script}"),
    )


def after_error(turn: dict, contains: str = "") -> dict:
    """`turn`, stating that the previous turn's result is an error (containing `contains`)."""
    return {**turn, "expect": {"is_error": True, "contains": contains}}


def verdict(passed: bool, findings=(), summary="") -> dict:
    return turn_calling(
        "verdict",
        verdict="PASS" if passed else "FAIL",
        findings=list(findings),
        checklist=[{"requirement": "D2:D5 = Qty*Price, D6 = sum", "result": "pass" if passed else "fail"}],
        summary=summary,
    )


def tool_result_texts(request) -> str:
    return "\n".join(r.text() for m in request.messages for r in m.tool_results())


@pytest.mark.apps
def test_correct_recalculated_xlsx_passes(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    started = time.time() - 5
    write_sales(path, formulas=True)
    recalculate(sandbox, path)
    turns = [
        turn_calling("inspect_spreadsheet", path=str(path), cells="A1:D6"),
        verdict(True, summary="All totals hold."),
    ]
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), turns)
    gate = FinishGate(context, task_started_at=started)

    result = gate.review()

    assert result.passed and result.source == "model" and result.violations == []
    assert not Path(logged_events(context.log.events_path, "gate_snapshot")[0].store).exists()
    first = context.provider("gate").requests[0].messages[0].text()
    assert first.split("changed since the task started")[1].count(f"  {path}") == 1
    assert '{"cell": "Sales!D6", "value": 68.5, "formula": "=SUM(D2:D5)"}' in first  # D6 is named in the task
    seen = tool_result_texts(context.provider("gate").requests[1])
    assert '{"cell":"D6","value":68.5,"formula":"=SUM(D2:D5)"}' in seen
    assert [e.passed for e in logged_events(context.log.events_path, "gate_verdict")] == [True]


@pytest.mark.slow
def test_one_wrong_value_fails_with_a_finding_naming_the_cell(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    started = time.time() - 5
    write_sales(path, totals=[12, 25, 99, 7.5])  # D4 should be 2*12 = 24
    finding = {
        "problem": "Total for Ink is 99, Qty*Price is 24",
        "location": f"{path} Sales!D4",
        "evidence": "inspect_spreadsheet: D4 value 99, B4=2, C4=12",
        "requirement": "column D = Qty times Price",
    }
    recompute = (
        f"python3 -c \"import openpyxl; ws = openpyxl.load_workbook('{path}').active; "
        'print([ws.cell(r, 2).value * ws.cell(r, 3).value for r in range(2, 6)])"'
    )
    turns = [
        turn_calling("inspect_spreadsheet", path=str(path)),
        turn_calling("bash", command=recompute),
        verdict(False, [finding]),
    ]
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), turns)
    gate = FinishGate(context, task_started_at=started)

    result = gate.review()

    seen = tool_result_texts(context.provider("gate").requests[2])
    assert '{"cell":"D4","value":99}' in seen  # the probe showed the gate the wrong value
    assert "[12, 25.0, 24, 7.5]" in seen  # and a read-only computation gave the expected ones
    assert not result.passed and "Sales!D4" in result.findings[0].location
    report = result.report()
    assert report.startswith("Finish gate round 1: FAIL") and "Sales!D4" in report
    assert "evidence: inspect_spreadsheet: D4 value 99" in report
    logged = logged_events(context.log.events_path, "gate_verdict")[0]
    assert logged.findings[0]["location"].endswith("Sales!D4") and not logged.exhausted


def test_deliverable_in_the_wrong_folder_fails_without_a_model_call(tmp_path, sandbox):
    wanted = Path(sandbox.home) / "Documents" / "sales.xlsx"
    write_sales(Path(sandbox.home) / "sales.xlsx")
    context = make_context(tmp_path, sandbox, instruction_for(str(wanted)), [])
    gate = FinishGate(context, task_started_at=time.time() - 60)

    result = gate.review()

    assert not result.passed and result.source == "pregate"
    assert result.findings[0].location == str(wanted)
    assert f"files of that name: {sandbox.home}/sales.xlsx" in result.findings[0].evidence
    assert context.provider("gate").requests == []


def test_deliverable_described_only_in_notes_fails(tmp_path, sandbox):
    wanted = Path(sandbox.home) / "Documents" / "sales.xlsx"
    notes = Path(sandbox.home) / "notes.md"
    notes.write_text(f"Done: saved {wanted} with totals 12, 25, 24, 7.5 and grand total 68.5 in D6.\n")
    context = make_context(tmp_path, sandbox, instruction_for(str(wanted)), [])
    gate = FinishGate(context, task_started_at=time.time() - 60)

    result = gate.review()

    assert not result.passed
    assert [f.location for f in result.findings] == [str(wanted)]
    assert "notes.md" not in result.findings[0].evidence


@pytest.mark.slow
def test_gate_cannot_change_the_deliverable_through_or_past_the_guard(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    started = time.time() - 5
    write_sales(path)
    before = path.read_bytes()
    mtime_before = path.stat().st_mtime_ns
    sneaky = (
        "python3 -c \"print('hacked', end='', file=open('{}', chr(119))); "
        "print('side file', file=open('{}', chr(119)))\""
    ).format(path, Path(sandbox.home) / "gate_notes.txt")
    turns = [
        turn_calling("bash", command=f"echo hacked > {path}"),
        after_error(turn_calling("bash", command=f"rm {path}"), "redirection"),
        after_error(turn_calling("bash", command=sneaky), "`rm`"),
        turn_calling("bash", command=f"wc -c {path}"),
        verdict(True),
        verdict(True),  # the fresh round that follows the voided one
    ]
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), turns)
    gate = FinishGate(context, task_started_at=started)

    result = gate.review()
    voided = gate.verdicts[0]

    results = [r for m in context.provider("gate").requests[4].messages for r in m.tool_results()]
    assert results[0].is_error and "redirection" in results[0].text()
    assert results[1].is_error and "`rm`" in results[1].text()
    assert not results[2].is_error and "[exit code 0]" in results[2].text()
    assert results[3].text().startswith("6 ")  # the write went through during the round
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime_before
    assert not (Path(sandbox.home) / "gate_notes.txt").exists()
    assert (
        voided.passed is None and "was discarded" in voided.findings[0].problem
    )  # its PASS judged altered files
    assert f"changed: {path}" in voided.violations
    assert any(v.startswith("created: ") and v.endswith("gate_notes.txt") for v in voided.violations)
    assert result.passed and result.round == 2 and result.violations == [] and gate.rounds_used == 1
    [violation] = logged_events(context.log.events_path, "gate_violation")
    assert violation.scope == "gate#1" and str(path) in violation.restored
    assert not Path(
        logged_events(context.log.events_path, "gate_snapshot")[0].store
    ).exists()  # the restore copies are dropped


@pytest.mark.slow
def test_listings_run_in_the_gate_shell_and_writes_through_them_are_refused_or_undone(tmp_path, sandbox):
    home = Path(sandbox.home)
    path = home / "sales.xlsx"
    write_sales(path)
    logs = home / "logs"
    logs.mkdir()
    (logs / "a.log").write_text("ERROR disk full\n")
    (logs / "b.log").write_text("all fine\n")
    sneaky = (
        "find ~/logs -name b.log -exec python3 -c "
        "\"import sys; print('x', file=open(sys.argv[1], chr(119)))\" {} \\;"
    )
    finding = {"problem": "D6 unchecked", "location": f"{path} Sales!D6", "evidence": "none"}
    turns = [
        turn_calling("bash", command="dpkg -l --no-pager coreutils"),
        turn_calling("bash", command=f"unzip -Z1 {path}"),
        turn_calling("bash", command="find ~/logs -name '*.log' -exec grep -l ERROR {} +"),
        turn_calling("bash", command="find ~/logs -name '*.log' -exec rm {} +"),
        after_error(turn_calling("bash", command=sneaky), "`rm`"),
        verdict(False, [finding]),
    ]
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), turns)

    result = FinishGate(context, task_started_at=time.time() - 5).review()

    results = [r.text() for m in context.provider("gate").requests[-1].messages for r in m.tool_results()]
    assert "coreutils" in results[0] and "[exit code 0]" in results[0]
    assert "xl/workbook.xml" in results[1].splitlines()
    assert str(logs / "a.log") in results[2] and "b.log" not in results[2]
    assert "Refused: inside `find -exec`: `rm`" in results[3]
    assert "[exit code 0]" in results[4]  # past the guard: the fingerprint catches it
    assert sorted(p.name for p in logs.iterdir()) == ["a.log", "b.log"]
    assert (logs / "b.log").read_text() == "all fine\n"
    assert f"changed: {logs / 'b.log'}" in result.violations


@pytest.mark.slow
def test_three_fail_rounds_exhaust_the_gate(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path, totals=[12, 25, 99, 7.5])
    finding = {"problem": "D4 is 99, expected 24", "location": f"{path} Sales!D4", "evidence": "probe"}
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [verdict(False, [finding])] * 3)
    gate = FinishGate(context, max_rounds=3, task_started_at=time.time() - 60)

    finish = FinishTool(context, gate=gate)

    results = [
        finish.invoke(ToolUseBlock(id=f"f{i}", name="finish", input={"summary": "done"})) for i in range(3)
    ]
    again = gate.review()

    assert [(r.terminal, r.ending) for r in results] == [
        (False, None),
        (False, None),
        (True, FinishClaim("done", infeasible=False, gate_passed=False)),
    ]
    assert [v.passed for v in gate.verdicts] == [False] * 3
    assert "rounds are used up" in results[2].text and "Sales!D4" in results[2].text
    assert gate.exhausted and gate.rounds_used == 3 and again is gate.last_verdict
    assert len(context.provider("gate").requests) == 3
    resumed = FinishGate(context)
    resumed.resume_from(read_events(context.log.events_path))
    assert resumed.exhausted and resumed.last_verdict.findings == again.findings
    logged = logged_events(context.log.events_path, "gate_verdict")
    assert [(e.scope, e.passed, e.exhausted) for e in logged] == [
        ("gate#1", False, False),
        ("gate#2", False, False),
        ("gate#3", False, True),
    ]


@pytest.mark.slow
def test_gate_requests_hold_none_of_the_main_agents_history(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    started = time.time() - 5
    write_sales(path, totals=[12, 25, 99, 7.5])
    main_turns = [
        {"text": f"Plan {MARKER}: totals are right.", **turn_calling("finish", summary=f"All done {MARKER}")},
        after_error(
            {"text": f"Fixed {MARKER}.", **turn_calling("finish", summary=f"Fixed D4 {MARKER}")}, "Sales!D4"
        ),
    ]
    finding = {"problem": "D4 is 99, expected 24", "location": f"{path} Sales!D4", "evidence": "B4=2, C4=12"}
    gate_turns = [
        verdict(False, [finding]),
        turn_calling("inspect_spreadsheet", path=str(path)),
        verdict(True),
    ]
    task = instruction_for(str(path))
    context = make_context(tmp_path, sandbox, task, gate_turns, main_turns)
    gate = FinishGate(context, task_started_at=started)
    main = AgentLoop(
        LoopSpec(scope="main", tools=[FinishTool(context, gate=gate)], system_prompt="main agent"),
        model=context.provider("main"),
        log=context.log,
        meter=context.meter,
    )

    outcome = main.run(task)

    assert outcome.status == "finished" and gate.rounds_used == 2 and gate.last_verdict.passed
    assert "Sales!D4" in tool_result_texts(context.provider("main").requests[1])  # findings reached the agent
    gate_requests = context.provider("gate").requests
    assert len(gate_requests) == 3
    for request in gate_requests:
        dumped = request.system + "".join(m.model_dump_json() for m in request.messages)
        assert MARKER not in dumped
        assert task in request.messages[0].text()  # the verbatim instruction
    assert context.meter.by_role["gate"].turns == 3


def open_in_libreoffice(sandbox: LocalSandbox, path: Path) -> Path:
    """Open a document in a real headless LibreOffice and wait until its lock file is written whole (an
    owner line ending in ';') while soffice.bin runs: a slow machine may create the file before writing it."""
    sandbox.launch(f"soffice --headless --norestore {path}")
    lock = path.parent / f".~lock.{path.name}#"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if lock.exists() and b";" in lock.read_bytes() and sandbox.run("pgrep -x soffice.bin").ok:
            return lock
        time.sleep(0.3)
    raise AssertionError("LibreOffice did not open the document")


@pytest.mark.apps
def test_open_document_showing_the_saved_file_is_left_to_the_model_gate(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path)
    open_in_libreoffice(sandbox, path)
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [verdict(True)])

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    first = context.provider("gate").requests[0].messages[0].text()
    notes = first.split("Pre-gate notes")[1].split("Files under the home folder")[0]
    assert result.passed and result.source == "model"
    assert f"{path} is open in LibreOffice" in notes and "after the file's last write" in notes


@pytest.mark.apps
def test_open_document_edited_on_disk_behind_its_window_fails_with_reload_advice(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path)
    lock = open_in_libreoffice(sandbox, path)
    write_sales(path, totals=[12, 25, 24, 7.5])  # the edit on disk, after LibreOffice opened the file
    opened = path.stat().st_mtime - gate_settings.GATE_OPEN_SAVE_GRACE_S - 5
    os.utime(lock, (opened, opened))  # as if the window had been opened earlier than the grace
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [])

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    [finding] = result.findings
    assert not result.passed and result.source == "pregate"
    assert f"office-reload {path}" in finding.problem and f"office-close {path}" in finding.problem
    assert "save it" not in finding.problem and lock.name in finding.evidence


@pytest.mark.apps
def test_gate_is_told_which_documents_libreoffice_holds_open(tmp_path, sandbox):
    source = Path(sandbox.home) / "sales.xlsx"
    write_sales(source)
    os.utime(source, (time.time() - 3600, time.time() - 3600))  # an input from before the task
    open_in_libreoffice(sandbox, source)
    report = Path(sandbox.home) / "report.csv"
    report.write_text("total\n68.5\n")
    task = f"Using the workbook {source}, write the grand total to {report}."
    context = make_context(tmp_path, sandbox, task, [verdict(True)])

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    first = context.provider("gate").requests[0].messages[0].text()
    assert result.passed and first.split("holds open under the home folder (lock files):")[1].strip() == str(
        source
    )


def test_uncached_formulas_and_stale_files_fail_the_pregate(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path, formulas=True)
    old = time.time() - 3600
    os.utime(path, (old, old))
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [])

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    problems = " | ".join(f.problem + " " + f.evidence for f in result.findings)
    assert "no cached values" in problems and "Sales!D6" in problems
    assert "not been changed since the task started" in problems


@pytest.mark.slow
def test_undecided_rounds_are_retried_once_then_the_finish_is_accepted_unreviewed(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path)
    turns = [{"text": "Looks fine to me."}, {"text": "Still fine."}]
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), turns)
    gate = FinishGate(context, task_started_at=time.time() - 60)

    result = FinishTool(context, gate=gate).invoke(
        ToolUseBlock(id="f", name="finish", input={"summary": "x"})
    )

    assert [(v.passed, v.source) for v in gate.verdicts] == [(None, "undecided")] * 2
    assert "without a verdict" in gate.verdicts[-1].findings[0].problem
    assert result.terminal and not result.is_error and result.ending == FinishClaim("x", gate_passed=None)
    assert "undecided" in result.text and "unreviewed" in result.text
    assert gate.rounds_used == 0 and not gate.exhausted
    [undecided] = logged_events(context.log.events_path, "gate_undecided")
    assert undecided.scope == "gate#2" and undecided.attempts == 2


@pytest.mark.slow
def test_fail_verdict_without_findings_is_sent_back_to_the_gate_model(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path)
    finding = {"problem": "x", "location": f"{path} Sales!A1", "evidence": "y"}
    turns = [
        turn_calling("verdict", verdict="FAIL"),
        after_error(verdict(False, [finding]), "needs at least one finding"),
    ]
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), turns)

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    assert "needs at least one finding" in tool_result_texts(context.provider("gate").requests[1])
    assert result.findings[0].location.endswith("Sales!A1")


@pytest.mark.slow
def test_pass_verdict_must_agree_with_its_checklist(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path)
    failed_item = {"requirement": "D6 = sum", "result": "fail", "evidence": "D6 is 0"}
    turns = [
        turn_calling("verdict", verdict="PASS"),
        after_error(turn_calling("verdict", verdict="PASS", checklist=[failed_item]), "needs the checklist"),
        after_error(verdict(True), "a checklist item failed"),
    ]
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), turns)

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    replies = tool_result_texts(context.provider("gate").requests[2])
    assert "needs the checklist" in replies and "a checklist item failed" in replies
    assert result.passed and result.checklist[0].result == "pass"


@pytest.mark.slow
def test_change_to_a_file_over_the_copy_cap_is_recorded_as_not_restored(tmp_path, sandbox, monkeypatch):
    from stateact.gate import settings as gate_settings

    monkeypatch.setattr(gate_settings, "GATE_SNAPSHOT_FILE_MAX_BYTES", 100)
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path)
    sneaky = f"python3 -c \"print('x', end='', file=open('{path}', chr(119)))\""  # a bypass the guard misses
    context = make_context(
        tmp_path, sandbox, instruction_for(str(path)), [turn_calling("bash", command=sneaky), verdict(True)]
    )

    gate = FinishGate(context, task_started_at=time.time() - 60)
    gate.review()
    voided = gate.verdicts[0]  # a fresh round followed it (its script is empty: undecided too)

    [violation] = logged_events(context.log.events_path, "gate_violation")
    assert violation.not_restored == {str(path): "no snapshot copy (over the size caps)"}
    assert voided.violations == [f"changed: {path}"] and voided.passed is None
    assert logged_events(context.log.events_path, "gate_snapshot")[0].copies == 0


@pytest.mark.slow
def test_gate_editor_only_views(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path)
    notes = Path(sandbox.home) / "gate.txt"
    turns = [
        turn_calling("str_replace_based_edit_tool", command="create", path=str(notes), file_text="x"),
        after_error(
            turn_calling("str_replace_based_edit_tool", command="view", path=sandbox.home), "command"
        ),
        verdict(True),
    ]
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), turns)

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    created, viewed = [r for m in context.provider("gate").requests[-1].messages for r in m.tool_results()][
        :2
    ]
    assert created.is_error and "command" in created.text() and not notes.exists()
    assert not viewed.is_error and "sales.xlsx" in viewed.text()
    assert result.passed and result.violations == []


@pytest.mark.apps
def test_gate_reads_a_fact_that_exists_only_in_a_scan(tmp_path, sandbox):
    scan = Path(sandbox.home) / "scans" / "invoice.jpg"
    scan.parent.mkdir()
    scan.write_bytes(encoded(scanned_letter((2480, 3508), "Invoice total: 4,812.50 EUR"), "JPEG"))
    answer = Path(sandbox.home) / "total.txt"
    answer.write_text("4,812.50 EUR\n")
    turns = [
        turn_calling("str_replace_based_edit_tool", command="view", path=str(scan)),
        turn_calling(
            "verdict",
            verdict="PASS",
            findings=[],
            checklist=[{"requirement": "total.txt holds the scan's total", "result": "pass"}],
            summary="",
        ),
    ]
    task = f"Write the total of the scanned invoice {scan} into {answer}."
    context = make_context(tmp_path, sandbox, task, turns)

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    viewed = [r for m in context.provider("gate").requests[-1].messages for r in m.tool_results()][0]
    images = [b for b in viewed.content if isinstance(b, ImageBlock)]
    assert not viewed.is_error and "JPEG image, 2480x3508 pixels, shown at" in viewed.text()
    assert len(images) == 1 and images[0].media_type == "image/jpeg"
    assert max(Image.open(io.BytesIO(images[0].to_bytes())).size) <= kernel_settings.MODEL_IMAGE_MAX_EDGE
    assert result.passed


@pytest.mark.slow
def test_unusable_gate_model_gives_an_undecided_verdict_not_a_crash(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_sales(path)
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [])
    context.models = RoleModels(main=context.models.main, gate=f"scripted:{tmp_path / 'missing.json'}")

    gate = FinishGate(context, task_started_at=time.time() - 60)
    result = gate.review()

    assert result.passed is None and result.source == "undecided" and gate.rounds_used == 0
    assert (
        "could not be set up" in result.findings[0].problem and "missing.json" in result.findings[0].evidence
    )


@pytest.mark.apps
def test_saved_error_values_fail_the_pregate(tmp_path, sandbox):
    path = Path(sandbox.home) / "sales.xlsx"
    write_division_by_zero(path)
    recalculate(sandbox, path)
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [])

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    [finding] = result.findings
    assert result.source == "pregate" and "spreadsheet errors" in finding.problem
    assert (
        "Sales!D4 = #DIV/0! (formula =B4/0)" in finding.evidence and "Sales!D6 = #DIV/0!" in finding.evidence
    )


def test_bare_file_names_are_looked_up_under_home(sandbox):
    found = Path(sandbox.home) / "Documents" / "report.csv"
    found.parent.mkdir()
    found.write_text("a,b\n1,2\n")
    started = time.time() - 60

    present = run_pregate(sandbox, mentioned_paths("Save the table as report.csv in Documents."), started)
    absent = run_pregate(sandbox, mentioned_paths("Save the table as summary.csv in Documents."), started)

    assert present.findings == [] and str(found) in [f["resolved"] for f in present.facts]
    assert absent.findings == []  # the folder was read from the words: a note for the model gate, no FAIL
    assert absent.notes[0].startswith(
        "~/Documents/summary.csv: the file the instruction names does not exist"
    )
    assert "Not certain: the location was inferred" in absent.notes[0]


def test_a_file_in_my_home_folder_saved_elsewhere_fails_and_a_running_script_is_no_deliverable(sandbox):
    home = Path(sandbox.home)
    elsewhere = home / "Documents" / "errors.txt"
    elsewhere.parent.mkdir()
    elsewhere.write_text("ERROR disk full\n")
    script = home / "my_process.sh"
    script.write_text("while true; do sleep 1; done\n")
    os.utime(script, (time.time() - 600, time.time() - 600))
    started = time.time() - 60
    task = "Collect the ERROR lines of ~/Documents/app.log into errors.txt in my home folder."

    wrong_folder = run_pregate(sandbox, mentioned_paths(task), started)
    process = run_pregate(
        sandbox,
        mentioned_paths(
            "Currently, the program my_process.sh is running in the system and I want to end it."
        ),
        started,
    )

    [finding] = wrong_folder.findings  # the words name the folder: certain, a FAIL
    assert finding.location == "~/errors.txt" and str(elsewhere) in finding.evidence
    assert process.findings == [] and process.notes == []


def test_relative_path_in_the_instruction_is_found_in_the_home_folder(tmp_path, sandbox):
    memo = Path(sandbox.home) / "Documents" / "memo.docx"
    memo.parent.mkdir()
    Document().save(memo)
    task = "In Documents/memo.docx in my home folder, replace every 'teh' with 'the' and save it."
    context = make_context(tmp_path, sandbox, task, [verdict(True)])

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    assert result.passed and result.source == "model"
    first = context.provider("gate").requests[0].messages[0].text()
    assert f'"resolved": "{memo}"' in first and '"exists": true' in first


@pytest.mark.slow
def test_main_loop_of_the_harness_corrects_its_work_through_the_gate(tmp_path, sandbox):
    """The real main-loop assembly with the gate on its finish tool: FAIL, fix, PASS."""
    path = Path(sandbox.home) / "sales.xlsx"
    started = time.time() - 5
    write_sales(path, totals=[12, 25, 99, 7.5])
    fix = (
        f"python3 -c \"import openpyxl; wb = openpyxl.load_workbook('{path}'); ws = wb.active; "
        f"ws['D4'] = 24; ws['D6'] = 68.5; wb.save('{path}')\""
    )
    main_turns = [
        {"text": f"{MARKER} all set", **turn_calling("finish", summary=f"Done {MARKER}")},
        after_error(turn_calling("bash", command=fix), "Sales!D4"),
        turn_calling("finish", summary=f"Fixed D4 {MARKER}"),
    ]
    finding = {
        "problem": "D4 is 99, Qty*Price is 24",
        "location": f"{path} Sales!D4",
        "evidence": "B4=2, C4=12",
    }
    gate_turns = [
        turn_calling("inspect_spreadsheet", path=str(path)),
        verdict(False, [finding]),
        turn_calling("inspect_spreadsheet", path=str(path)),
        verdict(True),
    ]
    task = instruction_for(str(path))
    context = make_context(tmp_path, sandbox, task, gate_turns, main_turns)
    main = build_main_loop(context, get_variant("stateact"), Budget(max_turns=10))
    main.tools["finish"].gate = FinishGate(context, task_started_at=started)
    try:
        outcome = main.run(task)
    finally:
        main.close_tools()

    assert outcome.status == "finished" and outcome.ending_as(FinishClaim).gate_passed is True
    assert openpyxl.load_workbook(path).active["D4"].value == 24
    gate_requests = context.provider("gate").requests
    assert '{"cell":"D4","value":24}' in tool_result_texts(gate_requests[-1])
    assert all(
        MARKER not in r.system + "".join(m.model_dump_json() for m in r.messages) for r in gate_requests
    )
    assert [e.passed for e in logged_events(context.log.events_path, "gate_verdict")] == [False, True]


@pytest.mark.apps
def test_saved_error_values_in_ods_fail_the_pregate(tmp_path, sandbox):
    source = Path(sandbox.home) / "sales.xlsx"
    write_division_by_zero(source)
    sandbox.run(f"soffice --headless --norestore --convert-to ods --outdir {sandbox.home} {source}", 120)
    path = Path(sandbox.home) / "sales.ods"
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [])

    result = FinishGate(context, task_started_at=time.time() - 60).review()

    assert result.source == "pregate"
    assert "Sales!D4 = #DIV/0! (formula of:=[.B4]/0)" in result.findings[0].evidence


@pytest.mark.slow
def test_rounds_are_numbered_over_pregate_and_model_rounds_and_say_how_they_ended(tmp_path, sandbox):
    path = Path(sandbox.home) / "Documents" / "sales.xlsx"
    context = make_context(tmp_path, sandbox, instruction_for(str(path)), [verdict(True)])
    gate = FinishGate(context, task_started_at=time.time() - 60)

    first = gate.review()
    write_sales(path)
    second = gate.review()

    assert first.report().startswith("Finish gate round 1: FAIL at the file check, before any review.")
    assert second.passed and second.round == 2
    opening, request = (block.text for block in context.provider("gate").requests[0].messages[0].content)
    assert opening.startswith(f"The machine's home folder is `{sandbox.home}`. The task started at ")
    assert request.startswith(
        "Finish gate round 2 of 3. Earlier: round 1 failed at the file check, before any review."
    )
    logged = [(e.kind, e.scope) for e in read_events(context.log.events_path) if e.kind.startswith("gate_")]
    assert [k for k in logged if k[0] in ("gate_start", "gate_pregate", "gate_verdict")] == [
        ("gate_start", "gate#1"),
        ("gate_pregate", "gate#1"),
        ("gate_verdict", "gate#1"),
        ("gate_start", "gate#2"),
        ("gate_pregate", "gate#2"),
        ("gate_verdict", "gate#2"),
    ]
