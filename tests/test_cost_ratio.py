"""The prompt-cache price model's arithmetic, and the replay of recorded plays by `benchmarks/cost_ratio.py`."""

import importlib.util
import sys
from pathlib import Path

import pytest

from stateact.kernel.context.token_counter import counter
from stateact.kernel.messages import Usage
from stateact.kernel.models.catalog import lookup
from stateact.kernel.models.prompt_cache import PromptCache, wire_blocks

ROOT = Path(__file__).resolve().parent.parent
CACHE = {"type": "ephemeral"}


def load_benchmark():
    spec = importlib.util.spec_from_file_location("cost_ratio", ROOT / "benchmarks" / "cost_ratio.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def body(*turns: str) -> dict:
    """A wire body: one tool, a system prompt, and user/assistant turns, breakpoints on the last two users."""
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": text}]}
        for i, text in enumerate(turns)
    ]
    for message in [m for m in messages if m["role"] == "user"][-2:]:
        message["content"][-1]["cache_control"] = CACHE
    tool = {"name": "look", "description": "look " * 50, "input_schema": {}, "cache_control": CACHE}
    return {
        "tools": [tool],
        "system": [{"type": "text", "text": "be brief " * 100, "cache_control": CACHE}],
        "messages": messages,
    }


def sizes(wire: dict) -> list[int]:
    return [size for _, size, _ in wire_blocks(wire, counter())]


def test_a_request_reads_what_the_one_before_wrote_and_writes_only_its_new_turns():
    cache = PromptCache(min_cached=0)
    first = body("open the file " * 40)
    assert cache.send(first, output_tokens=7) == Usage(
        input_tokens=0, output_tokens=7, cache_read_tokens=0, cache_write_tokens=sum(sizes(first))
    )
    second = body("open the file " * 40, "done", "now save it " * 30)
    usage = cache.send(second)
    assert usage.cache_read_tokens == sum(sizes(first))
    assert usage.cache_write_tokens == sum(sizes(second)[len(sizes(first)) :]) and usage.input_tokens == 0
    changed = body("open the folder " * 40, "done", "now save it " * 30)  # its first turn differs
    assert cache.send(changed).cache_read_tokens == sum(sizes(first)[:2])  # only tools and system


def test_dollars_bill_writes_at_one_and_a_quarter_and_reads_at_a_tenth_of_the_input_price():
    info = lookup("claude-sonnet-4-6")
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=1_000_000,
        cache_read_tokens=1_000_000,
        cache_write_tokens=1_000_000,
    )
    assert info.cost(usage) == pytest.approx(info.input_usd * (1 + 1.25 + 0.1) + info.output_usd)


def test_a_short_prefix_is_not_cached_and_a_long_trailer_pays_the_input_price():
    cache = PromptCache(min_cached=10**6)
    wire = body("hello " * 20)
    assert cache.send(wire) == Usage(input_tokens=sum(sizes(wire)), output_tokens=0)


@pytest.mark.slow
def test_the_replay_of_a_recorded_play_sends_as_many_requests_as_the_play():
    bench = load_benchmark()
    play, records = bench.load(bench.PLAYS / "desktop-preferences-stateact.json")
    gui = [r for r in records if r.loop_kind == "gui"]
    for behaviour in ("every", "last"):
        sent = bench.requests_for(records, behaviour, play)
        assert len(sent) == len(records) == 12
        rebuilt = [request for record, request in sent if record.loop_kind == "gui"]
        assert len(rebuilt) == len(gui) == 4 and all(
            r is not g.request for r, g in zip(rebuilt, gui, strict=True)
        )
    last = [
        request for record, request in bench.requests_for(records, "last", play) if record.loop_kind == "gui"
    ]
    every = [
        request for record, request in bench.requests_for(records, "every", play) if record.loop_kind == "gui"
    ]
    images = [sum(len(m.images()) for m in r.messages) for r in last]
    assert images == [1, 2, 3, 4]  # one screenshot a batch
    assert sum(len(m.images()) for m in every[-1].messages) > images[-1]


@pytest.mark.slow  # loading the benchmark imports the whole harness
def test_the_naive_loop_plays_one_action_per_turn_and_keeps_only_the_latest_screenshots():
    from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock

    bench = load_benchmark()
    shot = ImageBlock(data=bench._png((8, 8), "ab" * 8))
    calls = [ToolUseBlock(id=f"c{i}", name="computer", input={"action": "click"}) for i in range(3)]
    history = [
        Message(role="user", content=[TextBlock(text="task"), shot]),
        Message(role="assistant", content=[TextBlock(text="three clicks"), *calls]),
        Message(
            role="user",
            content=[ToolResultBlock(tool_use_id=c.id, content=[TextBlock(text="ok"), shot]) for c in calls],
        ),
    ]
    turns = bench.single_action_turns(history)
    assert [m.role for m in turns] == ["user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert [len(m.tool_uses()) for m in turns if m.role == "assistant"] == [1, 1, 1]
    assert turns[1].text() == "three clicks"
    kept = bench.keep_last_images(turns, 2)
    images = [
        isinstance(part, ImageBlock)
        for message in kept
        for block in message.content
        for part in (block.content if isinstance(block, ToolResultBlock) else [block])
        if isinstance(part, ImageBlock) or getattr(part, "text", "") == bench.STRIPPED
    ]
    assert images == [False, False, True, True]


@pytest.mark.slow  # loading the benchmark imports the whole harness
def test_a_role_billed_as_another_model_changes_that_role_s_dollars_alone():
    bench = load_benchmark()
    play, records = bench.load(bench.PLAYS / "desktop-preferences-stateact.json")
    sent = bench.requests_for(records, "recorded", play)
    sonnet = bench.price(sent)
    cheaper = bench.price(sent, billed_as={"gate": "claude-haiku-4"})
    assert cheaper["gate"] == pytest.approx(sonnet["gate"] / 3)  # $1/$5 against $3/$15, same tokens
    assert {role: cheaper[role] for role in ("main", "gui")} == {
        role: sonnet[role] for role in ("main", "gui")
    }
