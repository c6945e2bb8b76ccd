"""Compacted, image-stripped histories through the real SDKs against wire-format servers that
validate every request the way the vendors do (tool_use/tool_result pairing, roles, images)."""

from __future__ import annotations

import pytest

from stateact.kernel.context.compaction import Compactor
from stateact.kernel.context.pipeline import ContextPipeline
from stateact.kernel.context.processors import CapOutputs, StripImages
from stateact.kernel.context.stall_notes import StallDetector
from stateact.kernel.context.token_counter import counter
from stateact.kernel.events import read_events
from stateact.kernel.loop import AgentLoop
from stateact.kernel.models import create_model
from stateact.kernel.models.scripted import ScriptedProvider
from tests.support.wire_servers import (
    AnthropicWireServer,
    OpenAIWireServer,
    anthropic_prompt_too_long,
    anthropic_reply,
    openai_reply,
)
from tests.test_context import PLAN, TASK, make_loop

STEPS = 24
NO_USAGE = {"input_tokens": 0}
"""The servers report no prompt size, so the policy relies on its own estimates."""


def step_input(step: int) -> dict:
    return {"tag": f"s{step}", "lines": 30, "screenshot": step % 4 == 0}


def run(tmp_path, spec: str) -> AgentLoop:
    policy = ContextPipeline(
        window=7000,
        compactor=Compactor(
            lambda: ScriptedProvider([{"text": "## Progress\nearlier steps"}] * 10), counter()
        ),
        plan=lambda: PLAN,
        stall=StallDetector(),
        processors=[CapOutputs(), StripImages(keep=2, chunk=2)],
    )
    loop = make_loop(tmp_path, create_model(spec), policy)
    assert loop.run(TASK).status == "finished"
    return loop


def wire_images(node: object) -> int:
    """Images anywhere in a JSON body (Anthropic `image` blocks or OpenAI `image_url` parts)."""
    if isinstance(node, list):
        return sum(wire_images(item) for item in node)
    if isinstance(node, dict):
        return int(node.get("type") in ("image", "image_url")) + sum(wire_images(v) for v in node.values())
    return 0


def kinds(loop: AgentLoop) -> list[str]:
    return [e.kind for e in read_events(loop.log.events_path)]


@pytest.mark.slow
def test_anthropic_requests_stay_valid_through_compaction_and_overflow(tmp_path):
    turns = [anthropic_reply(tool_calls=[("produce", step_input(i))], usage=NO_USAGE) for i in range(STEPS)]
    turns.insert(8, anthropic_prompt_too_long(9000, 8000))
    turns.append(anthropic_reply(tool_calls=[("finish", {})], usage=NO_USAGE))
    with AnthropicWireServer(turns) as server:
        loop = run(tmp_path, f"anthropic:claude-sonnet-5@{server.base_url}")
    assert server.problems == [] and server.remaining == 0
    assert kinds(loop).count("compaction") >= 2 and "context_overflow" in kinds(loop)
    reasons = [e.reason for e in read_events(loop.log.events_path) if e.kind == "compaction"]
    assert "overflow" in reasons
    for body in server.requests:
        assert body["messages"][-1]["content"][-1] == {"type": "text", "text": PLAN}
        assert wire_images(body) <= 3


@pytest.mark.slow
def test_openai_requests_stay_valid_through_compaction(tmp_path):
    turns = [
        openai_reply(tool_calls=[("produce", step_input(i))], usage={"prompt_tokens": 0})
        for i in range(STEPS)
    ]
    turns.append(openai_reply(tool_calls=[("finish", {})], usage={"prompt_tokens": 0}))
    with OpenAIWireServer(turns, strict_alternation=True) as server:
        loop = run(tmp_path, f"openai:gpt-4.1@{server.base_url}")
    assert server.problems == [] and server.remaining == 0
    assert kinds(loop).count("compaction") >= 2
    for body in server.requests:
        assert body["messages"][-1]["content"][-1] == {"type": "text", "text": PLAN}
        assert wire_images(body) <= 3
