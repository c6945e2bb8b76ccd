"""The agent loop with the scripted provider and small real tools."""

from __future__ import annotations

import time

import pytest
from pydantic import BaseModel, Field

from stateact.kernel import settings
from stateact.kernel.context.manager import PassThrough
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec, ReplyNudge
from stateact.kernel.messages import Message, TextBlock, ToolResultBlock
from stateact.kernel.meter import Meter
from stateact.kernel.models.base import ContextLengthError, ModelRequest, ModelResponse
from stateact.kernel.models.scripted import ScriptedProvider
from stateact.kernel.runlog import RunLog, load_message
from stateact.kernel.tools.base import Tool, ToolResult
from tests.support.run_events import logged_events
from tests.support.tool_calls import Answer, call

UNLIMITED = Budget(max_turns=50, max_usd=None, max_seconds=None)


class Add(Tool):
    name = "add"
    description = "Add two integers."

    class Input(BaseModel):
        a: int
        b: int = Field(ge=0)

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text=str(params.a + params.b))


class Divide(Tool):
    name = "divide"
    description = "Divide a by b (a bug: no check for zero)."

    class Input(BaseModel):
        a: float
        b: float

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text=str(params.a / params.b))


class Wait(Tool):
    name = "wait"
    description = "Wait a little."

    class Input(BaseModel):
        seconds: float

    def run(self, params: Input) -> ToolResult:
        time.sleep(params.seconds)
        return ToolResult(text="waited")


class Interrupt(Tool):
    name = "interrupt"
    description = "Behave like a user pressing Ctrl-C."

    class Input(BaseModel):
        pass

    def run(self, params: Input) -> ToolResult:
        raise KeyboardInterrupt


class Finish(Tool):
    name = "finish"
    description = "End the task."

    class Input(BaseModel):
        answer: str

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text=params.answer, terminal=True, ending=Answer(params.answer))


def turn(*calls: dict, text: str = "", expect: dict | list | None = None) -> dict:
    """A scripted turn; `expect` states what the previous turn's results must show."""
    return {"text": text, "tool_calls": list(calls), **({"expect": expect} if expect is not None else {})}


ERROR = {"is_error": True}


def make_loop(
    run_log: RunLog,
    turns: list[dict],
    *,
    name: str = "scripted",
    tools: list[Tool] | None = None,
    meter: Meter | None = None,
    **spec,
) -> AgentLoop:
    tools = tools or [Add(), Divide(), Wait(), Interrupt(), Finish()]
    return AgentLoop(
        LoopSpec("main", tools, "Test agent.", spec.pop("budget", UNLIMITED), **spec),
        model=ScriptedProvider(turns, name=name),
        log=run_log,
        meter=meter or Meter(),
    )


def last_results(loop: AgentLoop) -> list[ToolResultBlock]:
    return loop.messages[-1].tool_results()


def sent_results(loop: AgentLoop, request: int) -> list[ToolResultBlock]:
    """The tool results at the end of the `request`-th request the model received."""
    return loop.model.requests[request].messages[-1].tool_results()


def test_malformed_arguments_come_back_as_the_validation_error(run_log):
    loop = make_loop(
        run_log, [turn(call("add", a="seven", b=-1)), turn(call("finish", answer="gave up"), expect=ERROR)]
    )

    outcome = loop.run("Add.")

    assert outcome.status == "finished"
    (result,) = sent_results(loop, 1)
    assert result.is_error
    assert result.text() == (
        "Invalid arguments for `add`: a: Input should be a valid integer, unable to parse string as an integer; "
        "b: Input should be greater than or equal to 0"
    )


def test_unknown_tool_lists_the_available_ones(run_log):
    loop = make_loop(run_log, [turn(call("multiply", a=1)), turn(call("finish", answer="x"), expect=ERROR)])

    loop.run("Multiply.")

    (result,) = sent_results(loop, 1)
    assert result.is_error
    assert result.text() == "Unknown tool `multiply`. Available tools: add, divide, finish, interrupt, wait."


def test_several_calls_in_one_turn_are_answered_in_order_in_one_message(run_log):
    loop = make_loop(
        run_log,
        [
            turn(call("add", a=1, b=2), call("add", a=3, b=4), call("add", a=5, b=6)),
            turn(call("finish", answer="ok")),
        ],
    )

    loop.run("Add thrice.")

    calls = loop.messages[1].tool_uses()
    results = loop.messages[2].tool_results()
    assert [r.tool_use_id for r in results] == [c.id for c in calls]
    assert [r.text() for r in results] == ["3", "7", "11"]
    assert [e.text for e in logged_events(run_log.events_path, "tool_result")][:3] == ["3", "7", "11"]


def test_terminal_result_ends_the_loop_and_later_calls_are_not_run(run_log):
    loop = make_loop(run_log, [turn(call("finish", answer="42"), call("add", a=1, b=1))])

    outcome = loop.run("Answer.")

    assert (outcome.status, outcome.text, outcome.turns, outcome.ending) == (
        "finished",
        "42",
        1,
        Answer("42"),
    )
    finish, skipped = last_results(loop)
    assert not finish.is_error and finish.text() == "42"
    assert skipped.is_error and "Not run" in skipped.text()
    assert [e.name for e in logged_events(run_log.events_path, "tool_call")] == ["finish"]
    assert loop.model.remaining == 0


def test_a_tool_that_raises_becomes_an_error_result_and_a_crash_event(run_log):
    loop = make_loop(
        run_log, [turn(call("divide", a=1, b=0)), turn(call("finish", answer="no"), expect=ERROR)]
    )

    outcome = loop.run("Divide by zero.")

    assert outcome.status == "finished"
    (result,) = sent_results(loop, 1)
    assert result.is_error and result.text() == "`divide` failed: ZeroDivisionError: float division by zero"
    (crash,) = logged_events(run_log.events_path, "tool_crash")
    assert "ZeroDivisionError" in crash.traceback and crash.id == result.tool_use_id


def test_turn_budget_stops_the_loop(run_log):
    loop = make_loop(run_log, [turn(call("add", a=i, b=1)) for i in range(5)], budget=Budget(max_turns=2))

    outcome = loop.run("Keep adding.")

    assert (outcome.status, outcome.turns) == ("budget", 2)
    assert outcome.text == "turn budget spent (2 of 2)"
    assert loop.model.remaining == 3
    assert logged_events(run_log.events_path)[-1].kind == "loop_end"


def test_dollar_budget_stops_the_loop_with_a_priced_model(run_log):
    meter = Meter()
    loop = make_loop(
        run_log,
        [turn(call("add", a=1, b=1)), turn(call("add", a=2, b=2))],
        name="claude-opus-4-1",
        meter=meter,
        budget=Budget(max_turns=10, max_usd=0.000001, max_seconds=None),
    )

    outcome = loop.run("Spend.")

    assert (outcome.status, outcome.turns) == ("budget", 1)
    assert outcome.text.startswith("dollar budget spent")
    assert meter.total_usd > 0.000001
    assert logged_events(run_log.events_path, "response")[0].usd > 0


def test_time_budget_stops_the_loop(run_log):
    loop = make_loop(
        run_log,
        [turn(call("wait", seconds=0.5)), turn(call("finish", answer="late"))],
        budget=Budget(max_turns=10, max_usd=None, max_seconds=0.4),
    )

    outcome = loop.run("Wait.")

    assert (outcome.status, outcome.turns) == ("budget", 1)
    assert outcome.text.startswith("time budget spent")


def test_text_reply_ends_the_loop_unless_nudged(run_log):
    replied = make_loop(run_log, [{"text": "All done, I think."}]).run("Go.")
    assert (replied.status, replied.text) == ("replied", "All done, I think.")


def test_nudges_run_out_after_the_configured_number(run_log):
    replies = [{"text": f"reply {i}"} for i in range(settings.TEXT_REPLY_NUDGES + 1)]
    loop = make_loop(run_log, replies, nudge=ReplyNudge())

    outcome = loop.run("Go.")

    assert (outcome.status, outcome.text) == ("replied", f"reply {settings.TEXT_REPLY_NUDGES}")
    nudges = [m for m in loop.messages if m.role == "user" and "without calling a tool" in m.text()]
    assert len(nudges) == settings.TEXT_REPLY_NUDGES


def test_exhausted_script_ends_with_an_error_outcome(run_log):
    outcome = make_loop(run_log, [turn(call("add", a=1, b=1))]).run("Go.")

    assert outcome.status == "error"
    assert "script exhausted after 1 turns" in outcome.text
    assert logged_events(run_log.events_path)[-1].status == "error"


def test_keyboard_interrupt_is_logged_reraised_and_leaves_a_resumable_history(run_log):
    loop = make_loop(
        run_log,
        [
            turn(call("add", a=1, b=1), call("interrupt"), call("add", a=2, b=2)),
            turn(call("finish", answer="back"), expect=[{"contains": "2"}, ERROR, ERROR]),
        ],
    )

    with pytest.raises(KeyboardInterrupt):
        loop.run("Go.")

    assert logged_events(run_log.events_path)[-1].kind == "interrupted"
    done, interrupted, never_run = last_results(loop)
    assert (done.text(), done.is_error) == ("2", False)
    assert interrupted.is_error and never_run.is_error and "interrupted" in never_run.text()
    outcome = loop.resume()
    assert (outcome.status, outcome.text) == ("finished", "back")


def test_events_hold_one_message_per_history_message_and_rebuild_it(run_log):
    loop = make_loop(run_log, [turn(call("add", a=1, b=2), text="Adding."), turn(call("finish", answer="3"))])

    loop.run([TextBlock(text="Add 1 and 2.")])

    records = [e.message for e in logged_events(run_log.events_path, "message")]
    assert len(records) == len(loop.messages) == 5
    assert [load_message(r, run_log.run_dir) for r in records] == loop.messages
    seqs = [e.seq for e in logged_events(run_log.events_path)]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_injections_reach_the_request_but_not_the_history(run_log):
    plan = ["- [ ] add numbers"]
    loop = make_loop(
        run_log,
        [turn(call("add", a=1, b=1)), turn(call("finish", answer="2"))],
        injections=[lambda: plan[0], lambda: None],
    )

    loop.run("Go.")

    first = loop.model.requests[0]
    assert first.messages[-1].content[-1] == TextBlock(text="- [ ] add numbers")
    assert first.injected_blocks == 1
    assert all("add numbers" not in m.text() for m in loop.messages)


class DropOldest(PassThrough):
    """A context manager that recovers from an overflow by dropping the first exchange."""

    def __init__(self) -> None:
        self.overflows = 0

    def on_overflow(self, loop: AgentLoop, maximum: int | None = None) -> bool:
        self.overflows += 1
        loop.messages[:] = [Message.user_text("(earlier work summarised)"), *loop.messages[3:]]
        return True


class OverflowOnce(ScriptedProvider):
    """Refuses the first request as too long, then plays its script."""

    def complete(self, request: ModelRequest) -> ModelResponse:
        if not getattr(self, "refused", False) and len(request.messages) > 2:
            self.refused = True
            raise ContextLengthError("prompt is too long: 300000 tokens > 200000 maximum")
        return super().complete(request)


def test_context_overflow_is_handed_to_the_context_manager(run_log):
    context = DropOldest()
    model = OverflowOnce([turn(call("add", a=1, b=1)), turn(call("finish", answer="fits"))])
    loop = AgentLoop(
        LoopSpec(scope="main", tools=[Add(), Finish()], system_prompt="s", budget=UNLIMITED),
        model=model,
        log=run_log,
        meter=Meter(),
        context=context,
    )

    outcome = loop.run("Go.")

    assert (outcome.status, context.overflows) == ("finished", 1)
    assert model.requests[-1].messages[0].text() == "(earlier work summarised)"
    (overflow,) = logged_events(run_log.events_path, "context_overflow")
    assert overflow.maximum == 200_000, "the window the provider stated is in the log"


class AlwaysTooLong(ScriptedProvider):
    def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        raise ContextLengthError("prompt is too long: 300000 tokens > 200000 maximum")


def test_overflow_recoveries_are_bounded(run_log):
    context = DropOldest()
    model = AlwaysTooLong([])
    loop = AgentLoop(
        LoopSpec(scope="main", tools=[Add()], system_prompt="s", budget=UNLIMITED),
        model=model,
        log=run_log,
        meter=Meter(),
        context=context,
    )
    loop.messages = [Message.user_text(f"old {i}") for i in range(3)]  # history from an earlier run

    outcome = loop.resume()

    assert outcome.status == "error"
    assert context.overflows == settings.CONTEXT_OVERFLOW_RECOVERIES
    assert len(model.requests) == settings.CONTEXT_OVERFLOW_RECOVERIES + 1


def test_context_overflow_without_recovery_ends_with_an_error(run_log):
    model = OverflowOnce([turn(call("add", a=1, b=1)), turn(call("finish", answer="never"))])
    loop = AgentLoop(
        LoopSpec(scope="main", tools=[Add(), Finish()], system_prompt="s", budget=UNLIMITED),
        model=model,
        log=run_log,
        meter=Meter(),
    )

    outcome = loop.run("Go.")

    assert outcome.status == "error" and "prompt is too long" in outcome.text
    assert [e.error for e in logged_events(run_log.events_path, "error")] == ["ContextLengthError"]


class Submit(Finish):
    name = "submit"
    description = "End the task: the work is done."
    reports_success = True


class Claim(Tool):
    name = "claim"
    description = "Claim a step done; its check may refute it."

    class Input(BaseModel):
        holds: bool

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text="verified" if params.holds else "NOT verified", setback=not params.holds)


@pytest.mark.parametrize(
    ("first", "why"),
    [
        (call("divide", a=1, b=0), "call 1 of this turn (`divide`) failed"),
        (call("claim", holds=False), "call 1 of this turn (`claim`) found work unfinished"),
    ],
)
def test_a_call_that_reports_success_waits_for_a_failed_call_of_its_turn_to_be_read(run_log, first, why):
    script = [
        turn(first, call("submit", answer="done")),
        turn(call("claim", holds=True), call("submit", answer="done"), expect=[{"is_error": None}, ERROR]),
    ]
    loop = make_loop(run_log, script, tools=[Divide(), Claim(), Submit()])

    outcome = loop.run("Work, then submit.")

    assert outcome.status == "finished" and loop.turns == 2
    refused = sent_results(loop, 1)[1]
    assert refused.text() == f"`submit` was not run: {why}. Read its result, then call again."
    assert [e.name for e in logged_events(run_log.events_path, "tool_call")] == [
        first["name"],
        "claim",
        "submit",
    ]


def test_a_call_that_ends_without_reporting_success_runs_after_a_failed_one(run_log):
    loop = make_loop(run_log, [turn(call("divide", a=1, b=0), call("finish", answer="gave up"))])

    outcome = loop.run("Divide.")

    assert outcome.status == "finished" and outcome.ending == Answer("gave up")
