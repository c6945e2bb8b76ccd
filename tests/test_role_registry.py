"""A new subagent role is its own module plus one registration: the role below (a notes-taking subagent,
defined only here) registers itself, its report event with it, and the command line's role flags, the
role settings, the results keys, the main prompt and the harness's tools take it up; a delegation to it
runs on its own model and logs its own report, with no other file edited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.app.harness import build_main_loop
from stateact.app.role_options import role_settings
from stateact.app.variants import get_variant
from stateact.evals.running.results import model_key
from stateact.kernel import events as kernel_events
from stateact.kernel import roles as kernel_roles
from stateact.kernel.events import read_events
from stateact.kernel.loop import Budget, LoopSpec
from stateact.kernel.models import RoleSettings
from stateact.kernel.roles import Role, register_role, role_of_scope
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.subagents.delegation import (
    DONE,
    FAIL,
    INCOMPLETE,
    ReportForm,
    brief_text,
    delegation_budget,
    run_delegation,
)
from stateact.subagents.endings import EndingWords, ending_tools
from stateact.subagents.events import SubagentReportEvent, register_subagent
from stateact.subagents.nudge import SUBAGENT_NUDGE
from tests.support.tool_context import run_context

LOCAL = "openai:notes-model@http://127.0.0.1:1/v1"


# -- the role's module: its report form, its delegate tool and its registration --------------------------
NOTES_FORM = ReportForm(
    "Notes",
    "Notes subagent {scope}: {status}",
    {DONE: "Written: ", FAIL: "Why: ", "ERROR": "Why: ", INCOMPLETE: "Written so far: "},
    steps_line=True,
)
NOTES_WORDS = EndingWords(
    done="Call when the notes are written.",
    fail="Call when the notes cannot be written.",
    fields={"summary": "What the notes say.", "reason": "Why not."},
)


class DelegateNotesTool(Tool):
    """The main agent's way to have the notes subagent write down what it is told."""

    name = "delegate_notes"
    description = "Hand a note-taking subgoal to the notes subagent; it reports DONE, FAIL or INCOMPLETE."

    class Input(BaseModel):
        subgoal: str = Field(min_length=1, description="What to note.")
        context: str = Field("", description="What the notes subagent needs to know.")

    def __init__(self, context: RunContext) -> None:
        self.run_context = context

    def run(self, params: Input) -> ToolResult:
        spec = LoopSpec(
            self.run_context.log.next_scope("notes"),
            ending_tools(NOTES_WORDS),
            "You take notes. End with done or fail.",
            delegation_budget(self.run_context, 3, 60.0),
            role="notes",
            nudge=SUBAGENT_NUDGE,
        )
        loop = self.run_context.loop(spec)
        return run_delegation(loop, brief_text(params.subgoal, params.context), NOTES_FORM).tool_result()


NOTES = Role(
    "notes",
    model_help="Model spec of the notes subagent (default: the main model).",
    delegate=DelegateNotesTool,
)
# -------------------------------------------------------------------------------------------------------


@pytest.fixture
def notes_role(monkeypatch):
    """The notes role registered as its module would register it, for this test only."""
    monkeypatch.setattr(kernel_roles, "_REGISTRY", dict(kernel_roles._REGISTRY))
    monkeypatch.setattr(kernel_events, "EVENT_TYPES", dict(kernel_events.EVENT_TYPES))
    return register_subagent(NOTES)


def test_the_command_line_settings_and_results_keys_take_up_a_new_role(notes_role):
    for command in (["run"], ["eval", "run"]):
        text = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "300"}).output
        assert "--notes-model" in text and "Model spec of the notes subagent" in text, command
    assert role_settings(None, max_tokens=["notes=64"]) == {"notes": RoleSettings(max_tokens=64)}
    models = RoleModels(main="scripted:none", notes=LOCAL)
    assert models.spec_for("notes") == LOCAL and models.others()["notes"] == LOCAL
    assert model_key("m", models) not in ("m", model_key("m", RoleModels(main="scripted:none", web=LOCAL)))


def test_an_unregistered_role_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown role.*notes; roles are main, compactor"):
        RoleModels(main="scripted:none", notes=LOCAL)
    with pytest.raises(ValueError, match="use ROLE=VALUE with ROLE one of main"):
        role_settings(None, max_tokens=["notes=64"])
    with pytest.raises(ValueError, match="registered already"):
        register_role(Role("gui"))


def test_the_harness_offers_the_new_roles_tool_and_a_delegation_runs_on_its_model(notes_role, tmp_path):
    script = tmp_path / "script.json"
    call = {"name": "delegate_notes", "input": {"subgoal": "Note that the milk is bought."}}
    finish = {"name": "finish", "input": {"summary": "noted"}}
    done = {"name": "done", "input": {"summary": "milk: bought", "facts": ["milk"]}}
    turns = {"main": [{"tool_calls": [call]}, {"tool_calls": [finish]}], "notes": [{"tool_calls": [done]}]}
    script.write_text(json.dumps({"roles": turns}))
    with run_context(tmp_path) as context:
        context.models = RoleModels(main=f"scripted:{script}")
        bare = build_main_loop(context, get_variant("bash-only"), Budget(max_turns=5))
        bare.close_tools()
        loop = build_main_loop(context, get_variant("no-verify"), Budget(max_turns=5))
        assert "delegate_notes" not in bare.tools and "delegate_gui" not in bare.tools
        assert {"delegate_gui", "delegate_web", "delegate_notes"} <= set(loop.tools)
        try:
            outcome = loop.run("Note that the milk is bought.")
        finally:
            loop.close_tools()
    assert outcome.status == "finished"
    events = list(read_events(Path(context.log.events_path)))
    (report,) = [e for e in events if e.kind == "notes_report"]
    assert type(report) is kernel_events.EVENT_TYPES["notes_report"] and report.scope == "notes#1"
    assert issubclass(type(report), SubagentReportEvent)
    assert (report.status, report.detail, report.facts) == (DONE, "milk: bought", ["milk"])
    assert {role_of_scope(e.scope) for e in events if e.kind == "response"} == {"main", "notes"}
    assert [e.role for e in events if e.kind == "response" and e.scope == "notes#1"] == ["notes"]
    (result,) = [e for e in events if e.kind == "tool_result" and e.name == "delegate_notes"]
    assert result.text.startswith("Notes subagent notes#1: DONE\nWritten: milk: bought")
