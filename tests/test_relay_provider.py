"""The relay provider: a real run whose main and gate models are played by this test through files,
the request files' content, reply parsing and rejection, images, the timeout, and `stateact relay`."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.app.config import RunConfig
from stateact.app.run import execute
from stateact.kernel import settings
from stateact.kernel.events import read_events
from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock
from stateact.kernel.models import create_model
from stateact.kernel.models.base import ModelRequest, ModelResponse, ProviderError
from stateact.kernel.models.relay import RelayProvider, error_path, pending_stem, rejected_count, reply_path
from stateact.kernel.models.relay_reply import ReplyError, parse_reply
from stateact.kernel.runtime import RoleModels
from stateact.kernel.tools.finish import FinishTool

REPO = Path(__file__).resolve().parents[1]
TASK = "Write the word relay-ok into ~/out/result.txt."
POLL_S = 0.05
TIMEOUT_S = 120.0
"""Ends a run whose player failed, so the test reports the player's error instead of hanging."""


@pytest.fixture(autouse=True)
def fast_relay(monkeypatch):
    monkeypatch.setattr(settings, "RELAY_POLL_S", POLL_S)
    monkeypatch.setattr(settings, "RELAY_TIMEOUT_S", TIMEOUT_S)


@dataclass
class Step:
    """One reply: to a request of `scope`, after `check(stem, request_text)`; `rejected` expects an error."""

    scope: str
    kind: str
    reply: str
    check: Callable[[str, str], None] = lambda stem, text: None
    rejected: str = ""


class Player(threading.Thread):
    """Plays the model from a thread: waits for each pending request and writes the step's reply."""

    def __init__(self, directory: Path, steps: list[Step]) -> None:
        super().__init__(daemon=True)
        self.directory = directory
        self.steps = steps
        self.stems: list[str] = []
        self.error: BaseException | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        answered: tuple[str, int] | None = None
        try:
            for step in self.steps:
                stem = self._next(answered)
                assert stem.endswith(f"-{step.scope}"), (stem, step.scope)
                step.check(stem, (self.directory / f"{stem}.request.txt").read_text(encoding="utf-8"))
                before = rejected_count(self.directory, stem)
                reply_path(self.directory, stem, step.kind).write_text(step.reply, encoding="utf-8")
                self.stems.append(stem)
                answered = (stem, before)
                if step.rejected:
                    self._next(answered)  # the same stem, once the reply was rejected
                    assert rejected_count(self.directory, stem) == before + 1
                    assert step.rejected in error_path(self.directory, stem).read_text(encoding="utf-8")
                    assert not reply_path(self.directory, stem, step.kind).exists()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _next(self, answered: tuple[str, int] | None) -> str:
        while not self.stop.is_set():
            stem = pending_stem(self.directory)
            if stem is not None and (stem, rejected_count(self.directory, stem)) != answered:
                return stem
            time.sleep(POLL_S)
        raise AssertionError("the run ended before the next request")


def check_first_main(stem: str, text: str) -> None:
    assert stem == "0001-main"
    assert "==== System prompt ====" in text and "==== Tools ====" in text
    assert "- bash:" in text and f"- finish: {FinishTool.description}" in text  # whole descriptions
    finish_schema = next(
        line for line in text.splitlines() if line.startswith("    input schema: {") and "infeasible" in line
    )
    assert '"summary": {' in finish_schema  # the schema the model sees, nested shapes included
    assert TASK in text


def check_second_main(stem: str, text: str) -> None:
    assert stem == "0002-main"
    assert "System prompt: unchanged (see 0001-main.request.txt)" in text
    assert "Tools: unchanged" in text and "==== Tools" not in text
    assert "==== New messages (since 0001-main) ====" in text and "== 1. user" not in text
    assert "== 2. assistant ==\nI will write the file." in text
    assert "[result of bash]" in text and "wrote-42" in text  # the command ran; its output came back


def check_third_main(stem: str, text: str) -> None:
    assert stem == "0003-main"
    assert "System prompt: unchanged (see 0001-main.request.txt)" in text  # where it was last shown
    assert "bash:\ncd ~/out\nwc -c < result.txt\n---" in text  # the multi-line call, shown as sent
    assert "[result of bash]\n9" in text


def check_first_gate(stem: str, text: str) -> None:
    assert stem == "0004-gate-1"
    assert text.startswith("# 0004-gate-1: a request for scope gate-1,")  # named as its files are
    assert "==== System prompt ====" in text and "- verdict:" in text
    assert TASK in text


def check_second_gate(stem: str, text: str) -> None:
    assert "[result of bash]\nrelay-ok" in text


@pytest.mark.slow
def test_a_run_played_through_the_relay_finishes_with_its_deliverable(tmp_path):
    relay = tmp_path / "relay"
    home = tmp_path / "home"
    finish = [{"type": "text", "text": "Done; finishing."}]
    finish.append(
        {"type": "tool_use", "name": "finish", "input": {"summary": "~/out/result.txt holds relay-ok"}}
    )
    verdict = {
        "verdict": "PASS",
        "summary": "The file holds the word.",
        "checklist": [
            {"requirement": "~/out/result.txt holds relay-ok", "result": "pass", "evidence": "cat"}
        ],
    }
    player = Player(
        relay,
        [
            Step(
                "main",
                "txt",
                "I will write the file.\nbash: mkdir -p ~/out && echo relay-ok > ~/out/result.txt && echo wrote-$((6*7))",
                check_first_main,
            ),
            Step(
                "main",
                "json",
                json.dumps([{"type": "tool_use", "name": "delete_everything", "input": {}}]),
                check_second_main,
                rejected="unknown tool 'delete_everything'",
            ),
            Step("main", "txt", 'finish: {"summary": ', rejected="the input of `finish` is not valid JSON"),
            Step("main", "txt", "Now the size.\nbash:\ncd ~/out\nwc -c < result.txt\n---\n"),
            Step("main", "json", json.dumps(finish), check_third_main),
            Step("gate-1", "txt", "bash: cat ~/out/result.txt", check_first_gate),
            Step(
                "gate-1",
                "json",
                json.dumps({"text": "It passes.", "tool_calls": [{"name": "verdict", "input": verdict}]}),
                check_second_gate,
            ),
        ],
    )
    config = RunConfig(
        instruction=TASK,
        models=RoleModels(main=f"relay:{relay}"),
        workdir=home,
        display=False,
        runs_root=tmp_path / "runs",
    )
    player.start()
    try:
        result = execute(config)
    finally:
        player.stop.set()
        player.join(timeout=10)
    if player.error is not None:
        raise player.error
    assert result.status == "finished", result.text
    assert result.gate_passed is True and result.usd == 0
    assert (home / "out" / "result.txt").read_text() == "relay-ok\n"
    assert player.stems == ["0001-main", "0002-main", "0002-main", "0002-main", "0003-main"] + [
        "0004-gate-1",
        "0005-gate-1",
    ]
    assert pending_stem(relay) is None
    assert (relay / "0002-main.reply-rejected-1.json").exists()
    assert (relay / "0002-main.reply-rejected-2.txt").read_text() == 'finish: {"summary": '

    request = json.loads((relay / "0003-main.request.json").read_text())
    assert request["scope"] == "main" and request["role"] == "main"
    assert {tool["name"] for tool in request["tools"]} >= {"bash", "finish"}
    assert "properties" in next(t for t in request["tools"] if t["name"] == "bash")["input_schema"]
    opening, instruction = (block["text"] for block in request["messages"][0]["content"])
    assert opening.startswith("The home folder is `") and instruction.startswith(
        TASK
    )  # task-specific, after the cached prefix

    events = list(read_events(Path(result.run_dir) / "events.jsonl"))
    calls = [(e.scope, e.id, e.name) for e in events if e.kind == "tool_call"]
    assert calls == [
        ("main", "toolu_r0001_0", "bash"),
        ("main", "toolu_r0002_0", "bash"),
        ("main", "toolu_r0003_0", "finish"),
        ("gate#1", "toolu_r0004_0", "bash"),
        ("gate#1", "toolu_r0005_0", "verdict"),
    ]
    responses = [e for e in events if e.kind == "response"]
    assert all(e.usage.input_tokens > 0 and e.usd == 0 for e in responses)


BASH = ToolSpec(
    name="bash",
    description="Run a command in bash.\nDetails nobody needs in a list.",
    input_schema={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)


def _jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "navy").save(buffer, format="JPEG")
    return buffer.getvalue()


def _complete_in_thread(provider: RelayProvider, request: ModelRequest) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def call() -> None:
        try:
            out["response"] = provider.complete(request)
        except ProviderError as exc:
            out["error"] = exc

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    return thread, out


def _wait_pending(directory: Path, stem: str) -> None:
    while pending_stem(directory) != stem:
        time.sleep(POLL_S)


def test_images_are_saved_as_png_and_noted_in_the_text(tmp_path):
    provider = create_model(f"relay:{tmp_path}", "gui")
    screenshot = ImageBlock.from_bytes(_jpeg(64, 48), media_type="image/jpeg")
    request = ModelRequest(
        system="Operate the screen.",
        messages=[Message(role="user", content=[TextBlock(text="Click OK."), screenshot])],
        tools=[BASH],
        scope="gui#2",
    )
    thread, out = _complete_in_thread(provider, request)
    _wait_pending(tmp_path, "0001-gui-2")
    text = (tmp_path / "0001-gui-2.request.txt").read_text()
    assert "[image: 64x48, saved as 0001-gui-2.image-1.png]" in text
    assert f"- bash: {BASH.description}\n    input schema: {json.dumps(BASH.input_schema)}\n" in text
    with Image.open(tmp_path / "0001-gui-2.image-1.png") as saved:
        assert (saved.format, saved.size) == ("PNG", (64, 48))
    reply_path(tmp_path, "0001-gui-2", "txt").write_text("I see the dialog.")
    thread.join(timeout=30)
    response: ModelResponse = out["response"]
    assert response.message().text() == "I see the dialog." and response.stop_reason == "end_turn"


def test_no_reply_within_the_timeout_is_a_provider_error(tmp_path):
    provider = RelayProvider(tmp_path, timeout_s=0.2)
    request = ModelRequest(system="s", messages=[Message.user_text("hello")], tools=[BASH])
    with pytest.raises(ProviderError, match=r"no reply to 0001-main .* within 0.2s"):
        provider.complete(request)
    assert pending_stem(tmp_path) is None
    assert (tmp_path / "0001-main.request.txt").exists()


def _after(request: ModelRequest, response: ModelResponse, output: str) -> ModelRequest:
    """The next request of a conversation: the reply, then the result of its one call."""
    result = ToolResultBlock(tool_use_id=response.tool_uses()[0].id, content=[TextBlock(text=output)])
    messages = [*request.messages, response.message(), Message(role="user", content=[result])]
    return ModelRequest(system=request.system, messages=messages, tools=request.tools, scope=request.scope)


def test_relay_command_shows_the_tail_and_writes_the_typed_reply(tmp_path):
    provider = RelayProvider(tmp_path)
    request = ModelRequest(system="s", messages=[Message.user_text("List the home folder.")], tools=[BASH])
    thread, out = _complete_in_thread(provider, request)
    shown = CliRunner().invoke(app, ["relay", str(tmp_path), "--lines", "3"], input="bash: ls ~\n.\n")
    assert shown.exit_code == 0, shown.output
    total = len((tmp_path / "0001-main.request.txt").read_text().splitlines())
    assert f"(last 3 of {total} lines)" in shown.output
    assert "List the home folder." not in shown.output and "Reply: write 0001-main.reply.txt" in shown.output
    assert "wrote " in shown.output and (tmp_path / "0001-main.reply.txt").read_text() == "bash: ls ~\n"
    thread.join(timeout=30)
    assert out["response"].tool_uses()[0].input == {"command": "ls ~"}


def test_relay_command_watch_answers_in_turn_and_shows_rejections(tmp_path):
    provider = RelayProvider(tmp_path)
    first = ModelRequest(system="s", messages=[Message.user_text("Say hi.")], tools=[BASH])
    responses: list[ModelResponse] = []

    def model_side() -> None:
        responses.append(provider.complete(first))
        second = _after(first, responses[0], "hi")
        responses.append(provider.complete(second))
        responses.append(provider.complete(_after(second, responses[1], "ok")))

    thread = threading.Thread(target=model_side, daemon=True)
    thread.start()
    typed = '{"text": \n.\nbash: echo hi\n.\nbash: echo ok\n.\n'
    watched = CliRunner().invoke(app, ["relay", str(tmp_path), "--follow", "--lines", "0"], input=typed)
    assert watched.exit_code == 0, watched.output
    assert "your last reply was rejected" in watched.output and "not valid JSON" in watched.output
    assert "==== New messages (since 0002-main) ====" in watched.output  # the third request was shown
    assert watched.output.rstrip().endswith("no reply written")  # the input ended there
    reply_path(tmp_path, "0003-main", "txt").write_text("All done.")
    thread.join(timeout=30)
    assert [r.tool_uses()[0].input["command"] for r in responses[:2]] == ["echo hi", "echo ok"]
    assert responses[2].message().text() == "All done."
    assert (tmp_path / "0001-main.reply-rejected-1.json").read_text() == '{"text": \n'


SCREENSHOT = ToolSpec(
    name="screenshot", description="Look.", input_schema={"type": "object", "properties": {}}
)


def object_tool(name: str, properties: dict, required: list[str]) -> ToolSpec:
    """A tool whose input is an object of `properties`."""
    schema = {"type": "object", "properties": properties, "required": required}
    return ToolSpec(name=name, description=f"The {name} tool.", input_schema=schema)


EDIT = object_tool("edit", {"command": {"type": "string"}, "path": {"type": "string"}}, ["command", "path"])


@pytest.mark.parametrize(
    ("reply", "calls"),
    [
        ("bash: { echo a; } > f", [("bash", {"command": "{ echo a; } > f"})]),  # shell braces, not JSON
        (
            'edit:\n{\n "command": "view",\n "path": "/tmp"\n}\n---',
            [("edit", {"command": "view", "path": "/tmp"})],
        ),
        ("Looking first.\nscreenshot:\nbash: ls", [("screenshot", {}), ("bash", {"command": "ls"})]),
        ("bash:\ncat <<X\n a\nX\n  ---  \nnote: not a tool", [("bash", {"command": "cat <<X\n a\nX"})]),
    ],
)
def test_text_replies_become_tool_calls(reply, calls):
    content = parse_reply(reply, "txt", [BASH, SCREENSHOT, EDIT], "toolu_t")
    assert [(b.name, b.input) for b in content if isinstance(b, ToolUseBlock)] == calls
    assert [b.id for b in content if isinstance(b, ToolUseBlock)] == [
        f"toolu_t_{i}" for i in range(len(calls))
    ]


@pytest.mark.parametrize(
    ("reply", "kind", "problem"),
    [
        ("bash:\nls", "txt", "line 1: `bash:` opens a block but no line `---` closes it"),
        ("edit: view /tmp", "txt", "`edit` takes a JSON object"),
        ("\n\n", "txt", "the reply is empty"),
        (
            '{"tool_calls": [{"name": "bash", "input": "ls"}]}',
            "json",
            "the input of 'bash' must be a JSON object",
        ),
        ('[{"type": "image"}]', "json", "block 1: expected"),
    ],
)
def test_unusable_replies_say_what_to_fix(reply, kind, problem):
    with pytest.raises(ReplyError, match=re.escape(problem)):
        parse_reply(reply, kind, [BASH, SCREENSHOT, EDIT], "toolu_t")


COMPUTER = object_tool(
    "computer", {"action": {"type": "string"}, "coordinate": {"type": "array"}}, ["action"]
)


@pytest.mark.parametrize(
    ("tools", "example"),
    [
        ([BASH, EDIT], "e.g. `bash: ls ~`"),
        ([COMPUTER], 'e.g. `computer: {"action": "…"}`'),
        ([EDIT], 'e.g. `edit: {"command": "…", "path": "…"}`'),
        ([SCREENSHOT], "e.g. `screenshot: {}`"),
        ([object_tool("open", {"path": {"type": "string"}}, ["path"])], "e.g. `open: PATH`"),
        ([], "(the reply's text: this request offers no tools)"),
    ],
)
def test_the_reply_hint_shows_a_call_of_the_requests_own_tools(tmp_path, tools, example):
    provider = RelayProvider(tmp_path, timeout_s=0.2)
    with pytest.raises(ProviderError):
        provider.complete(ModelRequest(system="s", messages=[Message.user_text("Go.")], tools=tools))
    hint = (tmp_path / "0001-main.request.txt").read_text().splitlines()[-1]
    assert hint.startswith("Reply: write 0001-main.reply.txt ") and example in hint
    assert ("bash: ls ~" in hint) == (BASH in tools)


WAITING_PROVIDER = """
import sys
from stateact.kernel.messages import Message, ToolSpec
from stateact.kernel.models.base import ModelRequest
from stateact.kernel.models.relay import RelayProvider
tool = ToolSpec(name="bash", description="run", input_schema={"type": "object", "properties": {}})
RelayProvider(sys.argv[1]).complete(ModelRequest(system="s", messages=[Message.user_text("hi")], tools=[tool]))
"""


def test_pending_never_names_a_request_whose_run_is_gone(tmp_path):
    waiting = subprocess.Popen([sys.executable, "-c", WAITING_PROVIDER, str(tmp_path)], cwd=REPO)
    try:
        deadline = time.monotonic() + 60
        while pending_stem(tmp_path) is None:
            assert waiting.poll() is None and time.monotonic() < deadline, "no request was made"
            time.sleep(0.05)
        assert pending_stem(tmp_path) == "0001-main"
    finally:
        waiting.kill()
        waiting.wait()
    assert (tmp_path / "PENDING").exists()  # killed: nothing removed it
    assert pending_stem(tmp_path) is None  # `stateact relay` waits for a live run's request


@pytest.mark.slow
def test_a_relay_run_says_where_requests_appear_and_how_to_answer(tmp_path):
    relay = tmp_path / "relay"
    run = subprocess.Popen(
        [sys.executable, "-m", "stateact", "run", "x", "--model", f"relay:{relay}", "--no-display"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "80"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = run.stdout.readline()
    finally:
        run.send_signal(signal.SIGINT)
        out, _ = run.communicate(timeout=60)
    assert first == (
        f"relay: the requests of main appear in {relay} (PENDING names the one waiting); answer them "
        f"from another terminal with: stateact relay {relay} --follow\n"
    ), first + out
