"""The plan checklist: persistence, reloading, the injected block and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.kernel.events import read_events
from stateact.kernel.loop import AgentLoop, LoopSpec
from stateact.kernel.messages import TextBlock
from stateact.kernel.models.scripted import ScriptedProvider
from stateact.kernel.tools.plan import PLAN_FILE, Plan, PlanError, PlanTool, plan_injection
from tests.support.tool_calls import invoke
from tests.support.tool_context import run_context


@pytest.fixture
def context(tmp_path: Path):
    with run_context(tmp_path) as context:
        yield context


@pytest.fixture
def tool(context) -> PlanTool:
    return PlanTool(context, Plan.for_run(context.run_dir))


def test_set_update_add_and_render(tool: PlanTool) -> None:
    invoke(tool, action="set", items=["Find the workbook", {"title": "Fix totals", "note": "sheet Q3"}])
    result = invoke(
        tool,
        action="update",
        updates=[{"id": 1, "status": "done", "note": "~/q3.xlsx"}, {"id": 2, "status": "in_progress"}],
    )
    added = invoke(
        tool, action="add", items=[{"title": "Export PDF", "status": "blocked", "note": "no printer"}]
    )
    assert not result.is_error and not added.is_error
    assert tool.plan.render() == (
        "Plan (1/3 done, 0 verified):\n"
        "[x] 1. Find the workbook (claimed, unverified) — ~/q3.xlsx\n"
        "[>] 2. Fix totals — sheet Q3\n"
        "[!] 3. Export PDF — no printer"
    )


def test_results_confirm_the_change_without_repeating_the_plan(tool: PlanTool) -> None:
    """The whole plan is injected at the end of each request; a result names only what changed."""
    set_result = invoke(tool, action="set", items=["Find the workbook", "Fix totals", "Export PDF"])
    assert (
        set_result.text == "Plan (0/3 done, 0 verified): 3 items set; in progress:\n[>] 1. Find the workbook"
    )
    updated = invoke(tool, action="update", updates=[{"id": 1, "status": "done", "note": "~/q3.xlsx"}])
    assert updated.text == (
        "Plan (1/3 done, 0 verified); changed:\n"
        "[x] 1. Find the workbook (claimed, unverified) — ~/q3.xlsx\n"
        "[>] 2. Fix totals"
    )
    added = invoke(
        tool, action="add", items=[{"title": "Mail it", "status": "blocked", "note": "no account"}]
    )
    assert added.text == "Plan (1/4 done, 0 verified); changed:\n[!] 4. Mail it — no account"
    same = invoke(tool, action="update", updates=[{"id": 2, "status": "in_progress"}])
    assert same.text == "Plan (1/4 done, 0 verified); nothing changed"
    remembered = invoke(tool, action="remember", facts={"workbook": "~/q3.xlsx"})
    assert remembered.text == "Plan (1/4 done, 0 verified); remembered: workbook"


def test_persisted_atomically_and_reloaded(tool: PlanTool, context) -> None:
    invoke(tool, action="set", items=["a", "b"])
    invoke(tool, action="update", updates=[{"id": 2, "status": "done"}])
    path = context.run_dir / PLAN_FILE
    saved = json.loads(path.read_text())
    assert [(i["id"], i["title"], i["status"]) for i in saved["items"]] == [
        (1, "a", "in_progress"),
        (2, "b", "done"),
    ]
    assert not list(context.run_dir.glob("*.tmp"))
    reloaded = Plan.for_run(context.run_dir)
    assert reloaded.render() == tool.plan.render()
    assert reloaded.items == tool.plan.items
    plan_events = [e for e in read_events(context.log.events_path) if e.kind == "plan"]
    assert [e.action for e in plan_events] == ["set", "update"]
    assert plan_events[-1].items[1]["status"] == "done"


def test_set_replaces_and_renumbers(tool: PlanTool) -> None:
    invoke(tool, action="set", items=["a", "b", "c"])
    invoke(tool, action="set", items=["x"])
    assert [(i.id, i.title) for i in tool.plan.items] == [(1, "x")]
    invoke(tool, action="add", items=["y"])
    assert [i.id for i in tool.plan.items] == [1, 2]


def test_injection_block(tool: PlanTool) -> None:
    inject = plan_injection(tool.plan)
    assert inject() is None
    invoke(tool, action="set", items=["only step"])
    assert inject() == "<plan>\nPlan (0/1 done, 0 verified):\n[>] 1. only step\n</plan>"


def test_unknown_id_changes_nothing(tool: PlanTool, context) -> None:
    invoke(tool, action="set", items=["a", "b"])
    before = (context.run_dir / PLAN_FILE).read_text()
    result = invoke(tool, action="update", updates=[{"id": 1, "status": "done"}, {"id": 7, "status": "done"}])
    assert result.is_error
    assert "No plan item with id 7 (ids: 1, 2)" in result.text
    assert tool.plan.get(1).status == "in_progress"
    assert (context.run_dir / PLAN_FILE).read_text() == before


def test_errors(tool: PlanTool) -> None:
    assert "the plan is empty" in invoke(tool, action="update", updates=[{"id": 1, "status": "done"}]).text
    assert "needs `items`" in invoke(tool, action="set").text
    assert "needs `items`" in invoke(tool, action="add", items=[]).text
    assert "needs `updates`" in invoke(tool, action="update").text
    bad_status = invoke(tool, action="set", items=[{"title": "a", "status": "finished"}])
    assert bad_status.is_error and "status" in bad_status.text
    assert invoke(tool, action="remove").is_error
    assert invoke(tool, action="set", items=[""]).is_error
    assert tool.plan.items == []


def test_missing_file_gives_an_empty_plan(tmp_path: Path) -> None:
    plan = Plan.for_run(tmp_path / "fresh")
    assert plan.items == [] and plan.render() == "(the plan is empty)"
    assert not (tmp_path / "fresh" / PLAN_FILE).exists()


def test_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / PLAN_FILE).write_text('{"items": [{"title": "no id"}]}')
    with pytest.raises(PlanError, match="is not a saved plan"):
        Plan.for_run(tmp_path)
    (tmp_path / PLAN_FILE).write_text("{torn")
    with pytest.raises(PlanError, match="is not a saved plan"):
        Plan.for_run(tmp_path)


def test_loop_shows_the_plan_at_the_end_of_each_request_only(tool: PlanTool, context) -> None:
    model = ScriptedProvider(
        [
            {"tool_calls": [{"name": "plan", "input": {"action": "set", "items": ["inspect", "report"]}}]},
            {
                "tool_calls": [
                    {"name": "plan", "input": {"action": "update", "updates": [{"id": 1, "status": "done"}]}}
                ]
            },
            {"text": "all done"},
        ]
    )
    loop = AgentLoop(
        LoopSpec(scope="main", tools=[tool], system_prompt="test", injections=[plan_injection(tool.plan)]),
        model=model,
        log=context.log,
        meter=context.meter,
    )
    assert loop.run("do the task").status == "replied"
    last_blocks = [request.messages[-1].content[-1] for request in model.requests]
    assert not any("<plan>" in getattr(block, "text", "") for block in model.requests[0].messages[-1].content)
    assert isinstance(last_blocks[1], TextBlock) and "[>] 1. inspect" in last_blocks[1].text
    assert isinstance(last_blocks[2], TextBlock) and "[x] 1. inspect" in last_blocks[2].text
    assert not any("<plan>" in message.model_dump_json() for message in loop.messages)


def statuses(tool: PlanTool) -> list[str]:
    return [item.status for item in tool.plan.items]


def test_one_item_is_kept_in_progress_as_items_are_done(tool: PlanTool) -> None:
    invoke(tool, action="set", items=["a", "b", "c", "d"])
    assert statuses(tool) == ["in_progress", "pending", "pending", "pending"]
    invoke(tool, action="update", updates=[{"id": 1, "status": "done"}])
    assert statuses(tool) == ["done", "in_progress", "pending", "pending"]
    invoke(tool, action="claim", claims=[{"id": 2}])  # done without evidence still moves on
    assert statuses(tool) == ["done", "done", "in_progress", "pending"]
    invoke(tool, action="update", updates=[{"id": 3, "status": "done"}, {"id": 1, "status": "in_progress"}])
    assert statuses(tool) == ["in_progress", "done", "done", "pending"]  # another item was put in progress
    invoke(tool, action="update", updates=[{"id": 4, "status": "done"}])  # a pending item done: nothing moves
    assert statuses(tool) == ["in_progress", "done", "done", "done"]
    invoke(tool, action="update", updates=[{"id": 1, "status": "done"}])  # nothing pending is left
    assert statuses(tool) == ["done", "done", "done", "done"]


def test_set_keeps_given_statuses_and_starts_the_first_pending_item(tool: PlanTool) -> None:
    invoke(tool, action="set", items=[{"title": "a", "status": "done"}, "b", "c"])
    assert statuses(tool) == ["done", "in_progress", "pending"]
    invoke(tool, action="set", items=["x", {"title": "y", "status": "in_progress"}])
    assert statuses(tool) == ["pending", "in_progress"]
    invoke(tool, action="update", updates=[{"id": 2, "status": "done"}])  # wraps to the first pending item
    assert statuses(tool) == ["in_progress", "done"]


def test_items_schema_and_behaviour_agree_on_strings_and_objects(tool: PlanTool) -> None:
    import jsonschema

    schema = tool.spec().input_schema
    for items in (["a", {"title": "b", "note": "n"}], [{"title": "c", "status": "blocked"}]):
        jsonschema.validate({"action": "set", "items": items}, schema)
        assert not invoke(tool, action="set", items=items).is_error
    assert [(i.title, i.note) for i in tool.plan.items] == [("c", "")]
    for bad in ([""], [{"note": "no title"}], [3]):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"action": "set", "items": bad}, schema)
        assert invoke(tool, action="set", items=bad).is_error


def test_a_reopened_or_started_item_is_the_only_one_in_progress(tool: PlanTool) -> None:
    invoke(tool, action="set", items=["a", "b", "c"])
    invoke(tool, action="update", updates=[{"id": 1, "status": "done"}])
    assert statuses(tool) == ["done", "in_progress", "pending"]
    invoke(tool, action="update", updates=[{"id": 3, "status": "in_progress"}])  # the agent turns to c
    assert statuses(tool) == ["done", "pending", "in_progress"]
    invoke(
        tool,
        action="update",
        updates=[{"id": 1, "status": "in_progress"}, {"id": 2, "status": "in_progress"}],
    )
    assert statuses(tool) == ["pending", "in_progress", "pending"]  # the last one started
