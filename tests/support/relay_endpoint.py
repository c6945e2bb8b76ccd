"""An OpenAI-compatible endpoint played through relay files: a person or an agent answers as the model.

    python -m tests.support.relay_endpoint DIR --port P [--scope gui]
    stateact run "..." --gui-model openai:player@http://127.0.0.1:P/v1 --roles roles.toml

Each `POST /v1/chat/completions` becomes a relay request in DIR, exactly as `relay:DIR` writes it
(`NNNN-SCOPE.request.txt` to read, `.request.json`, images as PNG; `stateact.kernel.models.relay`), and the
reply file (`NNNN-SCOPE.reply.txt` or `.reply.json`, answerable with `stateact relay DIR --follow`)
goes back as a chat completion: its text as `content`, its calls as `tool_calls`. A request without
tools (a native text format such as UI-TARS') takes the whole reply as text. A client that times out
and sends the same request again waits for the same reply instead of asking twice.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock
from stateact.kernel.models.base import ModelRequest, ModelResponse
from stateact.kernel.models.relay import RelayProvider

CHAT_PATH = "/v1/chat/completions"
DEFAULT_OUTPUT_TOKENS = 4096
"""`max_tokens` of a request that states none (only shown to the player)."""


class BadRequest(ValueError):
    """A request this endpoint cannot relay; the message goes back in a 400 error."""


def _parts(content: Any) -> list[TextBlock | ImageBlock]:
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(text=content)] if content else []
    blocks: list[TextBlock | ImageBlock] = []
    for part in content:
        if part.get("type") == "text":
            blocks.append(TextBlock(text=part["text"]))
        elif part.get("type") == "image_url":
            url = part["image_url"]["url"]
            header, _, data = url.partition(",")
            if not header.startswith("data:") or ";base64" not in header:
                raise BadRequest("images must be base64 data URLs")
            blocks.append(ImageBlock(media_type=header[5:].split(";")[0], data=data))
        else:
            raise BadRequest(f"unknown content part type {part.get('type')!r}")
    return blocks


def _calls(message: dict) -> list[ToolUseBlock]:
    calls = []
    for call in message.get("tool_calls") or []:
        function = call["function"]
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except json.JSONDecodeError:
            calls.append(
                ToolUseBlock(id=call["id"], name=function["name"], raw_arguments=function["arguments"])
            )
            continue
        calls.append(ToolUseBlock(id=call["id"], name=function["name"], input=arguments))
    return calls


def to_request(body: dict, scope: str) -> ModelRequest:
    """A chat completions body as the harness's request (consecutive turns of one side merged)."""
    if body.get("stream"):
        raise BadRequest("streaming is not supported: send stream=false")
    if not isinstance(body.get("messages"), list):
        raise BadRequest("messages: must be a list")
    system: list[str] = []
    messages: list[Message] = []
    for message in body["messages"]:
        role = message.get("role")
        if role in ("system", "developer"):
            system.extend(b.text for b in _parts(message.get("content")) if isinstance(b, TextBlock))
            continue
        if role == "assistant":
            blocks: list = [*_parts(message.get("content")), *_calls(message)]
        elif role == "tool":
            blocks = [
                ToolResultBlock(tool_use_id=message["tool_call_id"], content=_parts(message.get("content")))
            ]
        elif role == "user":
            blocks = _parts(message.get("content"))
        else:
            raise BadRequest(f"unknown role {role!r}")
        side = "assistant" if role == "assistant" else "user"
        if messages and messages[-1].role == side:
            messages[-1] = Message(role=side, content=[*messages[-1].content, *blocks])
        else:
            messages.append(Message(role=side, content=blocks))
    tools = [
        ToolSpec(
            name=tool["function"]["name"],
            description=tool["function"].get("description", ""),
            input_schema=tool["function"].get("parameters") or {"type": "object", "properties": {}},
        )
        for tool in body.get("tools") or []
    ]
    return ModelRequest(
        system="\n\n".join(system),
        messages=messages,
        tools=tools,
        max_tokens=body.get("max_completion_tokens") or body.get("max_tokens") or DEFAULT_OUTPUT_TOKENS,
        scope=scope,
    )


def to_completion(response: ModelResponse, model: str) -> dict:
    """The player's reply as a chat completion."""
    text = "\n".join(b.text for b in response.content if isinstance(b, TextBlock))
    calls = [
        {
            "id": f"call_{uuid.uuid4().hex[:24]}",
            "type": "function",
            "function": {"name": b.name, "arguments": json.dumps(b.input, ensure_ascii=False)},
        }
        for b in response.tool_uses()
    ]
    message: dict = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    usage = response.usage
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens,
        },
    }


@dataclass
class _Answer:
    done: threading.Event = field(default_factory=threading.Event)
    value: dict | None = None
    error: Exception | None = None
    asked: int = 1
    """How many times the request came (a client's retries while waiting)."""


class RelayEndpoint:
    """Relays chat requests to files in `directory` under `scope`; the same request asked twice is
    answered once."""

    def __init__(self, directory: Path, scope: str = "gui") -> None:
        self.provider = RelayProvider(directory, scope)
        self.scope = scope
        self._lock = threading.Lock()
        self._inflight: dict[str, _Answer] = {}

    def waiting(self) -> list[int]:
        """For each request waiting for its reply, how many times it was sent."""
        with self._lock:
            return [answer.asked for answer in self._inflight.values()]

    def answer(self, body: dict) -> dict:
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        with self._lock:
            answer = self._inflight.get(key)
            owner = answer is None
            if answer is None:
                answer = self._inflight[key] = _Answer()
            else:
                answer.asked += 1
        if owner:
            try:
                request = to_request(body, self.scope)
                answer.value = to_completion(self.provider.complete(request), str(body.get("model", "")))
            except Exception as exc:  # handed to every waiter of this request
                answer.error = exc
            finally:
                answer.done.set()
                with self._lock:
                    del self._inflight[key]
        answer.done.wait()
        if answer.error is not None:
            raise answer.error
        assert answer.value is not None
        return answer.value


def serve(endpoint: RelayEndpoint, port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server on 127.0.0.1:`port` (0: a free one) for the endpoint; run `serve_forever` on it."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path.split("?")[0] != CHAT_PATH:
                self._send(404, _error(f"no route for POST {self.path}; use {CHAT_PATH}"))
                return
            try:
                body = json.loads(raw)
                if not isinstance(body, dict):
                    raise BadRequest("the body must be a JSON object")
                self._send(200, endpoint.answer(body))
            except (json.JSONDecodeError, BadRequest, KeyError, TypeError, AttributeError) as exc:
                self._send(400, _error(f"cannot relay this request: {type(exc).__name__}: {exc}"))
            except Exception as exc:  # the relay failed (e.g. its time limit): the client sees a server error
                self._send(500, _error(f"relay failed: {exc}", "server_error"))

        def _send(self, status: int, body: dict) -> None:
            payload = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the client gave up waiting; a retry of the same request gets the answer

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
            return

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    return server


def _error(message: str, kind: str = "invalid_request_error") -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="the relay folder the player answers in")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--scope", default="gui", help="the scope the request files are named after")
    args = parser.parse_args()
    server = serve(RelayEndpoint(args.directory, args.scope), args.port)
    print(
        f"relaying http://127.0.0.1:{server.server_address[1]}/v1 to {args.directory.resolve()}", flush=True
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
