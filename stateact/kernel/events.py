"""The typed events of a run's log (`events.jsonl`): one pydantic model per kind, and their reader.

Every event has `seq` (its number in the log), `t` (epoch seconds), `kind` and `scope` (the loop
that wrote it: `main`, `gui#1`, `gate#2`). Each kind is a model whose `kind` is a literal, registered
with `register_event` by the module that owns it: the kernel's own kinds here, a role's kinds in its
role's module (`gate/events.py`, `subagents/events.py`), registered when that module is imported
(`stateact.app.roles` imports every role). A log line is validated by the model its `kind` names; a
kind not registered reads as the generic `Event`, its fields kept. Fields a kind gained after logs
were first written have defaults, so older logs read; fields a newer version adds are kept too
(`extra="allow"`), so nothing is lost. `stateact.kernel.runlog.RunLog.emit` is the one writer,
`read_events` the one reader.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Iterator
from copy import deepcopy
from pathlib import Path
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stateact.kernel.messages import Message, Usage

HEADER_FIELDS = ("seq", "t", "kind", "scope")


class EventLogError(ValueError):
    """A log line that is not an event, or an event whose field has the wrong type."""


class Event(BaseModel):
    """An event of any kind; the generic type of a kind this version does not know."""

    model_config = ConfigDict(extra="allow")

    seq: int = 0
    """Set by the writer: 1, 2, … across every resume of the run."""
    t: float = 0.0
    """Set by the writer: epoch seconds."""
    kind: str
    scope: str = "main"

    def details(self) -> dict[str, Any]:
        """The event's own fields (all but seq, t, kind and scope), as JSON values."""
        return self.model_dump(mode="json", exclude=set(HEADER_FIELDS))


EventT = TypeVar("EventT", bound=Event)
EVENT_TYPES: dict[str, type[Event]] = {}
"""The model of each registered kind, by its `kind` string."""


def register_event(model: type[EventT]) -> type[EventT]:
    """Register `model` as the type of the log lines of its kind (its `kind` literal's default); a
    class decorator. Raises ValueError for a model without a default `kind` or for a kind another
    model has."""
    kind = model.model_fields["kind"].default
    if not isinstance(kind, str):
        raise ValueError(f"{model.__name__} has no `kind` of its own to register")
    known = EVENT_TYPES.setdefault(kind, model)
    if known is not model:
        raise ValueError(f"event kind {kind!r} is {known.__module__}.{known.__name__}'s already")
    return model


# -- loops and model calls ------------------------------------------------------------------------
@register_event
class MessageEvent(Event):
    kind: Literal["message"] = "message"
    message: Message
    """With images moved to files under `images/` (their `data` empty, their `path` set)."""


@register_event
class LoopStart(Event):
    kind: Literal["loop_start"] = "loop_start"
    model: str = ""
    tools: list[str] = Field(default_factory=list)


@register_event
class LoopEnd(Event):
    kind: Literal["loop_end"] = "loop_end"
    status: str = ""
    turns: int = 0
    text: str = ""


@register_event
class Interrupted(Event):
    kind: Literal["interrupted"] = "interrupted"
    turns: int = 0


@register_event
class ErrorEvent(Event):
    kind: Literal["error"] = "error"
    error: str = ""
    """The exception's type name."""
    message: str = ""


@register_event
class Request(Event):
    kind: Literal["request"] = "request"
    messages: int = 0
    chars: int = 0


@register_event
class Response(Event):
    kind: Literal["response"] = "response"
    role: str = ""
    """The role that paid for the call (empty in logs from before roles were recorded)."""
    turn: int = 0
    stop_reason: str = ""
    usage: Usage = Field(default_factory=Usage)
    usd: float = 0.0
    seconds: float = 0.0
    retried: list[str] = Field(default_factory=list)
    """Transient errors retried before the reply came."""


@register_event
class ContextOverflow(Event):
    kind: Literal["context_overflow"] = "context_overflow"
    message: str = ""
    maximum: int | None = None
    recoveries: int = 0


@register_event
class ModelSettingsWarning(Event):
    kind: Literal["model_settings_warning"] = "model_settings_warning"
    message: str


# -- tools --------------------------------------------------------------------------------------
@register_event
class ToolCall(Event):
    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None
    """The model's arguments as sent, when they were not valid JSON."""


@register_event
class ToolCutOff(Event):
    kind: Literal["tool_cut_off"] = "tool_cut_off"
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


@register_event
class ToolCrash(Event):
    kind: Literal["tool_crash"] = "tool_crash"
    id: str
    traceback: str


LOGGED_TEXT_CHARS = 2000
"""How much of a tool result's or a loop's final text an event keeps."""


@register_event
class ToolResultEvent(Event):
    kind: Literal["tool_result"] = "tool_result"
    id: str
    name: str = ""
    is_error: bool = False
    terminal: bool = False
    text: str = ""
    """The result's text, cut to its first 2,000 characters."""
    images: int = 0
    seconds: float = 0.0


# -- the run -------------------------------------------------------------------------------------
@register_event
class RunStart(Event):
    kind: Literal["run_start"] = "run_start"
    instruction: str = ""
    harness: str = ""
    home: str = ""
    sandbox_tag: str | None = None
    task_started_at: float | None = None
    resumed: bool = False
    display: str | None = None
    """The X display on this machine that is the sandbox's screen (`:N`), which `stateact watch` shows."""


@register_event
class RunEnd(Event):
    kind: Literal["run_end"] = "run_end"
    status: str
    usd: float = 0.0
    turns: int = 0


@register_event
class RunResumed(Event):
    kind: Literal["run_resumed"] = "run_resumed"
    turns: int
    messages: int
    unknown_outcomes: list[str] = Field(default_factory=list)
    note: str = ""
    """The resume notice added to the run's last user message (a resume of it adds it back)."""


@register_event
class SandboxWarning(Event):
    kind: Literal["sandbox_warning"] = "sandbox_warning"
    message: str


# -- context management --------------------------------------------------------------------------
@register_event
class ContextWindow(Event):
    kind: Literal["context_window"] = "context_window"
    window: int
    was: int


@register_event
class Stall(Event):
    kind: Literal["stall"] = "stall"
    sign: str
    note: str = ""


@register_event
class Compaction(Event):
    kind: Literal["compaction"] = "compaction"
    reason: str = ""
    summary: str
    replaced: int
    """How many messages after the first the summary replaced."""
    kept: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    window: int = 0
    fallback: bool = False
    """The summary model failed: a mechanical digest stands in for its summary."""
    error: str = ""
    model: str = ""
    usage: Usage | None = None
    usd: float = 0.0


@register_event
class CompactionSkipped(Event):
    kind: Literal["compaction_skipped"] = "compaction_skipped"
    reason: str = ""
    messages: int | None = None
    problems: list[str] | None = None


@register_event
class ContextCut(Event):
    kind: Literal["context_cut"] = "context_cut"
    block: str
    tokens_before: int = 0
    tokens_after: int = 0
    saved: str = ""
    target: int = 0


# -- plan and finish -----------------------------------------------------------------------------
@register_event
class PlanEvent(Event):
    kind: Literal["plan"] = "plan"
    action: str
    items: list[dict[str, Any]] = Field(default_factory=list)
    facts: dict[str, str] = Field(default_factory=dict)


@register_event
class PlanReverted(Event):
    kind: Literal["plan_reverted"] = "plan_reverted"
    reason: str
    items: list[str] = Field(default_factory=list)


@register_event
class FinishCalled(Event):
    kind: Literal["finish_called"] = "finish_called"
    summary: str = ""
    infeasible: bool = False


# -- the user -----------------------------------------------------------------------------------
@register_event
class UserQuestion(Event):
    """The main agent asked the user (`ask_user`); `answerer` says who was to answer."""

    kind: Literal["user_question"] = "user_question"
    question: str
    answerer: str = ""
    """`terminal`, `scripted`, `relay`, `simulated` or `nobody`."""


@register_event
class UserAnswer(Event):
    """The answer to the last `user_question`; None: no one answered (`reason` says why)."""

    kind: Literal["user_answer"] = "user_answer"
    answer: str | None = None
    answerer: str = ""
    reason: str = ""
    seconds: float = 0.0


def parse_event(record: Any, lenient: bool = False) -> Event:
    """The typed event of one decoded log line; a kind not registered gives an `Event`.

    Raises ValidationError when a field has the wrong type, unless `lenient`: then a wrong or missing
    field takes its default (a text field the value's text), and an event that still does not fit reads
    as a generic `Event` of its kind — for reports over logs from other versions.
    """
    if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
        raise EventLogError("not an event (a JSON object with a string `kind`)")
    model = EVENT_TYPES.get(record["kind"])
    if model is None:
        return Event.model_validate(record)
    if lenient:
        return _repaired(model, record)
    return model.model_validate(record)


_ZEROS: dict[type, Any] = {str: "", int: 0, float: 0.0, bool: False, list: [], dict: {}}


def _zero(annotation: Any) -> Any:
    """The empty value of a field's type (None for an optional one; None when there is none)."""
    if get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation):
        return None
    return deepcopy(_ZEROS.get(get_origin(annotation) or annotation))


def _repaired(model: type[Event], record: dict[str, Any]) -> Event:
    try:
        return model.model_validate(record)
    except ValidationError as error:
        problems = error.errors()
    fixed = dict(record)
    for problem in problems:
        name = str(problem["loc"][0])
        field = model.model_fields.get(name)
        if field is None:
            continue
        value = record.get(name)
        if field.annotation is str and value is not None:
            fixed[name] = value if isinstance(value, str) else str(value)
        elif field.is_required():
            fixed[name] = _zero(field.annotation)
        else:
            fixed.pop(name, None)
    try:
        return model.model_validate(fixed)
    except ValidationError:
        scope = record.get("scope")
        return Event(kind=record["kind"], scope=scope if isinstance(scope, str) else "main")


DAMAGED_LOG_ADVICE = (
    "the log is damaged there, and replaying it would rebuild a wrong conversation: restore the line "
    "from a backup, or start the task again in a new run"
)


def read_jsonl(path: Path, on_damaged: Callable[[int], None] | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) of each JSON line of a file, skipping blank lines.

    A last line that is not JSON is a torn line (the writer died mid-write) and is skipped. Any other line
    that is not JSON is damage: it raises EventLogError naming the line, or, with `on_damaged`, is
    skipped after `on_damaged(line number)`.
    """
    torn: int | None = None
    with Path(path).open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.strip()
            if not line:
                continue
            if torn is not None:
                _damaged(path, torn, on_damaged)
                torn = None
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError:
                torn = number


def _damaged(path: Path, number: int, on_damaged: Callable[[int], None] | None) -> None:
    if on_damaged is None:
        raise EventLogError(f"{path} line {number} is not JSON; {DAMAGED_LOG_ADVICE}")
    on_damaged(number)


def read_events(
    path: Path, lenient: bool = False, on_damaged: Callable[[int], None] | None = None
) -> Iterator[Event]:
    """The typed events of a log, in order, skipping a torn last line.

    A line that is not JSON before the last one, a line that is not an event, or an event field of the
    wrong type raises EventLogError naming the file and line. `lenient` (reports over logs from other
    versions) skips the first two and repairs the third; `on_damaged` is told of each line not JSON
    (then skipped) instead of the error.
    """
    if lenient and on_damaged is None:
        on_damaged = ignore_damaged
    for number, record in read_jsonl(path, on_damaged):
        try:
            yield parse_event(record, lenient)
        except (EventLogError, ValidationError) as exc:
            if lenient and isinstance(exc, EventLogError):
                continue
            raise EventLogError(f"{path} line {number}: {_describe(record, exc)}") from exc


def ignore_damaged(number: int) -> None:
    """For `on_damaged` of readers that make reports: a damaged line is skipped without a word."""


def _describe(record: Any, exc: Exception) -> str:
    if not isinstance(exc, ValidationError):
        return str(exc)
    problems = "; ".join(
        f"field `{'.'.join(str(p) for p in e['loc'])}`: {e['msg']}" for e in exc.errors(include_url=False)
    )
    return f"bad `{record['kind']}` event: {problems}"
