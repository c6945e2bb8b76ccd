"""`stateact report DIR`: the static HTML report renders in headless Chromium with no console errors."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Page, sync_playwright
from pydantic import BaseModel

from stateact.evals.reports.html_report import SUMMARY_HEADERS
from stateact.evals.reports.task_metrics import collect_metrics
from stateact.evals.reports.trajectory import osworld_steps
from stateact.evals.running.jobs import RUN_FOLDER, SuiteOptions
from stateact.evals.running.results import task_result_dir, write_results
from stateact.evals.running.runner import run_task_file
from stateact.evals.running.suite_runner import run_suite
from stateact.gate.events import GateVerdict
from stateact.kernel.events import Compaction, Response, RunEnd, RunStart, read_events
from stateact.kernel.loop import AgentLoop, LoopSpec
from stateact.kernel.messages import Usage
from stateact.kernel.meter import Meter
from stateact.kernel.models.scripted import ScriptedProvider
from stateact.kernel.runlog import RunLog
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.sandbox.local import LocalSandbox
from stateact.subagents.settings import WEB_CHROMIUM_ARGS, WEB_CHROMIUM_PATH
from tests.support.osworld_agent import scripted_agent
from tests.test_eval_runner import SUITE, run_cli

APP_FIXTURES = frozenset({"browser"})
"""The fixtures here that start a real application: their tests are marked `apps`."""

OSWORLD_TASK = Path(__file__).parent / "fixtures" / "osworld" / "os" / "answer-any.json"
FINDING = "Total in B10 is 1200, the sum of B2:B9 is 1250"


def _png(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 40), colour).save(out, "PNG")
    return out.getvalue()


class ScreenshotTool(Tool):
    name = "screenshot"
    description = "The screen."

    class Input(BaseModel):
        pass

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text="the chart dialog", images=(_png("navy"),))


class DelegateGui(Tool):
    """A GUI delegation: a fresh loop in scope gui#1 on the same log, as the harness runs its subagents."""

    name = "delegate_gui"
    description = "Hand a visual subgoal to a screenshot loop."

    class Input(BaseModel):
        subgoal: str

    def __init__(self, log: RunLog, meter: Meter) -> None:
        self.log, self.meter = log, meter

    def run(self, params: Input) -> ToolResult:
        turns = [
            {"text": "Look first.", "tool_calls": [{"name": "screenshot", "input": {}}]},
            {"text": "The legend is at the bottom now."},
        ]
        loop = AgentLoop(
            LoopSpec(scope="gui#1", tools=[ScreenshotTool()], system_prompt="gui"),
            model=ScriptedProvider(turns),
            log=self.log,
            meter=self.meter,
        )
        return ToolResult(text=loop.run(params.subgoal).text)


class Finish(Tool):
    name = "finish"
    description = "End the task."

    class Input(BaseModel):
        summary: str

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text="Task ended.", terminal=True)


def delegated_run(results: Path) -> Path:
    """A run with a GUI delegation (screenshot), a call to a subagent it lacks, a compaction and two gate
    rounds, scored 0.5 of 2 checkpoints."""
    task_dir = task_result_dir(results, "stateact", "scripted", "calc", "chart-legend")
    log, meter = RunLog(task_dir / RUN_FOLDER), Meter()
    main_turns = [
        {
            "text": "The legend needs the GUI.",
            "tool_calls": [
                {"name": "delegate_gui", "input": {"subgoal": "legend"}},
                {"name": "delegate_web", "input": {"subgoal": "not in this harness"}},
            ],
        },
        {
            "text": "Finish.",
            "expect": [
                {"contains": "legend is at the bottom"},
                {"is_error": True, "contains": "Unknown tool"},
            ],
            "tool_calls": [{"name": "finish", "input": {"summary": "legend moved"}}],
        },
    ]
    log.emit(RunStart(instruction="Move the chart legend to the bottom.", harness="stateact"))
    loop = AgentLoop(
        LoopSpec(scope="main", tools=[DelegateGui(log, meter), Finish()], system_prompt="main"),
        model=ScriptedProvider(main_turns),
        log=log,
        meter=meter,
    )
    log.emit(
        Compaction(
            summary="Task: move the legend. Found /home/user/sales.xlsx.",
            replaced=0,
            tokens_before=9000,
            tokens_after=1200,
        )
    )
    outcome = loop.run("Move the chart legend to the bottom.")
    for number, passed in ((1, False), (2, True)):
        scope = f"gate#{number}"
        log.emit(
            Response(
                scope=scope, role="gate", turn=1, usage=Usage(input_tokens=10, output_tokens=5), usd=0.01
            )
        )
        findings = (
            [] if passed else [{"problem": FINDING, "location": "sales.xlsx Sheet1!B10", "evidence": "probe"}]
        )
        log.emit(GateVerdict(scope=scope, passed=passed, round=number, source="model", findings=findings))
    log.write_json(
        "result.json", {"status": outcome.status, "usd": 0.02, "seconds": 3.0, "spend": meter.summary()}
    )
    log.emit(RunEnd(status=outcome.status, usd=0.02, turns=outcome.turns))
    log.close()
    parts = [
        {"func": "compare_table", "score": 1.0},
        {"func": "check_cell", "score": 0.0, "error": "legend at right"},
    ]
    write_results(task_dir, task_dir / RUN_FOLDER, 0.0, {"conj": "and", "parts": parts})
    return task_dir


def test_traj_has_a_line_per_action_of_every_loop_when_subagent_ids_collide(tmp_path):
    """A subagent's model numbers its tool-call ids afresh: gui#1's screenshot call has the id of main's
    delegate_gui call. Each result stays with its own call; the subagent's call is a line of its own with
    its scope and its screenshot, before the line of the delegation it ran inside, as its call ended
    first."""
    task_dir = delegated_run(tmp_path)
    calls = [e for e in read_events(task_dir / RUN_FOLDER / "events.jsonl") if e.kind == "tool_call"]
    main_ids = {e.id for e in calls if e.scope == "main"}
    assert {e.id for e in calls if e.scope == "gui#1"} & main_ids  # the ids do collide
    lines = [json.loads(line) for line in (task_dir / "traj.jsonl").read_text().splitlines()]
    assert [(line["info"]["scope"], line["action"]["tool"]) for line in lines] == [
        ("gui#1", "screenshot"),
        ("main", "delegate_gui"),
        ("main", "delegate_web"),
        ("main", "finish"),
    ]
    assert [line["step_num"] for line in lines] == [1, 2, 3, 4]
    look, delegation = lines[0], lines[1]
    assert look["response"] == "Look first." and look["info"]["result"] == "the chart dialog"
    assert look["info"]["within_step"] == delegation["step_num"] and not look["info"]["is_error"]
    screen = Image.open(task_dir / look["screenshot_file"])
    assert screen.size == (64, 40) and screen.convert("RGB").getpixel((0, 0)) == (0, 0, 128)
    assert delegation["info"]["result"] == "The legend is at the bottom now."
    assert "within_step" not in delegation["info"] and delegation["screenshot_file"] is None
    assert lines[2]["info"]["is_error"] and "Unknown tool `delegate_web`" in lines[2]["info"]["result"]
    assert [line["done"] for line in lines] == [False, False, False, True] and lines[-1]["reward"] == 0.0
    (task_dir / RUN_FOLDER).rename(tmp_path / "elsewhere")
    viewed = [(s.kind, s.scope, s.title, s.detail) for s in osworld_steps(task_dir) if s.kind == "tool"]
    assert viewed[:2] == [
        ("tool", "gui#1", "screenshot", "the chart dialog"),
        ("tool", "main", "delegate_gui", "The legend is at the bottom now."),
    ]


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("results")
    run_suite(
        SuiteOptions(SUITE, ("no-verify", "bash-only"), "reference", results, SUITE / "cache", display=False)
    )
    delegated_run(results)
    code, output = run_cli("report", str(results))
    assert code == 0, output
    return results / "report"


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=WEB_CHROMIUM_PATH, headless=True, args=list(WEB_CHROMIUM_ARGS)
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser) -> Iterator[tuple[Page, list[str]]]:
    """A page that records console errors, page errors, failed loads and any request off the disk."""
    context = browser.new_context()
    page = context.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None,
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on(
        "request", lambda r: None if r.url.startswith("file://") else problems.append(f"network: {r.url}")
    )
    try:
        yield page, problems
    finally:
        context.close()


@pytest.mark.slow
def test_delegated_run_metrics(report_dir):
    metrics = {
        m.harness: m for m in collect_metrics(report_dir.parent) if m.task_id in ("chart-legend", "notes")
    }
    run = metrics["stateact"]
    assert (run.main_turns, run.sub_turns, run.sub_turns_by_kind) == (2, 4, {"gui": 2, "gate": 2})
    assert (run.delegations, run.delegations_by_tool) == (1, {"delegate_gui": 1})
    assert run.usd_by_role == {"main": 0.0, "gui": 0.0}  # the scripted model costs nothing
    assert (run.gate_rounds, run.gate_passes, run.gate_fails, run.compactions) == (2, 1, 1, 1)
    assert (run.partial, run.binary, run.checkpoints_met, run.checkpoints) == (0.5, False, 1, 2)


def test_summary_page_renders_without_errors(report_dir, page):
    page, problems = page
    page.goto((report_dir / "index.html").as_uri())
    assert page.title() == "Suite report"
    assert page.locator("svg.chart").count() == 5
    assert page.locator("figcaption").all_inner_texts()[0] == "Partial success against cost per task"
    assert page.locator("svg.chart").first.locator("circle.point").count() == 3  # one point per harness
    assert page.locator("rect.bar[data-series='bash-only (reference)'][data-category='os']").count() == 3
    cost_bar = page.locator("svg.chart").nth(4).locator("rect.bar[data-series='stateact (scripted)']")
    assert cost_bar.locator("title").text_content() == "stateact (scripted) on calc: $0.02"
    rows = page.locator("#comparison tbody tr")
    assert rows.count() == 3 + 3 + 2  # two domains and `all` per suite harness; calc and `all` for stateact
    assert "66.7%" in page.locator("#comparison tr.all", has_text="bash-only").inner_text()
    links = page.locator("#tasks a")
    assert links.count() == 7
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    for href in hrefs:  # every trajectory page renders without errors, and links back
        page.goto((report_dir / href).as_uri())
        assert page.locator("#steps li.step").count() >= 3, href
        assert page.locator("#checkpoints tbody tr").count() >= 1, href
        page.locator("a", has_text="summary").click()
        assert page.title() == "Suite report"
    assert problems == []


def test_trajectory_page_shows_delegation_screens_compaction_and_gate(report_dir, page):
    page, problems = page
    page.goto((report_dir / "tasks" / "stateact__scripted__calc__chart-legend.html").as_uri())
    steps = page.locator("#steps li.step")
    kinds = [steps.nth(i).get_attribute("data-kind") for i in range(steps.count())]
    assert kinds.index("compaction") < kinds.index("tool") < kinds.index("loop") < kinds.index("gate")
    delegation = page.locator("li.kind-tool:not(.error)", has_text="delegate_gui")
    assert "Unknown tool `delegate_web`" in page.locator("li.kind-tool.error").inner_text()
    assert "The legend is at the bottom now." in delegation.inner_text()
    inner = page.locator("li.step.sub")
    assert inner.count() >= 4 and "gui#1" in inner.first.inner_text()
    screenshot = page.locator("li.kind-tool.sub img")
    assert screenshot.count() == 1
    assert screenshot.evaluate("img => img.complete && img.naturalWidth") == 64
    failed = page.locator("li.kind-gate.failed")
    assert "FAIL" in failed.inner_text() and FINDING in failed.inner_text()
    assert page.locator("li.kind-gate.passed").count() == 1
    assert "Found /home/user/sales.xlsx" in page.locator("li.kind-compaction").inner_text()
    assert "legend at right" in page.locator("#checkpoints").inner_text()
    assert "delegations 1" in page.locator(".meta").inner_text()
    assert "(main $0.0000, gui $0.0000)" in page.locator(".meta").inner_text()
    assert problems == []


def test_a_garbled_run_folder_still_reports(tmp_path, page):
    """Files from another version or a crash: odd types and torn lines become zeros and gaps, not a crash."""
    task_dir = task_result_dir(tmp_path, "stateact", "scripted", "os", "garbled")
    run_dir = task_dir / RUN_FOLDER
    run_dir.mkdir(parents=True)
    (task_dir / "result.txt").write_text("0.5\n")
    (task_dir / "score.json").write_text('{"parts": "none", "partial": "half"}')
    (run_dir / "result.json").write_text('{"status": "budget", "usd": "lots", "spend": {"usage": [1, 2]}}')
    lines = [
        "[1, 2]",
        '{"kind": "message", "scope": "main", "message": "hello"}',
        '{"kind": "message", "scope": "main", "message": {"role": "assistant", "content": "not a list"}}',
        '{"kind": "tool_call", "scope": "main", "id": 7, "name": "delegate_gui", "input": "raw"}',
        '{"kind": "tool_result", "scope": "main", "id": 7, "text": {"odd": true}, "is_error": true}',
        '{"kind": "gate_verdict", "scope": "gate#1", "passed": false, "findings": "none", "violations": 3}',
        '{"kind": "compaction", "scope": "main", "summary": 42}',
        '{"kind": "run_end", "scope": "main", "status": "budget", "usd": "x"}',
        '{"kind": "response", "scope": "main"',
    ]
    (run_dir / "events.jsonl").write_text("\n".join(lines))
    [metrics] = collect_metrics(tmp_path)
    assert (metrics.score, metrics.partial, metrics.binary, metrics.checkpoints) == (0.5, 0.5, False, 0)
    assert (metrics.status, metrics.usd, metrics.input_tokens, metrics.gate_fails) == ("budget", 0.0, 0, 1)
    assert metrics.delegations == 1  # no loop_start in the log: the call cannot be checked against its tools
    code, output = run_cli("report", str(tmp_path))
    assert code == 0, output
    page, problems = page
    page.goto((tmp_path / "report" / "tasks" / "stateact__scripted__os__garbled.html").as_uri())
    kinds = page.locator("#steps li.step").evaluate_all("items => items.map(i => i.dataset.kind)")
    assert kinds == ["tool", "gate", "compaction", "run"]
    assert "{'odd': True}" in page.locator("li.kind-tool").inner_text()
    assert problems == []


def test_osworld_results_without_a_run_log_show_traj_steps(tmp_path, page):
    """Results written by another runner (OSWorld layout, run folder elsewhere): steps come from traj.jsonl."""
    results = tmp_path / "results"
    sandbox = LocalSandbox(tmp_path / "home", display=True)
    try:
        sandbox.start()
        agent = scripted_agent(tmp_path / "runs", ["printf 42 > ~/answer.txt"], screenshot=True)
        outcome = run_task_file(OSWORLD_TASK, sandbox, agent, tmp_path / "cache", results, model="other")
    finally:
        sandbox.close()
    assert outcome.score == 1.0 and not (outcome.result_dir / RUN_FOLDER).exists()
    code, output = run_cli("report", str(results))
    assert code == 0, output
    page, problems = page
    page.goto((results / "report" / "tasks" / "stateact__other__os__answer-any.html").as_uri())
    tool_steps = page.locator("#steps li.kind-tool")
    assert tool_steps.count() == 2
    assert "printf 42" in tool_steps.first.inner_text()
    assert tool_steps.first.locator("img").evaluate("img => img.complete && img.naturalWidth") > 0
    assert page.locator("#steps li.kind-text").first.inner_text().endswith("Step 1")
    assert problems == []


def test_undecided_gate_rounds_are_neither_passes_nor_fails(tmp_path):
    """A gate that could not decide (`passed: null`) is counted apart in tasks.csv and summary.md."""
    task_dir = task_result_dir(tmp_path, "stateact", "scripted", "os", "undecided")
    run_dir = task_dir / RUN_FOLDER
    run_dir.mkdir(parents=True)
    (task_dir / "result.txt").write_text("1.0\n")
    verdicts = [
        {"kind": "gate_verdict", "scope": f"gate#{n}", "round": n, "passed": passed, "source": source}
        for n, (passed, source) in enumerate([(None, "undecided")] * 3 + [(True, "model")], start=1)
    ]
    (run_dir / "events.jsonl").write_text("\n".join(json.dumps(v) for v in verdicts))
    [metrics] = collect_metrics(tmp_path)
    counts = (metrics.gate_rounds, metrics.gate_passes, metrics.gate_fails, metrics.gate_undecided)
    assert counts == (4, 1, 0, 3)
    code, output = run_cli("report", str(tmp_path))
    assert code == 0, output
    summary = (tmp_path / "summary.md").read_text().splitlines()
    headers = [cell.strip() for cell in summary[0].strip("|").split("|")]
    cells = [cell.strip() for cell in summary[2].strip("|").split("|")]
    assert cells[headers.index("gate pass/fail (sum)")] == "1/0"
    assert cells[headers.index("gate undecided (sum)")] == "3"
    [task] = list(csv.DictReader(io.StringIO((tmp_path / "tasks.csv").read_text())))
    assert (task["gate_passes"], task["gate_fails"], task["gate_undecided"]) == ("1", "0", "3")


@pytest.mark.parametrize("width", [1280, 1920])
def test_the_summary_fits_the_window_labels_every_bar_and_notes_unplayable_references(
    report_dir, page, width, tmp_path
):
    page, problems = page
    page.set_viewport_size({"width": width, "height": 900})
    page.goto((report_dir / "index.html").as_uri())
    page.screenshot(path=str(tmp_path / f"summary-{width}.png"), full_page=True)
    table = page.locator("#comparison").bounding_box()
    assert table is not None and table["x"] + table["width"] <= width, table
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.locator("rect.bar").count() == page.locator("text.bar-label").count() > 0
    headers = page.locator("#comparison th").all_inner_texts()
    assert "agent s/task" in headers and "input tokens (sum)" in headers and "main turns/task" in headers
    assert "role models" not in headers and "pick acc %" not in headers  # no run had them
    assert "bash-only" in page.locator("#reference-note").inner_text()
    page.goto((report_dir / "tasks" / "stateact__scripted__calc__chart-legend.html").as_uri())
    page.screenshot(path=str(tmp_path / f"task-{width}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert problems == []


def test_a_run_that_ended_in_error_is_drawn_red_and_its_status_says_it_was_scored(tmp_path, page):
    """A run that ended in error after its turns is scored (not in `errors`): its status says so, and its
    last card is red, not green."""
    task_dir = task_result_dir(tmp_path, "stateact", "scripted", "os", "ended-in-error")
    run_dir = task_dir / RUN_FOLDER
    run_dir.mkdir(parents=True)
    (task_dir / "result.txt").write_text("0.0\n")
    (task_dir / "score.json").write_text('{"score": 0.0, "partial": 0.0, "parts": []}')
    (run_dir / "result.json").write_text('{"status": "error", "turns": 3}')
    (run_dir / "events.jsonl").write_text(
        '{"kind": "run_end", "scope": "main", "status": "error", "turns": 3}\n'
    )
    code, output = run_cli("report", str(tmp_path))
    assert code == 0, output
    page, problems = page
    page.goto((tmp_path / "report" / "index.html").as_uri())
    assert "run ended in error (scored)" in page.locator("#tasks").inner_text()
    errors = page.locator("#comparison th").all_inner_texts().index("not scored (tasks)")
    assert page.locator("#comparison tr.all td").nth(errors).inner_text() == "0"
    page.goto((tmp_path / "report" / "tasks" / "stateact__scripted__os__ended-in-error.html").as_uri())
    card = page.locator("li.kind-run")
    assert "error" in (card.get_attribute("class") or "")
    assert card.evaluate("li => getComputedStyle(li).backgroundColor") == "rgb(254, 242, 242)"
    assert problems == []


BROKEN_WORDS = """() => {
  const broken = [];
  for (const th of document.querySelectorAll("th")) {
    const text = th.firstChild && th.firstChild.nodeType === Node.TEXT_NODE ? th.firstChild : null;
    if (!text) continue;
    for (const match of text.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(text, match.index);
      range.setEnd(text, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(`${th.innerText}: ${match[0]}`);
    }
  }
  return broken;
}"""
NAMES = {"harness", "model", "domain", "task", "status", "setup", "role models", "checkpoint", "tasks scored"}
"""Headers of names, whose cells need no unit."""


def test_the_summary_table_comes_first_with_whole_headers_and_every_unit(report_dir, page, tmp_path):
    page, problems = page
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto((report_dir / "index.html").as_uri())
    page.screenshot(path=str(tmp_path / "summary-1280.png"))
    summary = page.locator("#summary").bounding_box()
    assert summary["y"] + summary["height"] <= 800, "the summary table is below the fold"
    assert summary["y"] < page.locator("#charts").bounding_box()["y"]
    assert page.locator("#summary th").all_inner_texts() == list(SUMMARY_HEADERS)
    rows = page.locator("#summary tbody tr").all_inner_texts()
    assert len(rows) == 3 and any(row.startswith("bash-only\treference\t") for row in rows), rows
    assert page.evaluate(BROKEN_WORDS) == []
    for table in ("#summary", "#comparison", "#tasks"):
        for header in page.locator(f"{table} th").all_inner_texts():
            unit = any(mark in header for mark in ("(", "%", "/task", "$")) or header in NAMES
            assert unit, f"{table} column {header!r} has no unit"
    assert "turns (main + subagent)" in page.locator("#tasks th").all_inner_texts()
    assert problems == []


def test_checkpoints_of_one_name_are_told_apart(tmp_path, page):
    task_dir = task_result_dir(tmp_path, "stateact", "scripted", "os", "twins")
    (task_dir / RUN_FOLDER).mkdir(parents=True)
    (task_dir / "result.txt").write_text("1.0\n")
    same = {"func": "exact_match", "name": "exact_match on cmd", "score": 1.0}
    parts = [{**same, "inputs": ["42", "42"]}, {**same, "inputs": ["7", "7"]}, {**same, "inputs": ["7", "7"]}]
    (task_dir / "score.json").write_text(json.dumps({"score": 1.0, "parts": parts}))
    code, output = run_cli("report", str(tmp_path))
    assert code == 0, output
    page, problems = page
    page.goto((tmp_path / "report" / "tasks" / "stateact__scripted__os__twins.html").as_uri())
    names = [row.split("\t")[0] for row in page.locator("#checkpoints tbody tr").all_inner_texts()]
    assert names == [
        "exact_match on cmd (expected: 42)",
        "exact_match on cmd (expected: 7) #1",
        "exact_match on cmd (expected: 7) #2",
    ]
    assert problems == []
