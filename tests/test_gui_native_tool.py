"""The computer tool on the Anthropic wire: native computer-use tool for models that have one, else a function."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from stateact.kernel import settings
from stateact.kernel.messages import Message
from stateact.kernel.models import parse_spec
from stateact.kernel.models.anthropic_provider import AnthropicProvider, to_wire
from stateact.kernel.models.base import ModelRequest
from stateact.kernel.models.catalog import CATALOG, lookup
from stateact.subagents.endings import DoneTool
from stateact.subagents.gui_actions import ComputerAction
from stateact.subagents.gui_tools import SCREEN_WORDS, ComputerTool
from stateact.subagents.scaler import Scaler
from stateact.subagents.screen import Screen


def request() -> ModelRequest:
    tools = [ComputerTool(Screen(None, Scaler.for_screen((1920, 1080)))), DoneTool(SCREEN_WORDS)]
    return ModelRequest(system="s", messages=[Message.user_text("go")], tools=[t.spec() for t in tools])


@pytest.mark.parametrize(
    ("model", "tool_type", "beta"),
    [
        ("claude-opus-4-5-20251101", "computer_20251124", "computer-use-2025-11-24"),
        ("claude-sonnet-4-5", "computer_20250124", "computer-use-2025-01-24"),
        ("claude-sonnet-4-20250514", "computer_20250124", "computer-use-2025-01-24"),
    ],
)
def test_models_with_a_native_tool_get_it_at_the_screenshot_size(model, tool_type, beta):
    wire = to_wire(request(), model)
    computer, done = wire["tools"]
    assert computer["type"] == tool_type and computer["name"] == "computer"
    assert (computer["display_width_px"], computer["display_height_px"]) == (1366, 768)
    assert "input_schema" not in computer and done["name"] == "done" and "input_schema" in done
    assert wire["extra_headers"] == {"anthropic-beta": beta}


@pytest.mark.parametrize("model", [parse_spec(settings.DEFAULT_MODEL)[1], *CATALOG])
def test_the_wire_gives_each_model_the_native_tool_the_model_table_names(model):
    native = lookup(model).computer_tool
    wire = to_wire(request(), model)
    computer = wire["tools"][0]
    if native is None:
        assert "input_schema" in computer and "extra_headers" not in wire
    else:
        assert computer["type"] == native.type and computer.get("enable_zoom", False) == native.zoom
        assert wire["extra_headers"] == {"anthropic-beta": native.beta}


def test_the_default_model_has_a_native_computer_tool():
    provider, model, _ = parse_spec(settings.DEFAULT_MODEL)
    assert provider == "anthropic" and lookup(model).computer_tool is not None


def test_other_models_get_the_function_tool():
    wire = to_wire(request(), "claude-3-5-haiku-latest")
    assert wire["tools"][0]["input_schema"]["properties"]["action"]["enum"][0] == "screenshot"
    assert "extra_headers" not in wire
    assert "extra_headers" not in to_wire(request())


class FakeMessagesApi(BaseHTTPRequestHandler):
    """Answers every Messages call with one native computer action; remembers what it received."""

    received: list[tuple[dict, dict]] = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeMessagesApi.received.append((dict(self.headers), body))
        reply = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "computer",
                    "input": {"action": "left_click", "coordinate": [683, 384], "text": "shift"},
                }
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        payload = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        return None


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the SDK warns about dated model names
def test_native_round_trip_through_the_anthropic_sdk():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeMessagesApi)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        provider = AnthropicProvider(
            "claude-opus-4-5-20251101", f"http://127.0.0.1:{server.server_port}", "test-key"
        )
        response = provider.complete(request())
    finally:
        server.shutdown()
        server.server_close()
    headers, body = FakeMessagesApi.received[-1]
    assert headers["anthropic-beta"] == "computer-use-2025-11-24"
    assert body["tools"][0]["type"] == "computer_20251124" and body["tools"][0]["enable_zoom"] is True
    call = response.tool_uses()[0]
    action = ComputerAction.model_validate(call.input)
    assert (action.action, action.coordinate, action.text) == ("left_click", [683, 384], "shift")
