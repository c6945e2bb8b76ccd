"""Thinking blocks travel in the history, so a fresh provider (a resumed run) still sends them back."""

from __future__ import annotations

from pydantic import BaseModel

from stateact.kernel.events import read_events
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec
from stateact.kernel.messages import ReasoningBlock
from stateact.kernel.meter import Meter
from stateact.kernel.models.anthropic_provider import AnthropicProvider
from stateact.kernel.models.base import ModelRequest
from stateact.kernel.runlog import load_message
from stateact.kernel.tools.base import Tool, ToolResult
from tests.support.wire_servers import anthropic_reply


class EchoInput(BaseModel):
    text: str


class Echo(Tool[EchoInput]):
    name = "echo"
    description = "Echo the text."
    Input = EchoInput

    def run(self, params: EchoInput) -> ToolResult:
        return ToolResult(text=params.text)


def test_thinking_blocks_survive_a_rebuild_from_the_log(anthropic_server, run_log):
    server = anthropic_server(
        anthropic_reply(thinking="I should echo first.", tool_calls=[("echo", {"text": "hi"})]),
        anthropic_reply(text="done"),
        anthropic_reply(text="still fine after the rebuild"),
    )
    model = f"{server.base_url}"
    loop = AgentLoop(
        LoopSpec(scope="main", tools=[Echo()], system_prompt="test", budget=Budget(max_turns=5)),
        model=AnthropicProvider("claude-sonnet-5-5", model, backoff_base_s=0.01),
        log=run_log,
        meter=Meter(),
    )
    assert loop.run("echo hi").status == "replied"
    history = [
        load_message(e.message, run_log.run_dir)
        for e in read_events(run_log.events_path)
        if e.kind == "message"
    ]
    assert isinstance(history[1].content[0], ReasoningBlock)
    history.append(history[0].model_copy(update={"content": history[0].content}))  # a new user turn
    fresh = AnthropicProvider("claude-sonnet-5-5", model, backoff_base_s=0.01)
    reply = fresh.complete(ModelRequest(system="test", messages=history, tools=[Echo().spec()]))
    assert reply.content[0].text == "still fine after the rebuild"
    sent = server.requests[-1]["messages"][1]["content"][0]
    assert sent["type"] == "thinking" and sent["thinking"] == "I should echo first."
