"""What a scripted turn states about the tool results it follows, and the check of it.

A scripted turn may carry `"expect"`: one entry, or a list of entries matched in
order to the tool results of the role's previous turn. An entry may state

- `exit`: the bash exit code the result must show (`[exit N · cwd …]`),
- `contains` / `not_contains`: a text, or a list of texts, that must (not) be in the result,
- `is_error`: whether the result must be an error result (`null`: either; a resumed run's
  call whose outcome is unknown is an error where an unbroken run's is not).

Every result without an entry, and every entry that does not say otherwise, must be a
success: not an error result, and no non-zero exit code. A script therefore fails loudly
on a tool that broke, even where its author stated nothing. The one exception: the result of
a call to a tool the harness does not offer is not checked (a script written for the full
harness, replayed on a variant without that tool, could not know).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from stateact.kernel.messages import Message, ToolResultBlock, ToolUseBlock

EXIT_LINE = re.compile(r"^\[(?:interrupted · )?exit (?:code )?(-?\d+)\b")
"""The status line that bash results (`[exit 0 · cwd /x]`) and the gate's shell (`[exit code 0]`) end with."""
SHOWN_CHARS = 400
"""How much of an offending result the failure message quotes."""


class ScriptExpectationError(Exception):
    """A scripted turn's expectation on the previous results failed: the whole run ends in error.

    Deliberately not a ProviderError: no loop turns it into a failed delegation or a tool error.
    """


class Expectation(BaseModel):
    """What one tool result must show."""

    model_config = ConfigDict(extra="forbid")

    exit: int | None = None
    contains: str | list[str] = []
    not_contains: str | list[str] = []
    is_error: bool | None = False


def parse_expectations(raw: Any, where: str) -> list[Expectation]:
    """A turn's `expect` value as a list of entries; a malformed one is a script error."""
    if raw is None:
        return []
    entries = raw if isinstance(raw, list) else [raw]
    try:
        return [Expectation.model_validate(entry) for entry in entries]
    except ValidationError as exc:
        raise ScriptExpectationError(f"{where}: malformed `expect`: {exc}") from None


def exit_code(text: str) -> int | None:
    """The exit code a shell result reports on its last line, if any."""
    lines = text.rstrip().splitlines()
    match = EXIT_LINE.match(lines[-1]) if lines else None
    return int(match.group(1)) if match else None


def check_results(
    messages: list[Message], expectations: list[Expectation], where: str, offered: set[str]
) -> None:
    """Raise ScriptExpectationError unless the latest tool results meet `expectations`.

    `offered` names the tools of the request: the result of a call to any other tool is not checked.
    """
    results = _latest_results(messages)
    if len(expectations) > len(results):
        raise ScriptExpectationError(
            f"{where}: `expect` has {len(expectations)} entries but the previous turn gave "
            f"{len(results)} tool result(s)"
        )
    names = _call_names(messages)
    for index, result in enumerate(results):
        name = names.get(result.tool_use_id, "?")
        if name not in offered:
            continue
        expectation = expectations[index] if index < len(expectations) else Expectation()
        problem = _problem(result, expectation)
        if problem:
            shown = result.text()[:SHOWN_CHARS]
            raise ScriptExpectationError(
                f"{where}: result {index + 1} (`{name}`) {problem}; it reads:\n{shown}"
            )


def _problem(result: ToolResultBlock, expectation: Expectation) -> str:
    text = result.text()
    if expectation.is_error is None and result.is_error:
        return ""
    if expectation.is_error is not None and result.is_error != expectation.is_error:
        return "is an error result" if result.is_error else "was expected to be an error result"
    code = exit_code(text)
    wanted = expectation.exit if expectation.exit is not None else 0
    if code is not None and code != wanted:
        return f"shows exit {code}, expected exit {wanted}"
    if expectation.exit is not None and code is None:
        return f"shows no exit code, expected exit {wanted}"
    for needle in _texts(expectation.contains):
        if needle not in text:
            return f"does not contain {needle!r}"
    for needle in _texts(expectation.not_contains):
        if needle in text:
            return f"contains {needle!r}"
    return ""


def _texts(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _latest_results(messages: list[Message]) -> list[ToolResultBlock]:
    """The tool results of the latest user message (none at the start of a loop)."""
    if not messages or messages[-1].role != "user":
        return []
    return [b for b in messages[-1].content if isinstance(b, ToolResultBlock)]


def _call_names(messages: list[Message]) -> dict[str, str]:
    if len(messages) < 2:
        return {}
    return {b.id: b.name for b in messages[-2].content if isinstance(b, ToolUseBlock)}
