"""A provider that plays assistant turns from a script, for offline runs and tests.

A script is JSON: a list of turns, or `{"turns": [...]}`, or per-role lists
`{"roles": {"main": [...], "gui": [...]}}`. A turn is
`{"text": "...", "tool_calls": [{"name": "bash", "input": {...}}], "delay": 0.5, "expect": ...}`
(`delay`, optional, is the model's thinking time in seconds; `expect` states what the tool
results of the role's previous turn must show, see `script_expectations`: a tool error or a
non-zero exit that no `expect` declares ends the run in error).
Each role plays its own list in order across all its loops; running past the
end is a ProviderError. Usage is the offline token estimate of `stateact.kernel.context.token_counter`
(images by their size, not their base64 text). With `context_window` set, a
prompt estimated above it raises ContextLengthError, as a real provider would.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from stateact.kernel.context.token_counter import counter
from stateact.kernel.messages import TextBlock, ToolUseBlock, Usage
from stateact.kernel.models.base import (
    ContextLengthError,
    ModelProvider,
    ModelRequest,
    ModelResponse,
    ProviderError,
)
from stateact.kernel.models.script_expectations import check_results, parse_expectations

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
"""Scripts shipped with the package, named by their stem (`scripted:quickstart`)."""


def script_path(name: str) -> Path:
    """The script a `scripted:` spec names: a file, else a script shipped in EXAMPLES_DIR."""
    path = Path(name).expanduser()
    shipped = EXAMPLES_DIR / f"{name}.json"
    if not path.exists() and "/" not in name and shipped.is_file():
        return shipped
    return path


def load_script(path: Path, role: str) -> list[dict[str, Any]]:
    """The turns a script holds for `role` (a plain list serves every role)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProviderError(f"no script file {path}") from None
    except (OSError, ValueError) as exc:
        raise ProviderError(f"cannot read script {path}: {exc}") from exc
    if isinstance(data, dict) and "roles" in data:
        if not isinstance(data["roles"], dict):
            raise ProviderError(f"script {path}: `roles` must map each role to its list of turns")
        return list(data["roles"].get(role, []))
    if isinstance(data, dict):
        data = data.get("turns", [])
    if not isinstance(data, list):
        raise ProviderError(f"script {path}: expected a list of turns")
    return data


class ScriptedProvider(ModelProvider):
    """Plays a fixed list of turns; records every request it receives."""

    def __init__(
        self,
        turns: list[dict[str, Any]],
        spec: str = "scripted:",
        name: str = "scripted",
        context_window: int | None = None,
        role: str = "main",
    ) -> None:
        self.turns = turns
        self.role = role
        self.spec = spec
        self.name = name
        self.context_window = context_window
        self.requests: list[ModelRequest] = []
        self._position = 0
        self._lock = threading.Lock()

    def take_up(self, replies: int) -> None:
        """Continue from turn `replies` (a resumed run skips the turns already played)."""
        with self._lock:
            self._position = min(max(0, replies), len(self.turns))

    @property
    def remaining(self) -> int:
        return len(self.turns) - self._position

    def complete(self, request: ModelRequest) -> ModelResponse:
        prompt = prompt_tokens(request)
        with self._lock:
            self.requests.append(request)
            if self.context_window is not None and prompt > self.context_window:
                raise ContextLengthError(
                    f"prompt is too long: {prompt} tokens > {self.context_window} maximum"
                )
            if self._position >= len(self.turns):
                raise ProviderError(f"script exhausted after {len(self.turns)} turns ({self.spec})")
            turn = self.turns[self._position]
            self._position += 1
            where = f"script expectation failed at {self.role} turn {self._position}"
            offered = {tool.name for tool in request.tools}
            check_results(request.messages, parse_expectations(turn.get("expect"), where), where, offered)
            content = turn_blocks(turn, f"toolu_s{self._position:04d}")
        time.sleep(float(turn.get("delay", 0)))
        return offline_response(content, prompt, self.name)


def turn_blocks(turn: dict[str, Any], id_prefix: str) -> list[TextBlock | ToolUseBlock]:
    """The content of a turn `{"text": ..., "tool_calls": [{"name": ..., "input": {...}}]}`.

    A call without an `id` gets `{id_prefix}_{index}`.
    """
    content: list[TextBlock | ToolUseBlock] = []
    if turn.get("text"):
        content.append(TextBlock(text=turn["text"]))
    for index, call in enumerate(turn.get("tool_calls", [])):
        content.append(
            ToolUseBlock(
                id=call.get("id") or f"{id_prefix}_{index}", name=call["name"], input=call.get("input", {})
            )
        )
    return content


def prompt_tokens(request: ModelRequest) -> int:
    """The offline estimate of a request's prompt: system, tools and messages."""
    tokens = counter()
    return tokens.preamble(request.system, request.tools) + tokens.messages(request.messages)


def offline_response(content: list[TextBlock | ToolUseBlock], prompt: int, model: str) -> ModelResponse:
    """A reply priced by the offline estimate; it stops for tool use when it calls a tool."""
    tokens = counter()
    usage = Usage(input_tokens=prompt, output_tokens=sum(tokens.block(b) for b in content))
    calls = any(isinstance(b, ToolUseBlock) for b in content)
    return ModelResponse(
        content=list(content), usage=usage, stop_reason="tool_use" if calls else "end_turn", model=model
    )
