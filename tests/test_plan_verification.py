"""Verifier-committed plan items: claims, evidence checks on real files, reverts, gate confirmation, facts."""

from __future__ import annotations

import openpyxl
import pytest

from stateact.kernel.evidence import EvidenceChecker, FileContains
from stateact.kernel.tools.plan import Plan, PlanTool
from tests.support.run_events import logged_events
from tests.support.tool_calls import invoke
from tests.support.tool_context import run_context


@pytest.fixture
def ctx(tmp_path):
    with run_context(tmp_path) as context:
        yield context


def make_tool(ctx, **kwargs) -> PlanTool:
    tool = PlanTool(ctx, Plan.load(ctx.run_dir / "plan.json"), EvidenceChecker(ctx.sandbox), **kwargs)
    invoke(tool, action="set", items=["write totals", "save report", "email"])
    return tool


def write_book(path, total):
    book = openpyxl.Workbook()
    book.active.title = "Q3"
    book.active["B7"] = total
    book.save(path)


def test_a_claim_without_evidence_stays_unverified(ctx):
    tool = make_tool(ctx)
    result = invoke(tool, action="claim", claims=[{"id": 3}])
    assert "claimed without evidence" in result.text
    assert tool.plan.get(3).status == "done" and tool.plan.get(3).claimed
    assert "[x] 3. email (claimed, unverified)" in result.text and not result.setback


def test_probe_confirms_a_claim_and_a_later_check_reverts_it(ctx):
    report = f"{ctx.sandbox.home}/report.xlsx"
    write_book(report, 1234.5)
    (ctx.sandbox.resolve("~/notes.txt")).write_text("saved to report.xlsx")
    tool = make_tool(ctx, recheck_every=2)
    result = invoke(
        tool,
        action="claim",
        claims=[
            {
                "id": 1,
                "evidence": [
                    {"kind": "cell_equals", "path": report, "sheet": "Q3", "cell": "B7", "value": 1234.5}
                ],
            },
            {
                "id": 2,
                "evidence": [
                    {"kind": "file_exists", "path": report},
                    {"kind": "file_contains", "path": "~/notes.txt", "text": "report.xlsx"},
                ],
            },
        ],
    )
    assert not result.is_error
    assert tool.plan.get(1).verified_by == "probe" and tool.plan.get(2).verified_by == "probe"
    assert "[x] 1. write totals (verified by probe)" in tool.injection()

    write_book(report, 999)  # the state changes behind the plan's back
    tool.injection()  # second request: periodic re-check
    item = tool.plan.get(1)
    assert item.status == "pending" and item.verified_by == ""
    assert [i.id for i in tool.plan.items if i.status == "in_progress"] == [3]
    assert "contradicted by a later check" in item.note and "999" in item.note
    assert tool.plan.get(2).verified_by == "probe"
    reverted = logged_events(ctx.log.events_path, "plan_reverted")
    assert reverted and reverted[0].reason == "periodic"


def test_failing_evidence_leaves_the_item_in_progress(ctx):
    tool = make_tool(ctx)
    result = invoke(
        tool,
        action="claim",
        claims=[
            {
                "id": 1,
                "evidence": [{"kind": "cell_equals", "path": "~/missing.xlsx", "cell": "A1", "value": 1}],
            }
        ],
    )
    assert "NOT verified" in result.text and "does not exist" in result.text
    assert tool.plan.get(1).status == "in_progress"
    assert result.setback  # a `finish` later in the same turn waits until the agent has read this


def test_command_evidence_needs_a_read_only_guard(ctx):
    refusing = PlanTool(
        ctx, Plan(), EvidenceChecker(ctx.sandbox, command_guard=lambda c: "writes" if ">" in c else None)
    )
    invoke(refusing, action="set", items=["a", "b", "c"])
    result = invoke(
        refusing,
        action="claim",
        claims=[
            {"id": 1, "evidence": [{"kind": "command_output", "command": "echo hi > x", "expect": "hi"}]},
            {"id": 2, "evidence": [{"kind": "command_output", "command": "echo hi", "expect": "hi"}]},
        ],
    )
    assert "`echo hi > x` was not run: writes. Evidence commands must leave" in result.text
    assert not ctx.sandbox.exists("~/x")
    assert refusing.plan.get(2).verified_by == "probe"
    unguarded = make_tool(ctx)
    result = invoke(
        unguarded,
        action="claim",
        claims=[{"id": 1, "evidence": [{"kind": "command_output", "command": "echo hi", "expect": "hi"}]}],
    )
    assert "not available" in result.text


def test_gate_pass_confirms_claims_and_rechecks_probes(ctx):
    path = f"{ctx.sandbox.home}/out.txt"
    ctx.sandbox.write_file(path, b"v1")
    tool = make_tool(ctx)
    invoke(
        tool,
        action="claim",
        claims=[{"id": 1, "evidence": [{"kind": "file_contains", "path": path, "text": "v1"}]}, {"id": 3}],
    )
    ctx.sandbox.write_file(path, b"v2")
    tool.gate_boundary(passed=False)
    assert tool.plan.get(1).status == "pending" and tool.plan.get(2).status == "in_progress"
    assert tool.plan.get(3).claimed
    tool.gate_boundary(passed=True)
    assert tool.plan.get(3).verified_by == "gate"


def test_facts_and_states_survive_a_reload(ctx):
    tool = make_tool(ctx)
    invoke(tool, action="remember", facts={"report": "~/q3/report.xlsx", "ticket": "OPS-42"})
    invoke(tool, action="claim", claims=[{"id": 2}])
    reloaded = Plan.load(ctx.run_dir / "plan.json")
    assert reloaded.facts == {"report": "~/q3/report.xlsx", "ticket": "OPS-42"}
    assert reloaded.get(2).claimed
    assert "- ticket: OPS-42" in reloaded.render()


def test_unknown_ids_and_missing_arguments_are_errors(ctx):
    tool = make_tool(ctx)
    assert invoke(tool, action="claim", claims=[{"id": 9}]).is_error
    assert invoke(tool, action="remember").is_error
    assert tool.plan.get(1).status == "in_progress"


@pytest.mark.slow
def test_file_contains_reads_the_text_of_office_documents(ctx):
    import docx
    import pptx

    report = docx.Document()
    report.add_paragraph("Total spent: 80,014.00 EUR")
    report.save(f"{ctx.sandbox.home}/report.docx")
    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = "Budget vs actual"
    deck.save(f"{ctx.sandbox.home}/deck.pptx")
    checker = EvidenceChecker(ctx.sandbox)

    def contains(path: str, text: str):
        return checker.check(FileContains(path=path, text=text))

    assert contains("~/report.docx", "80,014.00").ok
    assert contains("~/deck.pptx", "Budget vs actual").ok
    missing = contains("~/report.docx", "82,000.00")
    assert not missing.ok and "does not contain '82,000.00'" in missing.detail
    assert contains("~/nowhere.docx", "x").detail == "~/nowhere.docx does not exist"


def test_a_resumed_plan_rechecks_its_verified_items_at_the_first_request(ctx):
    report = f"{ctx.sandbox.home}/report.xlsx"
    write_book(report, 1234.5)
    tool = make_tool(ctx, recheck_every=10)
    evidence = [{"kind": "cell_equals", "path": report, "sheet": "Q3", "cell": "B7", "value": 1234.5}]
    invoke(tool, action="claim", claims=[{"id": 1, "evidence": evidence}, {"id": 2, "evidence": evidence}])
    invoke(tool, action="update", updates=[{"id": 3, "status": "done"}])
    write_book(report, 0)  # lost while the run was stopped

    resumed = PlanTool(
        ctx, Plan.load(ctx.run_dir / "plan.json"), EvidenceChecker(ctx.sandbox), recheck_every=10
    )
    shown = resumed.injection()
    assert [(i.id, i.status) for i in resumed.plan.items] == [(1, "in_progress"), (2, "pending"), (3, "done")]
    assert "contradicted by a later check" in resumed.plan.get(2).note and "1. write totals" in shown
    assert logged_events(ctx.log.events_path, "plan_reverted")[-1].reason == "resume"
    assert Plan.load(ctx.run_dir / "plan.json").get(1).status == "in_progress"


def test_a_claim_that_fails_on_another_item_makes_it_the_one_in_progress(ctx):
    tool = make_tool(ctx)
    invoke(tool, action="set", items=["write totals", "write summary", "finish"])
    invoke(tool, action="update", updates=[{"id": 1, "status": "done"}])
    missing = [{"kind": "file_exists", "path": "~/missing.xlsx"}]
    result = invoke(tool, action="claim", claims=[{"id": 1, "evidence": missing}])
    assert "NOT verified, reopened" in result.text
    assert [item.status for item in tool.plan.items] == ["in_progress", "pending", "pending"]
