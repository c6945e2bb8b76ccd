"""The relay-backed OpenAI-compatible endpoint, driven by the real `openai` SDK: requests become relay
files (text, JSON, PNG images), the reply files come back as completions with tool calls or plain text,
a retried request is asked once, and a request it cannot relay is a 400."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from PIL import Image

from stateact.kernel import settings
from stateact.kernel.messages import Message, TextBlock
from stateact.kernel.models import create_model
from stateact.kernel.models.base import ModelRequest
from stateact.kernel.models.relay import pending_stem, reply_path, write_atomic
from tests.support.relay_endpoint import RelayEndpoint, serve
from tests.support.tool_calls import Answer
from tests.test_providers_wire import make_loop

POLL_S = 0.05
WAIT_S = 60.0


@pytest.fixture(autouse=True)
def fast_relay(monkeypatch):
    monkeypatch.setattr(settings, "RELAY_POLL_S", POLL_S)


@pytest.fixture
def endpoint(tmp_path) -> Iterator[tuple[str, Path, RelayEndpoint]]:
    """(base URL, relay folder, the endpoint) of a running endpoint."""
    folder = tmp_path / "relay"
    relay = RelayEndpoint(folder, "gui")
    server = serve(relay)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_S}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", folder, relay
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def answer(folder: Path, reply: str) -> tuple[str, str]:
    """Wait for the pending request, reply to it in the text form; returns (stem, request text)."""
    deadline = time.monotonic() + WAIT_S
    while (stem := pending_stem(folder)) is None or reply_path(folder, stem, "txt").exists():
        assert time.monotonic() < deadline, "no request came"
        time.sleep(POLL_S)
    text = (folder / f"{stem}.request.txt").read_text(encoding="utf-8")
    write_atomic(reply_path(folder, stem, "txt"), reply)
    return stem, text


class Player(threading.Thread):
    def __init__(self, folder: Path, replies: list[str]) -> None:
        super().__init__(daemon=True)
        self.folder, self.replies, self.seen = folder, replies, []

    def run(self) -> None:
        self.seen = [answer(self.folder, reply) for reply in self.replies]


def test_a_loop_on_the_sdk_is_played_through_relay_files(endpoint, run_log):
    base_url, folder, relay = endpoint
    player = Player(folder, ["I will look first.\nsnapshot:\necho: hello", 'finish: {"answer": "ok"}'])
    player.start()
    outcome = make_loop(create_model(f"openai:player@{base_url}", "gui"), run_log).run("Look, echo, finish.")
    player.join(timeout=WAIT_S)
    assert outcome.status == "finished" and outcome.ending == Answer("ok")
    (first, first_text), (second, second_text) = player.seen
    assert (first, second) == ("0001-gui", "0002-gui")
    assert "Look, echo, finish." in first_text and "- echo: Repeat the text back." in first_text
    assert "[result of echo]\necho: hello" in second_text
    assert "saved as 0002-gui.image-1.png" in second_text
    with Image.open(folder / "0002-gui.image-1.png") as image:
        assert image.size == (8, 6)
    assert '"tool_call_id"' not in (folder / "0002-gui.request.json").read_text()  # the harness's own form


def test_a_native_text_format_gets_the_whole_reply_as_text(endpoint):
    base_url, folder, relay = endpoint
    reply = "Thought: The OK button closes it.\nAction: click(start_box='(120,240)')"
    player = Player(folder, [reply])
    player.start()
    model = create_model(f"openai:player@{base_url}", "gui")
    response = model.complete(ModelRequest(system="s", messages=[Message.user_text("go")], tools=[]))
    player.join(timeout=WAIT_S)
    assert response.content == [TextBlock(text=reply)]
    assert "==== Tools ====\n(none)" in player.seen[0][1]


def test_a_request_sent_again_while_waiting_is_answered_once(endpoint):
    base_url, folder, relay = endpoint
    client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
    body = {"model": "player", "messages": [{"role": "user", "content": "same"}], "max_tokens": 100}
    results: list[str] = []

    def ask() -> None:
        results.append(client.chat.completions.create(**body).choices[0].message.content)

    asks = [threading.Thread(target=ask) for _ in range(2)]
    for thread in asks:
        thread.start()
    deadline = time.monotonic() + WAIT_S
    while relay.waiting() != [2]:  # both requests are in, waiting for one reply
        assert time.monotonic() < deadline, f"waiting: {relay.waiting()}"
        time.sleep(POLL_S)
    answer(folder, "one answer")
    for thread in asks:
        thread.join(timeout=WAIT_S)
    assert results == ["one answer", "one answer"]
    assert sorted(p.name for p in folder.glob("*.request.json")) == ["0001-gui.request.json"]


def test_a_request_it_cannot_relay_is_a_400(endpoint):
    base_url, _, _ = endpoint
    client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError, match="unknown role 'robot'"):
        client.chat.completions.create(model="player", messages=[{"role": "robot", "content": "hi"}])
    request = urllib.request.Request(f"{base_url}/embeddings", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=WAIT_S)
    assert error.value.code == 404
