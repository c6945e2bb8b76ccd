"""The Anthropic and OpenAI providers through the real SDKs, against local wire-format servers."""

from __future__ import annotations

import base64
import io
import json

import anthropic
import pytest
from PIL import Image
from pydantic import BaseModel

from stateact.kernel.loop import AgentLoop, Budget, LoopSpec, ReplyNudge
from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from stateact.kernel.meter import Meter
from stateact.kernel.models import create_model
from stateact.kernel.models.anthropic_provider import AnthropicProvider
from stateact.kernel.models.base import (
    ContextLengthError,
    ModelRequest,
    ProviderError,
    RetryableError,
    with_retries,
)
from stateact.kernel.models.catalog import lookup
from stateact.kernel.models.openai_provider import ERROR_PREFIX, OpenAIProvider, calls_from_text, to_wire
from stateact.kernel.runlog import load_message
from stateact.kernel.tools.base import Tool, ToolResult
from tests.support.run_events import logged_events
from tests.support.tool_calls import Answer
from tests.support.wire_servers import (
    AnthropicWireServer,
    anthropic_error,
    anthropic_overloaded,
    anthropic_prompt_too_long,
    anthropic_rate_limited,
    anthropic_reply,
    openai_context_exceeded,
    openai_error,
    openai_rate_limited,
    openai_reply,
)

FAST = {"backoff_base_s": 0.001}
"""Retry quickly in tests; the default backoff lives in settings."""
CLAUDE = "claude-sonnet-5-5"
GPT = "gpt-4o"


def png(color: str = "red", size: tuple[int, int] = (8, 6)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(buffer, format="JPEG")
    return buffer.getvalue()


class Echo(Tool):
    name = "echo"
    description = "Repeat the text back."

    class Input(BaseModel):
        text: str

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text=f"echo: {params.text}")


class Snapshot(Tool):
    name = "snapshot"
    description = "Return a small picture."

    class Input(BaseModel):
        pass

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text="here is the picture", images=(png("green"),))


class Finish(Tool):
    name = "finish"
    description = "End the task with an answer."

    class Input(BaseModel):
        answer: str

    def run(self, params: Input) -> ToolResult:
        return ToolResult(text=params.answer, terminal=True, ending=Answer(params.answer))


def make_loop(model, run_log, *, meter: Meter | None = None, **spec) -> AgentLoop:
    budget = spec.pop("budget", Budget(max_turns=10, max_usd=None, max_seconds=None))
    return AgentLoop(
        LoopSpec("main", [Echo(), Snapshot(), Finish()], "You are a test agent.", budget, **spec),
        model=model,
        log=run_log,
        meter=meter or Meter(),
    )


def anthropic_model(server, **options) -> AnthropicProvider:
    return AnthropicProvider(CLAUDE, server.base_url, **{**FAST, **options})


def openai_model(server, **options) -> OpenAIProvider:
    return OpenAIProvider(GPT, server.base_url, **{**FAST, **options})


def request_of(*messages: Message) -> ModelRequest:
    return ModelRequest(system="sys", messages=list(messages), tools=[Echo().spec()])


# -- Anthropic -------------------------------------------------------------------------------------------
def test_anthropic_tool_round_trip_through_the_loop(anthropic_server, run_log):
    server = anthropic_server(
        anthropic_reply("Let me echo.", [("echo", {"text": "hello"})]),
        anthropic_reply(tool_calls=[("finish", {"answer": "done"})]),
    )
    loop = make_loop(create_model(f"anthropic:{CLAUDE}@{server.base_url}"), run_log)

    outcome = loop.run("Say hello through echo.")

    assert (outcome.status, outcome.text, outcome.turns) == ("finished", "done", 2)
    assert outcome.ending == Answer("done")
    first, second = server.requests
    assert first["model"] == CLAUDE
    assert first["system"][0]["text"] == "You are a test agent."
    assert {t["name"] for t in first["tools"]} == {"echo", "snapshot", "finish"}
    assert first["tools"][0]["input_schema"]["required"] == ["text"]
    call_id = second["messages"][1]["content"][1]["id"]
    result = second["messages"][2]["content"][0]
    assert result["tool_use_id"] == call_id
    assert result["content"][0]["text"] == "echo: hello"
    assert result["is_error"] is False
    # system, last tool and the latest user turn are cache breakpoints
    assert "cache_control" in second["system"][0] and "cache_control" in second["tools"][-1]
    assert "cache_control" in second["messages"][2]["content"][-1]


def _marked(messages: list[dict]) -> list[int]:
    return [i for i, m in enumerate(messages) if any("cache_control" in b for b in m["content"])]


def test_anthropic_long_conversation_keeps_four_cache_breakpoints(anthropic_server, run_log):
    server = anthropic_server(
        *[anthropic_reply(tool_calls=[("echo", {"text": str(i)})]) for i in range(4)],
        anthropic_reply(tool_calls=[("finish", {"answer": "done"})]),
    )
    plan = "Plan: echo four times."
    loop = make_loop(anthropic_model(server), run_log, injections=[lambda: plan])

    assert loop.run("Echo four times.").status == "finished"

    last = server.requests[-1]["messages"]
    assert _marked(last) == [len(last) - 3, len(last) - 1]
    # the live plan comes last and stays out of the cached prefix
    assert last[-1]["content"][-1] == {"type": "text", "text": plan}
    assert "cache_control" in last[-1]["content"][-2]


def test_anthropic_images_in_user_message_and_tool_result(anthropic_server, run_log):
    server = anthropic_server(
        anthropic_reply(tool_calls=[("snapshot", {})]),
        anthropic_reply(tool_calls=[("finish", {"answer": "green"})]),
    )
    loop = make_loop(anthropic_model(server), run_log)
    picture = jpeg()

    outcome = loop.run([TextBlock(text="What colour?"), ImageBlock.from_bytes(picture, "image/jpeg")])

    assert outcome.status == "finished"
    task_image = server.requests[0]["messages"][0]["content"][1]
    assert task_image["source"]["media_type"] == "image/jpeg"
    assert base64.b64decode(task_image["source"]["data"]) == picture
    tool_result = server.requests[1]["messages"][2]["content"][0]
    assert [b["type"] for b in tool_result["content"]] == ["text", "image"]
    assert base64.b64decode(tool_result["content"][1]["source"]["data"]) == png("green")


def test_anthropic_usage_with_cache_tokens_is_priced_from_the_catalog(anthropic_server, run_log):
    usage = {
        "input_tokens": 1_000,
        "output_tokens": 200,
        "cache_creation_input_tokens": 3_000,
        "cache_read_input_tokens": 5_000,
    }
    server = anthropic_server(anthropic_reply("All done.", usage=usage))
    meter = Meter()
    loop = make_loop(anthropic_model(server), run_log, meter=meter)

    outcome = loop.run("Report.")

    assert (outcome.status, outcome.text) == ("replied", "All done.")
    spent = meter.by_role["main"].usage
    assert (spent.input_tokens, spent.output_tokens) == (1_000, 200)
    assert (spent.cache_write_tokens, spent.cache_read_tokens) == (3_000, 5_000)
    # claude-sonnet-5-5: $2 input, $10 output, writes at 1.25x input, reads at $0.10 (per million)
    expected = (1_000 * 2 + 200 * 10 + 3_000 * 2.5 + 5_000 * 0.1) / 1_000_000
    assert meter.total_usd == pytest.approx(expected)
    assert lookup(CLAUDE).known
    response = next(e for e in logged_events(run_log.events_path) if e.kind == "response")
    assert response.usd == pytest.approx(expected, abs=1e-6)
    assert response.usage.cache_read_tokens == 5_000


@pytest.mark.parametrize(
    ("failure", "status"), [(anthropic_overloaded, 529), (anthropic_rate_limited, 429)], ids=["529", "429"]
)
def test_anthropic_retries_a_transient_error(anthropic_server, run_log, failure, status):
    server = anthropic_server(failure(), anthropic_reply("fine now"))

    outcome = make_loop(anthropic_model(server), run_log).run("hi")

    assert (outcome.status, outcome.text) == ("replied", "fine now")
    assert len(server.requests) == 2
    assert server.requests[0] == server.requests[1]
    (retried,) = next(e for e in logged_events(run_log.events_path) if e.kind == "response").retried
    assert retried.startswith(f"anthropic {status}: ") and "(retry 1 after" in retried


def test_anthropic_prompt_too_long_is_a_context_length_error(anthropic_server):
    server = anthropic_server(anthropic_prompt_too_long(210_345, 200_000))

    with pytest.raises(
        ContextLengthError, match="prompt is too long: 210345 tokens > 200000 maximum"
    ) as error:
        anthropic_model(server).complete(request_of(Message.user_text("a long prompt")))
    assert len(server.requests) == 1, "a context error is not retried"
    assert error.value.maximum == 200_000


def test_anthropic_prompt_plus_max_tokens_over_the_limit_is_a_context_length_error(anthropic_server):
    message = (
        "input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000, "
        "decrease input length or `max_tokens` and try again"
    )
    server = anthropic_server(anthropic_error(400, "invalid_request_error", message))

    with pytest.raises(ContextLengthError, match="exceed context limit") as error:
        anthropic_model(server).complete(request_of(Message.user_text("a long prompt")))
    assert error.value.maximum == 200_000


def test_anthropic_request_too_large_is_a_context_length_error(anthropic_server):
    server = anthropic_server(
        anthropic_error(413, "request_too_large", "Request exceeds the maximum allowed size")
    )

    with pytest.raises(ContextLengthError, match="anthropic 413: Request exceeds") as error:
        anthropic_model(server).complete(request_of(Message.user_text("many screenshots")))
    assert error.value.maximum is None, "a body over the size limit states no window"


def test_anthropic_error_that_survives_retries_ends_the_loop(anthropic_server, run_log):
    server = anthropic_server(*[anthropic_overloaded() for _ in range(3)])
    loop = make_loop(anthropic_model(server, retries=2), run_log)

    outcome = loop.run("Try.")

    assert outcome.status == "error"
    assert (
        "529" in outcome.text and "Overloaded" in outcome.text and "gave up after 2 retries" in outcome.text
    )
    assert len(server.requests) == 3
    logged = logged_events(run_log.events_path)
    assert [e.seq for e in logged] == list(range(1, len(logged) + 1))
    assert logged[-1].kind == "loop_end" and logged[-1].status == "error"
    error = next(e for e in logged if e.kind == "error")
    assert error.error == "ProviderError" and "Overloaded" in error.message


def test_anthropic_final_client_error_is_not_retried(anthropic_server):
    server = anthropic_server(anthropic_error(401, "authentication_error", "invalid x-api-key"))

    with pytest.raises(ProviderError, match="anthropic 401: invalid x-api-key") as caught:
        anthropic_model(server).complete(request_of(Message.user_text("hi")))
    assert not isinstance(caught.value, RetryableError)
    assert len(server.requests) == 1


def test_anthropic_call_cut_off_by_the_output_limit_is_not_run(anthropic_server, run_log):
    server = anthropic_server(
        anthropic_reply(
            tool_calls=[("echo", {"text": "a"}), ("echo", {"text": "half of a lo"})], stop_reason="max_tokens"
        ),
        anthropic_reply(tool_calls=[("finish", {"answer": "retried"})]),
    )

    outcome = make_loop(anthropic_model(server), run_log).run("Echo.")

    assert outcome.status == "finished"
    complete, cut = server.requests[1]["messages"][2]["content"]
    assert (complete["is_error"], complete["content"][0]["text"]) == (False, "echo: a")
    assert cut["is_error"] and "output token limit" in cut["content"][0]["text"]
    assert [e.name for e in logged_events(run_log.events_path) if e.kind == "tool_cut_off"] == ["echo"]


def test_anthropic_thinking_blocks_go_back_unchanged_with_their_tool_calls(anthropic_server, run_log):
    server = anthropic_server(
        anthropic_reply("Echoing.", [("echo", {"text": "a"})], thinking="The user wants an echo."),
        anthropic_reply(tool_calls=[("echo", {"text": "b"})], thinking="Once more."),
        anthropic_reply(tool_calls=[("finish", {"answer": "ok"})]),
    )

    outcome = make_loop(anthropic_model(server), run_log).run("Echo twice.")

    assert outcome.status == "finished"
    first_reply, second_reply = server.requests[2]["messages"][1], server.requests[2]["messages"][3]
    assert [b["type"] for b in first_reply["content"]] == ["thinking", "text", "tool_use"]
    assert first_reply["content"][0]["thinking"] == "The user wants an echo."
    assert [b["type"] for b in second_reply["content"]] == ["thinking", "tool_use"]


def test_anthropic_blank_text_and_empty_system_are_not_sent(anthropic_server):
    server = anthropic_server(anthropic_reply("ok"))
    request = ModelRequest(
        system="",
        messages=[Message(role="user", content=[TextBlock(text="  "), TextBlock(text="real question")])],
        tools=[],
    )

    anthropic_model(server).complete(request)

    body = server.requests[0]
    assert "system" not in body
    assert body["messages"][0]["content"][0]["text"] == "real question"


# -- OpenAI -----------------------------------------------------------------------------------------------
def test_openai_tool_round_trip_through_the_loop(openai_server, run_log):
    server = openai_server(
        openai_reply(tool_calls=[("echo", {"text": "hi"}), ("echo", {"text": "there"})]),
        openai_reply(tool_calls=[("finish", {"answer": "said hi"})]),
    )
    loop = make_loop(create_model(f"openai:{GPT}@{server.base_url}"), run_log)

    outcome = loop.run("Echo twice.")

    assert (outcome.status, outcome.text) == ("finished", "said hi")
    second = server.requests[1]
    assert second["model"] == GPT and second["max_tokens"] > 0
    roles = [m["role"] for m in second["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool"]
    assert [m["content"] for m in second["messages"][3:]] == ["echo: hi", "echo: there"]
    assert second["tools"][0]["function"]["parameters"]["properties"]["text"]["type"] == "string"


def test_openai_images_from_tool_results_move_to_a_user_message(openai_server, run_log):
    server = openai_server(
        openai_reply(tool_calls=[("snapshot", {})]),
        openai_reply(tool_calls=[("finish", {"answer": "green"})]),
    )
    loop = make_loop(openai_model(server), run_log)

    outcome = loop.run([TextBlock(text="Look."), ImageBlock.from_bytes(png("red"))])

    assert outcome.status == "finished"
    first_user = server.requests[0]["messages"][1]["content"]
    assert (
        first_user[1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(png("red")).decode()
    )
    messages = server.requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert messages[3]["content"] == "here is the picture"
    moved = messages[4]["content"]
    assert messages[3]["tool_call_id"] in moved[0]["text"]
    assert moved[1]["image_url"]["url"].endswith(base64.b64encode(png("green")).decode())


def test_openai_cached_tokens_are_priced_as_cache_reads(openai_server, run_log):
    server = openai_server(
        openai_reply("ok", usage={"prompt_tokens": 1_000, "completion_tokens": 200}, cached_tokens=400)
    )
    meter = Meter()

    make_loop(openai_model(server), run_log, meter=meter).run("Go.")

    spent = meter.by_role["main"].usage
    assert (spent.input_tokens, spent.cache_read_tokens, spent.output_tokens) == (600, 400, 200)
    # gpt-4o: $2.5 input, cached input at half price, $10 output (per million)
    assert meter.total_usd == pytest.approx((600 * 2.5 + 400 * 1.25 + 200 * 10) / 1_000_000)


@pytest.mark.parametrize(
    "failure",
    [openai_rate_limited, lambda: openai_error(503, "The server is overloaded", "server_error")],
    ids=["429", "503"],
)
def test_openai_retries_a_transient_error(openai_server, failure):
    server = openai_server(failure(), openai_reply("recovered"))

    response = openai_model(server).complete(request_of(Message.user_text("hi")))

    assert response.message().text() == "recovered"
    assert len(server.requests) == 2


def test_openai_reply_without_choices_is_retried(openai_server):
    empty = openai_reply("unused")
    empty["choices"] = []
    server = openai_server(empty, openai_reply("second try"))

    response = openai_model(server).complete(request_of(Message.user_text("hi")))

    assert response.message().text() == "second try"
    (retried,) = response.retried
    assert retried.startswith("openai-compatible server returned no choices (retry 1 after")


def test_openai_context_length_exceeded_is_a_context_length_error(openai_server):
    server = openai_server(openai_context_exceeded(140_000, 128_000))

    with pytest.raises(ContextLengthError, match="maximum context length is 128000 tokens") as error:
        openai_model(server).complete(request_of(Message.user_text("big")))
    assert error.value.maximum == 128_000


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens "
        "(7000 in the messages, 2000 in the completion). Please reduce the length of the messages or completion.",
        "The input (9000 tokens) is longer than the model's context length (8192 tokens).",
    ],
    ids=["vllm", "sglang"],
)
def test_openai_compatible_context_errors_state_their_window(openai_server, message):
    server = openai_server(openai_error(400, message))

    with pytest.raises(ContextLengthError) as error:
        openai_model(server).complete(request_of(Message.user_text("big")))
    assert error.value.maximum == 8192


def test_openai_malformed_tool_arguments_come_back_as_an_error_result(openai_server, run_log):
    server = openai_server(
        openai_reply(tool_calls=[("echo", '{"text": "unterminated')]),
        openai_reply(tool_calls=[("finish", {"answer": "fixed"})]),
    )
    loop = make_loop(openai_model(server), run_log)

    outcome = loop.run("Echo.")

    assert outcome.status == "finished"
    sent_back = server.requests[1]["messages"]
    assert sent_back[2]["tool_calls"][0]["function"]["arguments"] == '{"text": "unterminated'
    assert sent_back[3]["role"] == "tool" and "not valid JSON" in sent_back[3]["content"]
    call = next(e for e in logged_events(run_log.events_path) if e.kind == "tool_call")
    assert call.raw_arguments == '{"text": "unterminated'
    result = next(e for e in logged_events(run_log.events_path) if e.kind == "tool_result")
    assert result.is_error is True


def test_openai_loose_servers_object_arguments_and_missing_ids_are_accepted(openai_server, run_log):
    loose = openai_reply(tool_calls=[("echo", {"text": "x"}), ("echo", "")])
    first, second = loose["choices"][0]["message"]["tool_calls"]
    first["function"]["arguments"] = {"text": "object arguments"}
    second["id"] = ""
    server = openai_server(loose, openai_reply(tool_calls=[("finish", {"answer": "ok"})]))

    outcome = make_loop(openai_model(server), run_log).run("Echo.")

    assert outcome.status == "finished"
    results = server.requests[1]["messages"][3:]
    assert results[0]["content"] == "echo: object arguments"
    assert results[1]["tool_call_id"].startswith("call_") and "text: Field required" in results[1]["content"]


def test_openai_text_reply_ends_the_loop_as_replied(openai_server, run_log):
    server = openai_server(openai_reply("I think the answer is 4."))

    outcome = make_loop(openai_model(server), run_log).run("What is 2+2?")

    assert (outcome.status, outcome.text, outcome.turns) == ("replied", "I think the answer is 4.", 1)


def test_openai_text_reply_is_nudged_when_asked(openai_server, run_log):
    server = openai_server(
        openai_reply("Thinking about it..."), openai_reply(tool_calls=[("finish", {"answer": "4"})])
    )

    outcome = make_loop(openai_model(server), run_log, nudge=ReplyNudge()).run("What is 2+2?")

    assert (outcome.status, outcome.text) == ("finished", "4")
    nudge = server.requests[1]["messages"][-1]
    assert nudge["role"] == "user" and "without calling a tool" in nudge["content"][0]["text"]


def test_openai_tool_call_written_in_text_is_recovered(openai_server, run_log):
    text = 'I will call the tool.\n```json\n{"name": "echo", "arguments": {"text": "from text"}}\n```'
    server = openai_server(openai_reply(text), openai_reply(tool_calls=[("finish", {"answer": "ok"})]))

    outcome = make_loop(openai_model(server), run_log).run("Echo.")

    assert outcome.status == "finished"
    messages = server.requests[1]["messages"]
    assert messages[2]["tool_calls"][0]["function"]["name"] == "echo"
    assert messages[2]["content"] == "I will call the tool."  # the call is sent once, as a tool call
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": messages[2]["tool_calls"][0]["id"],
        "content": "echo: from text",
    }


def test_openai_recovered_call_alone_leaves_no_text():
    calls, text = calls_from_text(
        '<tool_call>\n{"name": "echo", "arguments": {"text": "a"}}\n</tool_call>', {"echo"}
    )
    assert [c.name for c in calls] == ["echo"] and text == ""


def test_openai_tool_errors_are_marked_in_the_tool_message():
    call = ToolUseBlock(id="c1", name="echo", input={"text": "x"})
    results = [
        ToolResultBlock(tool_use_id="c1", content=[TextBlock(text="bad input")], is_error=True),
        ToolResultBlock(tool_use_id="c2", content=[TextBlock(text="fine")]),
    ]
    wire = to_wire(
        request_of(
            Message.user_text("go"),
            Message(role="assistant", content=[call]),
            Message(role="user", content=results),
        )
    )
    assert [m["content"] for m in wire["messages"][3:]] == [ERROR_PREFIX + "bad input", "fine"]


def test_openai_error_that_survives_retries_ends_the_loop(openai_server, run_log):
    server = openai_server(*[openai_error(500, "boom", "server_error") for _ in range(2)])

    outcome = make_loop(openai_model(server, retries=1), run_log).run("Try.")

    assert outcome.status == "error" and "openai 500: boom" in outcome.text
    assert logged_events(run_log.events_path)[-1].kind == "loop_end"


def test_openai_official_api_gets_max_completion_tokens():
    request = request_of(Message.user_text("hi"))
    assert "max_completion_tokens" in to_wire(request, official=True)
    assert "max_tokens" in to_wire(request) and "max_completion_tokens" not in to_wire(request)


# -- shared -----------------------------------------------------------------------------------------------
def test_logged_conversation_rebuilds_with_images(anthropic_server, run_log):
    server = anthropic_server(
        anthropic_reply(tool_calls=[("snapshot", {})]),
        anthropic_reply(tool_calls=[("finish", {"answer": "x"})]),
    )
    loop = make_loop(anthropic_model(server), run_log)
    loop.run([TextBlock(text="Look."), ImageBlock.from_bytes(jpeg(), "image/jpeg")])

    records = [e.message for e in logged_events(run_log.events_path) if e.kind == "message"]
    rebuilt = [load_message(r, run_log.run_dir) for r in records]

    assert rebuilt == loop.messages
    assert rebuilt[0].images()[0].to_bytes() == jpeg()
    assert rebuilt[0].images()[0].path.endswith(".jpg") and rebuilt[2].images()[0].path.endswith(".png")


def test_retry_honours_the_wait_the_server_asked_for():
    attempts: list[float] = []

    def flaky() -> str:
        if not attempts:
            raise RetryableError("busy", retry_after=0.05)
        return "ok"

    result = with_retries(
        flaky, retries=2, base_delay=0.001, on_retry=lambda n, exc, delay: attempts.append(delay)
    )

    assert result == "ok" and attempts[0] >= 0.05


def test_a_transient_connection_failure_is_retried_then_reported():
    provider = AnthropicProvider(CLAUDE, "http://127.0.0.1:9", retries=1, backoff_base_s=0.001)

    with pytest.raises(ProviderError, match="cannot reach the API.*gave up after 1 retries"):
        provider.complete(request_of(Message.user_text("hi")))


# -- the servers reject what the real APIs reject -----------------------------------------------------
def _raw_anthropic(server: AnthropicWireServer, **body) -> anthropic.BadRequestError:
    client = anthropic.Anthropic(api_key="k", base_url=server.base_url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=CLAUDE, max_tokens=10, **body)
    return caught.value


def _tool_use(tool_id: str) -> dict:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": tool_id, "name": "echo", "input": {}}],
    }


def _result(tool_id: str) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}, "alternate"),
        ({"messages": [{"role": "user", "content": "a"}, _tool_use("t1")]}, "without tool_result"),
        (
            {
                "messages": [
                    {"role": "user", "content": "a"},
                    _tool_use("t1"),
                    {"role": "user", "content": [_result("t2")]},
                ]
            },
            "unexpected tool_use_id found in tool_result blocks: t2",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "a"},
                    _tool_use("t1"),
                    {"role": "user", "content": [{"type": "text", "text": "b"}, _result("t1")]},
                ]
            },
            "tool_result blocks must come first",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": base64.b64encode(jpeg()).decode(),
                                },
                            }
                        ],
                    }
                ]
            },
            "appears to be a image/jpeg image",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/png", "data": "%%%"},
                            }
                        ],
                    }
                ]
            },
            "not valid base64",
        ),
        (
            {
                "system": [
                    {"type": "text", "text": f"s{i}", "cache_control": {"type": "ephemeral"}}
                    for i in range(5)
                ],
                "messages": [{"role": "user", "content": "a"}],
            },
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        ),
        (
            {
                "messages": [{"role": "user", "content": "a"}],
                "tools": [
                    {
                        "name": "bad",
                        "description": "",
                        "input_schema": {"type": "object", "properties": {"x": {"type": "nonsense"}}},
                    }
                ],
            },
            "JSON schema is invalid",
        ),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": " "}]}]}, "non-whitespace"),
        (
            {
                "messages": [
                    {"role": "user", "content": "a"},
                    _tool_use("t1"),
                    {"role": "user", "content": [_result("t1")]},
                ]
            },
            "must define tools",
        ),
    ],
    ids=[
        "roles",
        "unanswered",
        "stray-result",
        "result-order",
        "image-type",
        "image-base64",
        "cache",
        "schema",
        "blank",
        "no-tools",
    ],
)
def test_anthropic_server_rejects_invalid_requests(body, expected):
    server = AnthropicWireServer([anthropic_reply("never sent")]).start()
    try:
        error = _raw_anthropic(server, **body)
    finally:
        server.stop()
    assert expected in str(error)
    assert any(expected in p for p in server.problems)
    with pytest.raises(AssertionError, match="invalid anthropic request"):
        server.check()
    assert server.remaining == 1


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        (
            [
                {"role": "user", "content": "a"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}
                    ],
                },
            ],
            "did not have response messages: c1",
        ),
        (
            [{"role": "user", "content": "a"}, {"role": "tool", "tool_call_id": "c9", "content": "x"}],
            "must be a response",
        ),
        (
            [
                {"role": "user", "content": "a"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
                },
            ],
            "only allowed for messages with role 'user'",
        ),
        ([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "must alternate"),
    ],
    ids=["unanswered", "stray-tool", "tool-image", "alternation"],
)
def test_openai_server_rejects_invalid_requests(openai_server, messages, expected):
    import openai

    server = openai_server()
    client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=GPT, messages=messages)
    assert expected in str(caught.value)
    assert server.problems
    server.problems.clear()  # checked here; the fixture would otherwise fail the test


def test_wire_server_fails_the_test_when_a_provider_sends_an_invalid_request():
    """A request our own code builds badly is caught: here a tool result that answers nothing."""
    orphan = Message(
        role="user", content=[ToolResultBlock(tool_use_id="toolu_x", content=[TextBlock(text="r")])]
    )
    with (
        pytest.raises(AssertionError, match="unexpected tool_use_id"),
        AnthropicWireServer([]) as server,
        pytest.raises(ProviderError, match="anthropic 400"),
    ):
        anthropic_model(server).complete(request_of(orphan))


def test_recovered_text_calls_accept_tagged_and_bare_json(openai_server):
    text = '<tool_call>{"name": "echo", "arguments": "{\\"text\\": \\"a\\"}"}</tool_call> and {"name": "unknown"}'
    server = openai_server(openai_reply(text))

    response = openai_model(server).complete(request_of(Message.user_text("go")))

    calls = response.tool_uses()
    assert [(c.name, c.input) for c in calls] == [("echo", {"text": "a"})]
    assert response.message().text() == 'and {"name": "unknown"}'  # only the recovered call leaves the text
    assert isinstance(calls[0], ToolUseBlock) and calls[0].id.startswith("call_text_")
    assert json.loads(json.dumps(response.message().model_dump()))  # serialisable for the log
