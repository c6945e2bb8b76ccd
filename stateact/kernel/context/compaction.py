"""Compaction: the oldest turns of a history become one structured summary.

The first user message (the task) stays verbatim and the summary is appended
to it as a tagged text block; the most recent turns stay verbatim after it.
The kept suffix always starts at an assistant message, so every tool_result
still answers the tool_use just before it and roles keep alternating. A
compaction is fully described by its summary text and the number of messages
it replaced, which is what the `compaction` event records: `apply_compaction`
replays it (`stateact.app.resume` rebuilds a stopped run's history this way).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from stateact.kernel import settings
from stateact.kernel.context.token_counter import TokenCounter
from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, Usage
from stateact.kernel.models.base import ModelProvider, ModelRequest
from stateact.kernel.prompts.loader import render_prompt
from stateact.kernel.tools.truncate import middle_truncate

PROMPT_PATH = Path(__file__).parents[1] / "prompts" / "compactor.md"
"""The compactor's system prompt."""
SUMMARY_OPEN = "<context_summary"
SUMMARY_CLOSE = "</context_summary>"
COMPACTOR_MAX_OUTPUT_TOKENS = 4096


def is_summary_block(block: object) -> TypeGuard[TextBlock]:
    return isinstance(block, TextBlock) and block.text.startswith(SUMMARY_OPEN)


def previous_summary(messages: list[Message]) -> str:
    """The summary an earlier compaction left in the first message, if any."""
    return next((b.text for b in messages[0].content if is_summary_block(b)), "") if messages else ""


def apply_compaction(messages: list[Message], summary: str, replaced: int) -> list[Message]:
    """The history after replacing `messages[1 : 1 + replaced]` with `summary` (an earlier summary goes)."""
    first = messages[0]
    task = [b for b in first.content if not is_summary_block(b)]
    return [Message(role=first.role, content=[*task, TextBlock(text=summary)]), *messages[1 + replaced :]]


def pairing_problems(messages: list[Message]) -> list[str]:
    """What would make a provider reject this history: broken tool_use/tool_result pairs or roles."""
    problems: list[str] = []
    if messages and messages[0].role != "user":
        problems.append("the first message is not from the user")
    for index, message in enumerate(messages):
        if index and message.role == messages[index - 1].role:
            problems.append(f"messages {index - 1} and {index} are both from the {message.role}")
        answered = {r.tool_use_id for r in message.tool_results()}
        asked = {c.id for c in messages[index - 1].tool_uses()} if index else set()
        if answered - asked:
            problems.append(f"message {index} answers tool calls not made just before it: {answered - asked}")
        calls = {c.id for c in message.tool_uses()}
        if calls and index + 1 < len(messages):
            missing = calls - {r.tool_use_id for r in messages[index + 1].tool_results()}
            if missing:
                problems.append(f"tool calls of message {index} are not answered next: {missing}")
    return problems


def choose_split(messages: list[Message], sizes: list[int], keep_tokens: int) -> int | None:
    """Where the kept suffix starts: the earliest assistant message (after the first turn) whose
    suffix fits `keep_tokens`, else the last assistant message; None if nothing can be replaced."""
    candidates = [i for i in range(2, len(messages)) if messages[i].role == "assistant"]
    if not candidates:
        return None
    suffix = 0
    fitting = None
    for index in range(len(messages) - 1, candidates[0] - 1, -1):
        suffix += sizes[index]
        if suffix > keep_tokens:
            break
        if messages[index].role == "assistant":
            fitting = index
    return fitting if fitting is not None else candidates[-1]


def render_transcript(messages: Iterable[Message], output_cap: int) -> str:
    """Turns as plain text for the compactor: calls with their inputs, results head-and-tail."""
    lines: list[str] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                lines.append(f"{message.role.upper()}: {middle_truncate(block.text, output_cap, 'text')}")
            elif isinstance(block, ImageBlock):
                lines.append(f"{message.role.upper()}: [image]")
            elif isinstance(block, ToolResultBlock):
                status = "ERROR" if block.is_error else "RESULT"
                images = sum(isinstance(b, ImageBlock) for b in block.content)
                extra = f" [+{images} image(s)]" if images else ""
                text = middle_truncate(block.text(), output_cap, "output")
                lines.append(f"{status} ({block.tool_use_id}){extra}:\n{text}")
            elif block.type == "tool_use":
                arguments = block.raw_arguments or json.dumps(block.input, ensure_ascii=False)
                lines.append(
                    f"CALL {block.name} ({block.id}): {middle_truncate(arguments, output_cap, 'input')}"
                )
    return "\n".join(lines)


def wrap_summary(body: str, replaced: int, plan: str | None) -> str:
    """The text block that stands for the replaced turns; it always carries the plan as it was."""
    parts = [
        f'{SUMMARY_OPEN} replaced_messages="{replaced}">',
        "The earlier part of this conversation was compacted to save context. Summary of it:",
        middle_truncate(body.strip(), settings.CONTEXT_SUMMARY_CAP_CHARS, "summary"),
    ]
    if plan:
        parts += ["Plan checklist when this summary was written:", plan.strip()]
    parts.append(SUMMARY_CLOSE)
    return "\n\n".join(parts)


@dataclass
class Summary:
    text: str
    usage: Usage | None
    """The compactor call's usage; None when no call completed."""
    model: str
    error: str = ""
    """Why the compactor model's summary could not be used (the text is then a mechanical digest)."""
    usd: float = 0.0
    """The compactor call's cost."""


class Compactor:
    """Asks the compactor model for a structured summary of the turns being replaced."""

    def __init__(self, provider: Callable[[], ModelProvider], tokens: TokenCounter) -> None:
        self._provider = provider
        self.tokens = tokens

    def summarize(self, history: list[Message], split: int, plan: str | None) -> Summary:
        """Summarize `history[1:split]`; a failing compactor gives a mechanical digest instead."""
        replaced = history[1:split]
        usage: Usage | None = None
        model = ""
        usd = 0.0
        try:
            provider = self._provider()
            model = provider.name
            request = self._request(
                history[0], previous_summary(history), replaced, plan, provider.info.context_window
            )
            response = provider.complete(request)
            usage = response.usage
            usd = provider.info.cost(usage)
            body = response.message().text().strip()
            if body:
                return Summary(wrap_summary(body, split - 1, plan), usage, model, usd=usd)
            error = "the compactor replied with no text"
        except Exception as exc:  # any failure of the compactor falls back to the digest
            error = f"{type(exc).__name__}: {exc}"
        return Summary(
            wrap_summary(self._digest(history, replaced), split - 1, plan), usage, model, error, usd
        )

    def _request(
        self, first: Message, earlier: str, replaced: list[Message], plan: str | None, window: int
    ) -> ModelRequest:
        task = "\n".join(
            b.text for b in first.content if isinstance(b, TextBlock) and not is_summary_block(b)
        )
        transcript = render_transcript(replaced, settings.CONTEXT_COMPACTOR_OUTPUT_CAP_CHARS)
        budget = int(window * settings.CONTEXT_COMPACTOR_INPUT_SHARE)
        size = self.tokens.text(transcript)
        if size > budget:
            transcript = middle_truncate(transcript, len(transcript) * budget // size, "transcript")
        sections = [
            f"# Task (verbatim)\n{task}",
            f"# Summary of even earlier turns\n{earlier or '(none: these are the first turns)'}",
            f"# Current plan checklist\n{plan or '(no plan)'}",
            f"# Turns to summarize\n{transcript}",
        ]
        return ModelRequest(
            system=render_prompt(PROMPT_PATH),
            messages=[Message.user_text("\n\n".join(sections))],
            tools=[],
            max_tokens=COMPACTOR_MAX_OUTPUT_TOKENS,
        )

    @staticmethod
    def _digest(history: list[Message], replaced: list[Message]) -> str:
        """A summary built without a model: the earlier summary and the calls made, with outcomes."""
        earlier = previous_summary(history)
        lines = ["(The compactor model was unavailable; this is a mechanical record of the replaced turns.)"]
        if earlier:
            lines.append(f"Earlier summary:\n{middle_truncate(earlier, 4000, 'summary')}")
        lines.append(render_transcript(replaced, 300))
        return "\n".join(lines)


__all__ = [
    "Compactor",
    "Summary",
    "apply_compaction",
    "choose_split",
    "pairing_problems",
    "render_transcript",
]
