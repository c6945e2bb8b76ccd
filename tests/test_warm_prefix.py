"""Loops that start warm: each role's system prompt and tools are the same bytes for every task, run,
round and delegation, and sit before a cache breakpoint, so a second loop of the role reads them from
the prompt cache. Requests go through the real `anthropic` SDK to the local wire server, which models
the cache (`PromptCache`) and reports the tokens each request read and wrote."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from stateact.app.harness import build_main_loop
from stateact.app.variants import get_variant
from stateact.gate.review import FinishGate
from stateact.kernel.loop import Budget
from stateact.kernel.meter import Meter
from stateact.kernel.models.prompt_cache import PromptCache, wire_blocks
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.sandbox.local import LocalSandbox
from stateact.subagents.gui import run_gui_subgoal
from stateact.subagents.web import DelegateWebTool
from tests.support.tool_context import run_context
from tests.support.wire_servers import anthropic_reply
from tests.test_gui_desktop import desktop  # noqa: F401 (fixture)

MODEL = "claude-sonnet-4-6"
TASKS = (
    "In ~/sales.xlsx, add a Total row under the data with SUM formulas.",
    "Forward the newest email in Thunderbird to bob@example.com.",
)


def context_for(run_dir: Path, sandbox: LocalSandbox, task: str, spec: str, role: str) -> RunContext:
    models = RoleModels(main=spec) if role == "main" else RoleModels(main=spec, **{role: spec})
    return RunContext(
        run_dir=run_dir, task=task, sandbox=sandbox, log=RunLog(run_dir), meter=Meter(), models=models
    )


def preamble(body: dict) -> tuple[list, list]:
    return body["tools"], body["system"]


def prefix_tokens(body: dict) -> int:
    """Tokens of the tools and the system prompt, as the cache model counts them."""
    blocks = wire_blocks(body)[: len(body["tools"]) + len(body["system"])]
    return sum(size for _, size, _ in blocks)


def assert_warm(server, firsts: list[int]) -> None:
    """The first request of each loop (at indexes `firsts`): the same preamble, a breakpoint at its end,
    written by the first loop and read by the second."""
    one, two = (server.requests[i] for i in firsts)
    assert preamble(one) == preamble(two)
    assert one["tools"][-1]["cache_control"] == one["system"][-1]["cache_control"] == {"type": "ephemeral"}
    first, second = (server.usages[i] for i in firsts)
    assert first.cache_read_tokens == 0 and first.cache_write_tokens >= prefix_tokens(one)
    assert second.cache_read_tokens >= prefix_tokens(two) > 1024


@pytest.mark.slow
def test_the_main_agent_of_two_tasks_in_two_homes_reads_the_second_preamble_from_the_cache(
    tmp_path, anthropic_server
):
    server = anthropic_server(
        *[anthropic_reply(tool_calls=[("finish", {"summary": "done"})]) for _ in TASKS], cache=PromptCache()
    )
    spec = f"anthropic:{MODEL}@{server.base_url}"
    openings = []
    for number, task in enumerate(TASKS):
        sandbox = LocalSandbox(tmp_path / f"home{number}")
        sandbox.start()
        context = context_for(tmp_path / f"run{number}", sandbox, task, spec, "main")
        try:
            loop = build_main_loop(context, get_variant("no-verify"), Budget(max_turns=3))
            assert loop.run(task).status == "finished"
            loop.close_tools()
        finally:
            context.log.close()
            sandbox.close()
        openings.append(server.requests[-1]["messages"][0]["content"][0]["text"])
    assert_warm(server, [0, 1])
    assert str(tmp_path / "home0") in openings[0] and "LibreOffice" in openings[0]
    assert str(tmp_path / "home1") in openings[1] and "Thunderbird" in openings[1]
    assert "home0" not in server.requests[0]["system"][0]["text"]


@pytest.mark.slow
def test_the_gates_of_two_tasks_read_their_prefix_from_the_cache(tmp_path, anthropic_server):
    verdict = {
        "verdict": "PASS",
        "findings": [],
        "checklist": [{"requirement": "the task is done", "result": "pass"}],
        "summary": "ok",
    }
    server = anthropic_server(
        *[anthropic_reply(tool_calls=[("verdict", verdict)]) for _ in TASKS], cache=PromptCache()
    )
    spec = f"anthropic:{MODEL}@{server.base_url}"
    for number, task in enumerate(TASKS):
        sandbox = LocalSandbox(tmp_path / f"home{number}")
        sandbox.start()
        context = context_for(tmp_path / f"run{number}", sandbox, task, spec, "gate")
        try:
            FinishGate(context, task_started_at=time.time() - 60 * (number + 1)).review()
        finally:
            context.log.close()
            sandbox.close()
    assert len(server.requests) == 2
    assert_warm(server, [0, 1])
    assert "The task started at" in server.requests[1]["messages"][0]["content"][0]["text"]


@pytest.mark.apps
def test_a_second_gui_delegation_reads_its_prefix_from_the_cache(tmp_path, desktop, anthropic_server):  # noqa: F811
    server = anthropic_server(
        *[anthropic_reply(tool_calls=[("done", {"summary": "seen"})]) for _ in range(2)], cache=PromptCache()
    )
    context = context_for(tmp_path / "run", desktop, TASKS[0], f"anthropic:{MODEL}@{server.base_url}", "gui")
    try:
        for number, subgoal in enumerate(("Open the File menu.", "Close the dialog.")):
            run_gui_subgoal(context, subgoal, scope=f"gui#{number + 1}")
    finally:
        context.log.close()
    assert len(server.requests) == 2
    assert_warm(server, [0, 1])


@pytest.mark.apps
def test_a_second_web_delegation_reads_its_prefix_from_the_cache(tmp_path, anthropic_server):
    done = {"summary": "Looked.", "facts": []}
    server = anthropic_server(
        *[anthropic_reply(tool_calls=[("done", done)]) for _ in range(2)], cache=PromptCache()
    )
    with run_context(tmp_path, task=TASKS[0]) as context:
        context.models = RoleModels(main="scripted:unused.json", web=f"anthropic:{MODEL}@{server.base_url}")
        tool = DelegateWebTool(context)
        try:
            for subgoal in ("Read the open page's title.", "Say which tabs are open."):
                assert "DONE" in tool.run(tool.Input(subgoal=subgoal)).text
        finally:
            tool.close()
    assert len(server.requests) == 2
    assert_warm(server, [0, 1])
