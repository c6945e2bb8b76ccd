"""The one ending tool set of every subagent: the same fields in each role's words, and a typed claim."""

from __future__ import annotations

from stateact.kernel.loop import LoopOutcome
from stateact.kernel.tools.finish import FinishClaim
from stateact.subagents.delegation import outcome_facts
from stateact.subagents.endings import DoneTool, FailTool, ReportProgressTool, SubagentClaim, ending_tools
from stateact.subagents.gui_tools import SCREEN_WORDS
from stateact.subagents.web_tools import WEB_WORDS
from tests.support.tool_calls import invoke


def test_every_subagent_ends_with_the_same_fields_in_its_own_words():
    screen, web = ending_tools(SCREEN_WORDS), ending_tools(WEB_WORDS)
    assert [t.name for t in screen] == [t.name for t in web] == ["done", "fail"]
    for ours, theirs in zip(screen, web, strict=True):
        mine, other = ours.spec().input_schema, theirs.spec().input_schema
        assert mine["properties"].keys() == other["properties"].keys()
        assert mine["required"] == other["required"]
        assert ours.spec().description != theirs.spec().description
    summary = screen[0].spec().input_schema["properties"]["summary"]["description"]
    assert "what you saw on the screen" in summary
    assert web[0].spec().input_schema["properties"]["facts"]["description"].startswith("Each fact found")


def test_an_ending_tool_ends_the_loop_with_a_typed_claim():
    done = invoke(DoneTool(WEB_WORDS), summary="Saved.", facts=["Code: 42"])
    assert done.terminal and done.text == "Saved."
    assert done.ending == SubagentClaim("DONE", "Saved.", facts=("Code: 42",))
    failed = invoke(FailTool(SCREEN_WORDS), reason="No printer.")
    assert failed.ending == SubagentClaim("FAIL", "No printer.")
    progress = invoke(ReportProgressTool(SCREEN_WORDS), verified="A2 typed", remaining="save")
    assert progress.ending == SubagentClaim("INCOMPLETE", "A2 typed", remaining="save")
    assert invoke(DoneTool(WEB_WORDS), facts=[]).is_error  # the summary is required


def test_an_outcome_is_read_by_the_kind_of_its_ending():
    claim = SubagentClaim("FAIL", "blocked by a dialog", facts=("seen: Error 5",))
    finished = LoopOutcome("finished", "blocked by a dialog", 3, claim)
    assert finished.ending_as(SubagentClaim) is claim and finished.ending_as(FinishClaim) is None
    assert LoopOutcome("budget", "turn budget spent", 3, claim).ending_as(SubagentClaim) is None
    assert outcome_facts(finished, "GUI") == {
        "status": "FAIL",
        "detail": "blocked by a dialog",
        "remaining": "",
        "facts": ["seen: Error 5"],
    }
    other = LoopOutcome("finished", "Task ended.", 1, FinishClaim("done"))
    assert outcome_facts(other, "GUI")["status"] == "INCOMPLETE"
