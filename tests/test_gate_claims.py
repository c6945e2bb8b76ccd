"""Infeasibility claims go through the gate; a gate whose verdict calls keep being rejected ends undecided.

Scripted gate model, real shell and files, the real finish tool.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from stateact.gate import settings as gate_settings
from stateact.gate.review import FinishGate
from stateact.kernel.messages import ToolUseBlock
from stateact.kernel.tools.finish import FinishClaim, FinishTool
from tests.support.run_events import logged_events
from tests.support.tool_calls import turn_calling
from tests.test_gate import after_error, make_context, tool_result_texts

pytest_plugins = ["tests.support.gate_fixtures"]

MARKER = "NARRATION-MARKER-b41d"
CHECK = {"requirement": "the claim holds", "result": "pass", "evidence": "looked"}


def finish(tool: FinishTool, summary: str, infeasible: bool = True):
    return tool.invoke(
        ToolUseBlock(id="f", name="finish", input={"summary": summary, "infeasible": infeasible})
    )


@pytest.mark.slow
def test_false_infeasible_claim_is_sent_back(tmp_path, sandbox):
    memo = Path(sandbox.home) / "Documents" / "memo.txt"
    memo.parent.mkdir()
    memo.write_text("Meeting at noon.\n")
    task = "Append the line 'Bring slides.' to memo.txt in my Documents folder."
    claim = "There is no memo.txt in ~/Documents, so there is nothing to append to."
    finding = {"problem": "memo.txt exists", "location": str(memo), "evidence": "ls listed it"}
    turns = [
        turn_calling("bash", command="ls ~/Documents"),
        turn_calling("verdict", verdict="FAIL", findings=[finding], checklist=[{**CHECK, "result": "fail"}]),
    ]
    context = make_context(tmp_path, sandbox, task, turns)
    tool = FinishTool(context, gate=FinishGate(context, task_started_at=time.time() - 60))

    result = finish(tool, claim)

    assert result.is_error and not result.terminal
    assert result.ending is None and tool.gate.last_verdict.passed is False
    assert "does not accept that the task is infeasible" in result.text and str(memo) in result.text
    first = context.provider("gate").requests[0].messages[0].text()
    assert f"<infeasibility_claim>\n{claim}\n</infeasibility_claim>" in first and task in first
    assert "memo.txt" in tool_result_texts(context.provider("gate").requests[1])
    [start] = logged_events(context.log.events_path, "gate_start")
    assert start.infeasible_claim == claim


@pytest.mark.slow
def test_true_infeasible_claim_passes_and_ends_the_run_infeasible(tmp_path, sandbox):
    task = "Open ~/plan.frob in the program frobnicate-studio and export it as ~/plan.pdf."
    claim = f"frobnicate-studio is not installed and nothing else reads .frob files. {MARKER}"
    turns = [
        turn_calling(
            "bash", command="command -v frobnicate-studio || echo 'frobnicate-studio: not installed'"
        ),
        turn_calling(
            "verdict", verdict="PASS", checklist=[CHECK], summary="frobnicate-studio is not installed."
        ),
    ]
    context = make_context(tmp_path, sandbox, task, turns)
    gate = FinishGate(context, task_started_at=time.time() - 60)

    result = finish(FinishTool(context, gate=gate), claim)

    assert result.terminal and not result.is_error
    assert result.ending == FinishClaim(claim, infeasible=True, gate_passed=True)
    # the pre-gate's "missing output" findings do not decide a claim: the model judged it
    assert gate.last_verdict.source == "model"
    assert "frobnicate-studio: not installed" in tool_result_texts(context.provider("gate").requests[1])
    # the claim is the one piece of the agent's words the gate sees
    system = context.provider("gate").requests[0].system
    assert MARKER not in system and MARKER in context.provider("gate").requests[0].messages[0].text()
    # a round without web tools is not told of them
    assert "read_page" not in system and "web_pages" not in system


@pytest.mark.slow
def test_three_invalid_verdicts_end_the_round_undecided_then_a_fresh_round_decides(tmp_path, sandbox):
    out = Path(sandbox.home) / "out.txt"
    out.write_text("yes\n")
    pass_without_checklist = turn_calling("verdict", verdict="PASS")
    string_checklist = turn_calling("verdict", verdict="PASS", checklist=["out.txt says yes"])
    turns = [
        pass_without_checklist,
        after_error(string_checklist, "needs the checklist"),
        after_error(pass_without_checklist, "Input should be a valid dictionary"),
        # the fresh round
        turn_calling("verdict", verdict="PASS", checklist=[CHECK]),
    ]
    context = make_context(tmp_path, sandbox, f"Write yes into {out}.", turns)
    gate = FinishGate(context, task_started_at=time.time() - 60)

    result = finish(FinishTool(context, gate=gate), "done", infeasible=False)

    requests = context.provider("gate").requests
    assert len(requests) == 4  # three in the undecided round, one in the fresh one
    assert "1 more end the review undecided" in tool_result_texts(requests[2])
    first = gate.verdicts[0]
    assert first.passed is None and first.source == "undecided"
    assert f"rejected {gate_settings.GATE_MAX_INVALID_VERDICTS} times" in first.findings[0].problem
    assert result.terminal and result.ending.gate_passed is True and gate.rounds_used == 1
    logged = logged_events(context.log.events_path, "gate_verdict")
    assert [(e.scope, e.passed, e.source) for e in logged] == [
        ("gate#1", None, "undecided"),
        ("gate#2", True, "model"),
    ]
    assert not logged_events(context.log.events_path, "gate_undecided")


def test_verdict_tool_describes_the_checklist_shape():
    from stateact.gate.review.tools import VerdictTool

    spec = VerdictTool().spec()
    assert '"requirement"' in spec.description and '"pass" | "fail" | "unverifiable"' in spec.description
    assert set(spec.input_schema["properties"]["checklist"]["items"]["properties"]) >= {
        "requirement",
        "result",
    }


def test_verdict_tool_says_how_an_infeasibility_checklist_reads_and_counts_rejections_plainly():
    from stateact.gate.review.tools import VerdictTool
    from tests.support.tool_calls import invoke

    tool = VerdictTool(max_invalid=3)
    assert "each checklist item is one point of the claim" in tool.spec().description
    failed_item = {"requirement": "~/Desktop exists", "result": "fail", "evidence": "ls"}
    results = [invoke(tool, verdict="PASS", checklist=[failed_item]) for _ in range(3)]

    assert "write each item as a point of the claim" in results[0].text
    assert "(Rejected verdict 1; 2 more end the review undecided.)" in results[0].text
    assert results[2].terminal and "That was rejected verdict call 3 of 3" in results[2].text
    assert "3th" not in results[2].text


def test_the_web_part_of_the_prompt_names_only_the_web_tools_the_round_has():
    from stateact.gate.review.finish_gate import web_values_section

    assert web_values_section({"bash", "verdict"}) == ""
    only_read = web_values_section({"bash", "read_page"})
    assert "`read_page(url, render=true)`" in only_read and "web_pages" not in only_read
    assert "next page" in only_read
    assert "`web_pages` lists" in web_values_section({"read_page", "web_pages"})
