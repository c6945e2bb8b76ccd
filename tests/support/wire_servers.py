"""Local stand-ins for the Anthropic Messages and OpenAI Chat Completions APIs.

Each server listens on 127.0.0.1 (a free port), plays a queue of scripted turns,
records every request and checks it the way the real API would. A request the
real API would reject gets the vendor's 400 error with a precise message, and
the problem is kept in `server.problems`; leaving the `with` block (or calling
`check()`) fails the test if there was any.

    with AnthropicWireServer([anthropic_reply(tool_calls=[("bash", {"command": "ls"})]),
                              anthropic_reply(text="done")]) as server:
        provider = create_model(f"anthropic:claude-sonnet-4-5@{server.base_url}")
        ...
        server.requests[1]["messages"]  # the JSON body the SDK sent

A turn is a reply body (built with `anthropic_reply` / `openai_reply`), a
`WireError` (built with `anthropic_error` / `openai_error` and friends), or a
callable taking the request body and returning one of those.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jsonschema

from stateact.kernel.messages import Usage
from stateact.kernel.models.prompt_cache import PromptCache


@dataclass(frozen=True)
class WireError:
    """An HTTP error reply: status, JSON body and extra headers."""

    status: int
    body: dict
    headers: dict[str, str] = field(default_factory=dict)


Turn = dict | WireError | Callable[[dict], "dict | WireError"]

IMAGE_MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_MAGIC = {
    "image/png": b"\x89PNG\r\n\x1a\n",
    "image/jpeg": b"\xff\xd8\xff",
    "image/gif": b"GIF8",
    "image/webp": b"RIFF",
}
SHUTDOWN_POLL_S = 0.02
"""How often a serving thread checks for shutdown (keeps teardown fast)."""
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_DATA_URL = re.compile(r"^data:(?P<media>[\w/+.-]+);base64,(?P<data>.*)$", re.DOTALL)


# -- shared checks -------------------------------------------------------------------------------------
def image_problem(where: str, media_type: Any, data: Any) -> str | None:
    """Why an inline image would be rejected, or None: base64 of a PNG/JPEG/GIF/WebP matching its type."""
    if media_type not in IMAGE_MEDIA_TYPES:
        return f"{where}: media_type must be one of {', '.join(IMAGE_MEDIA_TYPES)}, got {media_type!r}"
    if not isinstance(data, str) or not data:
        return f"{where}: image data must be a non-empty base64 string"
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"{where}: image data is not valid base64"
    actual = next((kind for kind, magic in _MAGIC.items() if raw.startswith(magic)), None)
    if actual is None:
        return f"{where}: could not process image (not a PNG, JPEG, GIF or WebP)"
    if actual != media_type:
        return (
            f"{where}: the image was specified using the {media_type} media type, "
            f"but the image appears to be a {actual} image"
        )
    return None


def schema_problem(where: str, schema: Any) -> str | None:
    """Why a tool's input schema would be rejected: it must be a valid JSON schema of type object."""
    if not isinstance(schema, dict):
        return f"{where}: input schema must be an object"
    if schema.get("type") != "object":
        return f"{where}: input schema must have type 'object', got {schema.get('type')!r}"
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"{where}: JSON schema is invalid: {exc.message}"
    return None


def tool_name_problem(where: str, name: Any) -> str | None:
    if not isinstance(name, str) or not _TOOL_NAME.match(name):
        return f"{where}: tool name {name!r} must match {_TOOL_NAME.pattern}"
    return None


def _new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


# -- the server ----------------------------------------------------------------------------------------
class WireServer:
    """A scripted HTTP API on a free local port; subclasses give the wire format."""

    path: str = ""
    url_suffix: str = ""
    vendor: str = ""

    def __init__(self, turns: Iterable[Turn] = ()) -> None:
        self.turns: deque[Turn] = deque(turns)
        self.requests: list[dict] = []
        """Every JSON body received, valid or not, in order."""
        self.headers: list[dict[str, str]] = []
        self.problems: list[str] = []
        """Why requests were rejected as invalid (empty when every request was valid)."""
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle
    def start(self) -> WireServer:
        handler = type("Handler", (_Handler,), {"server_app": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": SHUTDOWN_POLL_S},
            name=f"{self.vendor}-wire",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> None:
        self.stop()
        if exc_type is None:
            self.check()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """What to give the SDK (and a model spec after `@`)."""
        return f"http://127.0.0.1:{self.port}{self.url_suffix}"

    def add(self, *turns: Turn) -> None:
        """Queue more turns."""
        with self._lock:
            self.turns.extend(turns)

    @property
    def remaining(self) -> int:
        return len(self.turns)

    def check(self) -> None:
        """Fail if any request was invalid."""
        if self.problems:
            raise AssertionError(f"invalid {self.vendor} request(s):\n" + "\n".join(self.problems))

    # dispatch
    def handle(self, path: str, body: Any, headers: dict[str, str]) -> WireError | dict:
        if path != self.path:
            return self.error(404, f"no route for POST {path}")
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            problems = self._problems(body, headers)
            if problems:
                self.problems.extend(f"request {len(self.requests)}: {p}" for p in problems)
                return self.error(400, "; ".join(problems))
            if not self.turns:
                message = f"script exhausted: no turn left for request {len(self.requests)}"
                self.problems.append(message)
                return self.error(500, message)
            turn = self.turns.popleft()
        reply = turn(body) if callable(turn) else turn
        if isinstance(reply, dict):
            with self._lock:
                self.remember(reply)
        return reply

    def _problems(self, body: Any, headers: dict[str, str]) -> list[str]:
        if not isinstance(body, dict):
            return ["body: not a JSON object"]
        try:
            return self.validate(body, headers)
        except (AttributeError, TypeError, KeyError) as exc:  # a body too malformed to walk
            return [f"malformed request: {type(exc).__name__}: {exc}"]

    def remember(self, reply: dict) -> None:
        """Note what a reply said that later requests must echo (nothing by default)."""

    def validate(self, body: dict, headers: dict[str, str]) -> list[str]:
        raise NotImplementedError

    def error(self, status: int, message: str) -> WireError:
        """The vendor's error reply for a rejected request."""
        raise NotImplementedError


class _Handler(BaseHTTPRequestHandler):
    server_app: WireServer
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except json.JSONDecodeError as exc:
            reply: WireError | dict = self.server_app.error(400, f"request body is not valid JSON: {exc}")
        else:
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = self.server_app.handle(self.path.split("?")[0], body, headers)
        if isinstance(reply, WireError):
            self._send(reply.status, reply.body, reply.headers)
        else:
            self._send(200, reply, {})

    def _send(self, status: int, body: dict, headers: dict[str, str]) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (silence per-request logging)
        return


# -- Anthropic Messages ----------------------------------------------------------------------------------
ANTHROPIC_MAX_CACHE_BREAKPOINTS = 4


def anthropic_reply(
    text: str | None = None,
    tool_calls: Iterable[tuple[str, dict]] = (),
    *,
    thinking: str | None = None,
    stop_reason: str | None = None,
    usage: dict | None = None,
    model: str = "claude-sonnet-5-5",
) -> dict:
    """A Messages API response: optional thinking and text, then tool_use blocks for (name, input) pairs."""
    content: list[dict] = []
    if thinking:
        content.append({"type": "thinking", "thinking": thinking, "signature": _new_id("sig_")})
    if text:
        content.append({"type": "text", "text": text})
    content += [{"type": "tool_use", "id": _new_id("toolu_"), "name": n, "input": i} for n, i in tool_calls]
    return {
        "id": _new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason
        or ("tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            **(usage or {}),
        },
    }


def anthropic_error(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> WireError:
    """An error in Anthropic's shape: {"type": "error", "error": {"type", "message"}}."""
    body = {"type": "error", "error": {"type": error_type, "message": message}, "request_id": _new_id("req_")}
    return WireError(status, body, headers or {})


def anthropic_overloaded() -> WireError:
    return anthropic_error(529, "overloaded_error", "Overloaded")


def anthropic_rate_limited(retry_after: str = "0") -> WireError:
    return anthropic_error(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
        {"retry-after": retry_after},
    )


def anthropic_prompt_too_long(tokens: int = 210_000, maximum: int = 200_000) -> WireError:
    return anthropic_error(
        400, "invalid_request_error", f"prompt is too long: {tokens} tokens > {maximum} maximum"
    )


THINKING_TYPES = ("thinking", "redacted_thinking")


class AnthropicWireServer(WireServer):
    """POST /v1/messages, checked like the Messages API checks it.

    A reply sent with thinking blocks must come back with them unchanged and in place
    whenever its tool_use blocks are sent back, as the API requires.
    """

    path = "/v1/messages"
    vendor = "anthropic"

    def __init__(self, turns: Iterable[Turn] = (), *, cache: PromptCache | None = None) -> None:
        """With `cache`, each valid request is sent to that model of the prompt cache and its reply's
        usage is what the cache says: tokens written, read and paid in full (`usages` keeps them)."""
        super().__init__(turns)
        self.sent_with_thinking: dict[str, list[dict]] = {}
        """tool_use id -> the content of the reply that carried it, when that reply had thinking."""
        self.cache = cache
        self.usages: list[Usage] = []

    def handle(self, path: str, body: Any, headers: dict[str, str]) -> WireError | dict:
        reply = super().handle(path, body, headers)
        if self.cache is None or not isinstance(reply, dict):
            return reply
        with self._lock:
            usage = self.cache.send(body, reply["usage"]["output_tokens"])
            self.usages.append(usage)
        cached = {
            "input_tokens": usage.input_tokens,
            "cache_creation_input_tokens": usage.cache_write_tokens,
            "cache_read_input_tokens": usage.cache_read_tokens,
        }
        return {**reply, "usage": {**reply["usage"], **cached}}

    def remember(self, reply: dict) -> None:
        content = reply.get("content", [])
        if any(b.get("type") in THINKING_TYPES for b in content):
            for block in content:
                if block.get("type") == "tool_use":
                    self.sent_with_thinking[block["id"]] = content

    def error(self, status: int, message: str) -> WireError:
        kind = {400: "invalid_request_error", 404: "not_found_error"}.get(status, "api_error")
        return anthropic_error(status, kind, message)

    def validate(self, body: dict, headers: dict[str, str]) -> list[str]:
        problems: list[str] = []
        if not headers.get("x-api-key") and not headers.get("authorization"):
            problems.append("headers: x-api-key is missing")
        if not headers.get("anthropic-version"):
            problems.append("headers: anthropic-version is missing")
        if not isinstance(body.get("model"), str) or not body["model"]:
            problems.append("model: Field required")
        if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
            problems.append("max_tokens: must be a positive integer")
        breakpoints = _count_cache_control(body.get("system"), problems, "system")
        breakpoints += self._check_tools(body.get("tools", []), problems)
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            problems.append("messages: at least one message is required")
            return problems
        breakpoints += self._check_messages(messages, problems)
        kinds = {b.get("type") for m in messages if isinstance(m.get("content"), list) for b in m["content"]}
        if kinds & {"tool_use", "tool_result"} and not body.get("tools"):
            problems.append("Requests which include `tool_use` or `tool_result` blocks must define tools.")
        if breakpoints > ANTHROPIC_MAX_CACHE_BREAKPOINTS:
            problems.append(
                f"A maximum of {ANTHROPIC_MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
                f"Found {breakpoints}."
            )
        return problems

    def _check_tools(self, tools: Any, problems: list[str]) -> int:
        if not isinstance(tools, list):
            problems.append("tools: must be a list")
            return 0
        names: set[str] = set()
        for i, tool in enumerate(tools):
            where = f"tools.{i}"
            if (p := tool_name_problem(where, tool.get("name"))) is not None:
                problems.append(p)
            if tool.get("name") in names:
                problems.append(f"{where}: tool names must be unique ({tool.get('name')!r})")
            names.add(tool.get("name"))
            if tool.get("type", "custom") != "custom":  # a versioned Anthropic tool (computer_...): no schema
                continue
            if (p := schema_problem(f"{where}.input_schema", tool.get("input_schema"))) is not None:
                problems.append(p)
        return _count_cache_control(tools, problems, "tools")

    def _check_messages(self, messages: list, problems: list[str]) -> int:
        seen_ids: set[str] = set()
        pending: list[str] = []  # tool_use ids of the previous assistant message
        breakpoints = 0
        for index, message in enumerate(messages):
            where = f"messages.{index}"
            role = message.get("role")
            if role not in ("user", "assistant"):
                problems.append(f"{where}.role: must be 'user' or 'assistant', got {role!r}")
                continue
            if role == (messages[index - 1].get("role") if index else "assistant"):
                problems.append(
                    f"{where}: roles must alternate between user and assistant, starting with user"
                )
            content = message.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            if not isinstance(content, list) or not content:
                problems.append(f"{where}.content: must be a non-empty string or list of blocks")
                continue
            for b, block in enumerate(content):
                self._check_block(f"{where}.content.{b}", role, block, problems)
            breakpoints += _count_cache_control(content, problems, where)
            results = [b.get("tool_use_id") for b in content if b.get("type") == "tool_result"]
            if role == "user":
                self._check_results(where, content, results, pending, problems)
                pending = []
            else:
                pending = [b.get("id") for b in content if b.get("type") == "tool_use"]
                self._check_thinking_echo(where, content, pending, problems)
                for tool_id in pending:
                    if tool_id in seen_ids:
                        problems.append(f"{where}: tool_use ids must be unique ({tool_id!r})")
                    seen_ids.add(tool_id)
        if pending:
            problems.append(
                f"messages.{len(messages) - 1}: tool_use ids were found without tool_result blocks "
                f"immediately after: {', '.join(pending)}"
            )
        return breakpoints

    def _check_thinking_echo(
        self, where: str, content: list, tool_ids: list[str], problems: list[str]
    ) -> None:
        sent = next((self.sent_with_thinking[i] for i in tool_ids if i in self.sent_with_thinking), None)
        if sent is None:
            return
        if content[0].get("type") not in THINKING_TYPES:
            problems.append(
                f"{where}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                f"`{content[0].get('type')}`. When thinking is on, an assistant message with tool_use must "
                "start with the thinking block it was sent with"
            )
        elif [b for b in content if b.get("type") in THINKING_TYPES] != [
            b for b in sent if b.get("type") in THINKING_TYPES
        ]:
            problems.append(f"{where}: thinking blocks must be passed back unchanged (invalid `signature`)")

    @staticmethod
    def _check_results(
        where: str, content: list, results: list, pending: list[str], problems: list[str]
    ) -> None:
        missing = [i for i in pending if i not in results]
        if missing:
            problems.append(
                f"{where}: tool_use ids were found without tool_result blocks immediately after: "
                f"{', '.join(missing)}. Each tool_use block must have a corresponding tool_result block "
                "in the next message."
            )
        for tool_id in results:
            if tool_id not in pending:
                problems.append(
                    f"{where}: unexpected tool_use_id found in tool_result blocks: {tool_id}. Each tool_result "
                    "block must have a corresponding tool_use block in the previous message."
                )
        if len(set(results)) != len(results):
            problems.append(f"{where}: each tool_use must be answered by exactly one tool_result")
        kinds = [b.get("type") for b in content]
        if results and kinds[: len(results)] != ["tool_result"] * len(results):
            problems.append(
                f"{where}: tool_result blocks must come first in the content, before any other block"
            )

    def _check_block(self, where: str, role: str, block: Any, problems: list[str]) -> None:
        kind = block.get("type") if isinstance(block, dict) else None
        allowed = {
            "user": ("text", "image", "tool_result"),
            "assistant": ("text", "tool_use", *THINKING_TYPES),
        }[role]
        if kind not in allowed:
            problems.append(f"{where}: block type {kind!r} is not allowed in a {role} message")
            return
        if kind == "text":
            if not isinstance(block.get("text"), str) or not block["text"].strip():
                problems.append(f"{where}: text content blocks must contain non-whitespace text")
        elif kind == "image":
            source = block.get("source") or {}
            if source.get("type") != "base64":
                problems.append(f"{where}.source.type: expected 'base64', got {source.get('type')!r}")
            elif p := image_problem(f"{where}.source.base64", source.get("media_type"), source.get("data")):
                problems.append(p)
        elif kind == "tool_use":
            if not isinstance(block.get("id"), str) or not _TOOL_ID.match(block["id"]):
                problems.append(f"{where}.id: String should match pattern '{_TOOL_ID.pattern}'")
            if (p := tool_name_problem(where, block.get("name"))) is not None:
                problems.append(p)
            if not isinstance(block.get("input"), dict):
                problems.append(f"{where}.input: Input should be a valid dictionary")
        elif kind == "tool_result":
            if "is_error" in block and not isinstance(block["is_error"], bool):
                problems.append(f"{where}.is_error: Input should be a valid boolean")
            inner = block.get("content", "")
            if isinstance(inner, list):
                for i, part in enumerate(inner):
                    if part.get("type") not in ("text", "image"):
                        problems.append(
                            f"{where}.content.{i}: tool_result content must be text or image blocks"
                        )
                    else:
                        self._check_block(f"{where}.content.{i}", "user", part, problems)
            elif not isinstance(inner, str):
                problems.append(f"{where}.content: must be a string or a list of blocks")


def _count_cache_control(node: Any, problems: list[str], where: str) -> int:
    """Blocks carrying cache_control anywhere under `node`; a wrong cache_control type is a problem."""
    if isinstance(node, list):
        return sum(_count_cache_control(item, problems, f"{where}.{i}") for i, item in enumerate(node))
    if not isinstance(node, dict):
        return 0
    count = 0
    if "cache_control" in node:
        count = 1
        if (node["cache_control"] or {}).get("type") != "ephemeral":
            problems.append(f"{where}.cache_control.type: expected 'ephemeral'")
    return count + _count_cache_control(node.get("content"), problems, f"{where}.content")


# -- OpenAI Chat Completions -------------------------------------------------------------------------------
def openai_reply(
    text: str | None = None,
    tool_calls: Iterable[tuple[str, dict | str]] = (),
    *,
    finish_reason: str | None = None,
    usage: dict | None = None,
    cached_tokens: int = 0,
    model: str = "gpt-4o-2024-08-06",
) -> dict:
    """A chat completion: optional text and tool calls of (name, arguments); a str argument is sent verbatim."""
    calls = [
        {
            "id": _new_id("call_"),
            "type": "function",
            "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)},
        }
        for n, a in tool_calls
    ]
    message: dict = {"role": "assistant", "content": text, "refusal": None}
    if calls:
        message["tool_calls"] = calls
    counts = {"prompt_tokens": 100, "completion_tokens": 20, **(usage or {})}
    return {
        "id": _new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
            }
        ],
        "usage": {
            **counts,
            "total_tokens": counts["prompt_tokens"] + counts["completion_tokens"],
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }


def openai_error(
    status: int,
    message: str,
    error_type: str = "invalid_request_error",
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> WireError:
    """An error in OpenAI's shape: {"error": {"message", "type", "param", "code"}}."""
    return WireError(
        status,
        {"error": {"message": message, "type": error_type, "param": None, "code": code}},
        headers or {},
    )


def openai_context_exceeded(tokens: int = 140_000, maximum: int = 128_000) -> WireError:
    return openai_error(
        400,
        f"This model's maximum context length is {maximum} tokens. However, your messages resulted in "
        f"{tokens} tokens. Please reduce the length of the messages.",
        code="context_length_exceeded",
    )


def openai_rate_limited(retry_after: str = "0") -> WireError:
    return openai_error(
        429,
        "Rate limit reached for requests",
        "requests",
        "rate_limit_exceeded",
        {"retry-after": retry_after},
    )


CHARS_PER_TOKEN = 4
"""How the servers estimate the tokens of a prompt's text."""
IMAGE_PIXELS_PER_TOKEN = 750
"""How the servers estimate the tokens of an image (width x height / this)."""
PNG_SIZE_OFFSET = 16
"""Where a PNG's IHDR width and height (two big-endian 32-bit integers) start."""


def prompt_tokens(body: dict) -> int:
    """A rough token count of a chat request's prompt: its text and tools by characters, its PNG images by
    area."""
    tokens = len(json.dumps(body.get("tools") or [])) // CHARS_PER_TOKEN
    for message in body["messages"]:
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        for part in parts:
            if part.get("type") == "image_url":
                match = _DATA_URL.match((part.get("image_url") or {}).get("url", ""))
                raw = base64.b64decode(match["data"])[PNG_SIZE_OFFSET : PNG_SIZE_OFFSET + 8] if match else b""
                width, height = int.from_bytes(raw[:4]), int.from_bytes(raw[4:])
                tokens += width * height // IMAGE_PIXELS_PER_TOKEN
            else:
                tokens += len(str(part.get("text", ""))) // CHARS_PER_TOKEN
        tokens += len(json.dumps(message.get("tool_calls") or [])) // CHARS_PER_TOKEN
    return tokens


def image_count(body: dict) -> int:
    """The images of a chat request."""
    return sum(
        part.get("type") == "image_url"
        for message in body.get("messages") or []
        if isinstance(message.get("content"), list)
        for part in message["content"]
    )


class OpenAIWireServer(WireServer):
    """POST /v1/chat/completions, checked like the OpenAI API checks it.

    `strict_alternation` also rejects two user turns in a row, as the chat templates
    of many open-weight models served by vLLM do. With `context_window` set, a request
    whose prompt (estimated) plus `max_tokens` is over it gets vLLM's 400 error, as a
    server started with `--max-model-len` does; such a request is not a problem of the test.
    With `max_images` set, a request with more images is rejected with vLLM's 400 error, as a server
    started with `--limit-mm-per-prompt '{"image": N}'` does, and that is a problem of the test.
    """

    path = "/v1/chat/completions"
    url_suffix = "/v1"
    vendor = "openai"

    def __init__(
        self,
        turns: Iterable[Turn] = (),
        *,
        strict_alternation: bool = True,
        context_window: int | None = None,
        max_images: int | None = None,
    ) -> None:
        super().__init__(turns)
        self.strict_alternation = strict_alternation
        self.context_window = context_window
        self.max_images = max_images

    def handle(self, path: str, body: Any, headers: dict[str, str]) -> WireError | dict:
        if (
            self.context_window is not None
            and isinstance(body, dict)
            and isinstance(body.get("messages"), list)
        ):
            prompt = prompt_tokens(body)
            output = body.get("max_tokens") or body.get("max_completion_tokens") or 0
            if prompt + output > self.context_window:
                with self._lock:
                    self.requests.append(body)
                    self.headers.append(headers)
                return openai_error(
                    400,
                    f"This model's maximum context length is {self.context_window} tokens. However, you "
                    f"requested {prompt + output} tokens ({prompt} in the messages, {output} in the "
                    "completion). Please reduce the length of the messages or completion.",
                )
        return super().handle(path, body, headers)

    def error(self, status: int, message: str) -> WireError:
        return openai_error(status, message, "invalid_request_error" if status < 500 else "server_error")

    def validate(self, body: dict, headers: dict[str, str]) -> list[str]:
        problems: list[str] = []
        if not headers.get("authorization", "").startswith("Bearer "):
            problems.append("headers: Authorization: Bearer <key> is missing")
        if not isinstance(body.get("model"), str) or not body["model"]:
            problems.append("model: you must provide a model parameter")
        if "max_tokens" in body and "max_completion_tokens" in body:
            problems.append("max_tokens and max_completion_tokens cannot both be set")
        if self.max_images is not None and (count := image_count(body)) > self.max_images:
            problems.append(
                f"At most {self.max_images} image(s) may be provided in one prompt (got {count})."
            )
        for i, tool in enumerate(body.get("tools", [])):
            where = f"tools[{i}]"
            function = tool.get("function") or {}
            if tool.get("type") != "function":
                problems.append(f"{where}.type: expected 'function'")
            if (p := tool_name_problem(f"{where}.function.name", function.get("name"))) is not None:
                problems.append(p)
            if (p := schema_problem(f"{where}.function.parameters", function.get("parameters"))) is not None:
                problems.append(p)
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            problems.append("messages: must be a non-empty array")
            return problems
        self._check_messages(messages, problems)
        return problems

    def _check_messages(self, messages: list, problems: list[str]) -> None:
        pending: list[str] = []  # tool_call ids still to be answered
        previous = None  # role of the previous message
        for index, message in enumerate(messages):
            where = f"messages[{index}]"
            role = message.get("role")
            if pending and role != "tool":
                problems.append(
                    f"{where}: An assistant message with 'tool_calls' must be followed by tool messages "
                    f"responding to each 'tool_call_id'. The following tool_call_ids did not have response "
                    f"messages: {', '.join(pending)}"
                )
                pending = []
            if role in ("system", "developer"):
                if previous not in (None, "system", "developer"):
                    problems.append(f"{where}: system messages must come before the conversation")
                self._check_text_content(where, message.get("content"), problems)
                continue
            if role == "user":
                self._check_user_content(where, message.get("content"), problems)
                if previous == "user" and self.strict_alternation:
                    problems.append(
                        f"{where}: conversation roles must alternate user/assistant/user/assistant"
                    )
            elif role == "assistant":
                if previous == "assistant":
                    problems.append(
                        f"{where}: conversation roles must alternate user/assistant/user/assistant"
                    )
                pending = self._check_assistant(where, message, problems)
            elif role == "tool":
                self._check_tool_message(where, message, previous, pending, problems)
                if message.get("tool_call_id") in pending:
                    pending.remove(message["tool_call_id"])
            else:
                problems.append(f"{where}.role: unknown role {role!r}")
            previous = role
        if pending:
            problems.append(
                f"messages[{len(messages) - 1}]: The following tool_call_ids did not have response messages: "
                f"{', '.join(pending)}"
            )

    @staticmethod
    def _check_assistant(where: str, message: dict, problems: list[str]) -> list[str]:
        calls = message.get("tool_calls") or []
        content = message.get("content")
        if not calls and not content:
            problems.append(f"{where}.content: required unless tool_calls is specified")
        ids = []
        for c, call in enumerate(calls):
            function = call.get("function") or {}
            if call.get("type") != "function" or not isinstance(call.get("id"), str) or not call["id"]:
                problems.append(f"{where}.tool_calls[{c}]: needs an id and type 'function'")
            if not isinstance(function.get("name"), str) or not isinstance(function.get("arguments"), str):
                problems.append(f"{where}.tool_calls[{c}].function: needs a name and string arguments")
            ids.append(call.get("id"))
        return ids

    def _check_tool_message(
        self, where: str, message: dict, previous: str | None, pending: list[str], problems: list[str]
    ) -> None:
        if previous not in ("assistant", "tool") or message.get("tool_call_id") not in pending:
            problems.append(
                f"{where}: messages with role 'tool' must be a response to a preceding message with "
                f"'tool_calls' (tool_call_id {message.get('tool_call_id')!r} does not answer one)"
            )
        content = message.get("content")
        if isinstance(content, list) and any(p.get("type") != "text" for p in content):
            problems.append(f"{where}.content: Image URLs are only allowed for messages with role 'user'")
        else:
            self._check_text_content(where, content, problems)

    @staticmethod
    def _check_text_content(where: str, content: Any, problems: list[str]) -> None:
        if isinstance(content, list):
            if any(p.get("type") != "text" or not isinstance(p.get("text"), str) for p in content):
                problems.append(f"{where}.content: only text parts are allowed here")
        elif not isinstance(content, str):
            problems.append(f"{where}.content: must be a string or an array of text parts")

    @staticmethod
    def _check_user_content(where: str, content: Any, problems: list[str]) -> None:
        if isinstance(content, str):
            return
        if not isinstance(content, list) or not content:
            problems.append(f"{where}.content: must be a string or a non-empty array of parts")
            return
        for p, part in enumerate(content):
            kind = part.get("type")
            if kind == "text":
                if not isinstance(part.get("text"), str):
                    problems.append(f"{where}.content[{p}].text: must be a string")
            elif kind == "image_url":
                url = (part.get("image_url") or {}).get("url", "")
                match = _DATA_URL.match(url)
                if match is None:
                    problems.append(f"{where}.content[{p}].image_url.url: expected a base64 data URL")
                elif (
                    bad := image_problem(f"{where}.content[{p}]", match["media"], match["data"])
                ) is not None:
                    problems.append(bad)
            else:
                problems.append(f"{where}.content[{p}].type: unknown part type {kind!r}")


__all__ = [
    "AnthropicWireServer",
    "OpenAIWireServer",
    "WireError",
    "WireServer",
    "anthropic_error",
    "anthropic_overloaded",
    "anthropic_prompt_too_long",
    "anthropic_rate_limited",
    "anthropic_reply",
    "image_count",
    "image_problem",
    "openai_context_exceeded",
    "openai_error",
    "openai_rate_limited",
    "openai_reply",
    "schema_problem",
]
