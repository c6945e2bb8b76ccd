"""Rebuilding a stopped run from its event log, so it can go on where it stopped.

The log is the source of truth: the main conversation is replayed from its
`message` events with each `compaction` applied where it happened and each earlier resume's notice
put back; spend comes from `response` events and from the compactions' summary calls; a tool call
left without a result (the process died during it) gets a result saying its outcome is unknown,
with the steps its subagent had logged when it was a delegation.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from stateact.app.config import RunConfig
from stateact.kernel.context.compaction import apply_compaction
from stateact.kernel.events import (
    LOGGED_TEXT_CHARS,
    Compaction,
    Event,
    EventLogError,
    LoopEnd,
    MessageEvent,
    Response,
    RunResumed,
    RunStart,
    ToolCall,
    ToolResultEvent,
    read_events,
)
from stateact.kernel.loop import UNKNOWN_OUTCOME, AgentLoop
from stateact.kernel.messages import Message, TextBlock, ToolResultBlock, Usage
from stateact.kernel.meter import Meter
from stateact.kernel.roles import MAIN, is_numbered_scope, role_of_scope
from stateact.kernel.runlog import load_message
from stateact.kernel.runtime import RunContext

STEPS_SHOWN = 12
"""The latest steps of an interrupted delegation's subagent that its result lists."""
STEP_TEXT_CHARS = 240


class ResumeError(RuntimeError):
    """The folder cannot be resumed (no log, already finished, unreadable config)."""


@dataclass
class RunState:
    """What a run had done when it stopped."""

    config: RunConfig
    history: list[Message]
    main_turns: int
    spend: list[tuple[str, Usage, float]]
    """(role, usage, dollars) of every model call."""
    completed_responses: Counter = field(default_factory=Counter)
    """Model calls per role made by loops that ended (a loop cut short is replayed whole): what a
    provider with a place of its own (a script) takes up from."""
    elapsed_s: float = 0.0
    sandbox_tags: list[str] = field(default_factory=list)
    status: str = ""
    instruction: str = ""
    """The instruction as the agent first saw it (after a task's path mapping)."""
    task_started_at: float | None = None
    """The sandbox's clock when the task first started."""
    events: list[Event] = field(default_factory=list)


def load_run_state(run_dir: Path) -> RunState:
    """Read a run folder back; raises ResumeError when there is nothing to resume."""
    run_dir = Path(run_dir)
    try:
        config = RunConfig.model_validate_json((run_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResumeError(f"{run_dir} has no readable config.json: {exc}") from exc
    if not (run_dir / "events.jsonl").exists():
        raise ResumeError(f"{run_dir} has no events.jsonl")
    history: list[Message] = []
    spend: list[tuple[str, Usage, float]] = []
    pending: Counter = Counter()
    completed: Counter = Counter()
    main_turns = 0
    elapsed = 0.0
    segment_start = last_t = None
    tags: list[str] = []
    instruction = ""
    task_started_at = None
    try:
        events = list(read_events(run_dir / "events.jsonl"))
    except EventLogError as exc:
        raise ResumeError(str(exc)) from exc
    for event in events:
        scope = event.scope
        # the time between a death and a resume is not spent
        if isinstance(event, RunStart) or segment_start is None:
            elapsed += (last_t - segment_start) if segment_start is not None else 0.0
            segment_start = event.t
        last_t = event.t
        if isinstance(event, RunStart):
            tags += [event.sandbox_tag] if event.sandbox_tag else []
            instruction = instruction or event.instruction
            task_started_at = task_started_at or event.task_started_at
        if isinstance(event, Response):
            spend.append((event.role or role_of_scope(scope), event.usage, event.usd))
            pending[scope] += 1
            main_turns += scope == MAIN
        elif isinstance(event, Compaction) and event.usage is not None:
            spend.append(("compactor", event.usage, event.usd))
        elif isinstance(event, LoopEnd):
            completed[role_of_scope(scope)] += pending.pop(scope, 0)
        if scope != MAIN:
            continue
        if isinstance(event, MessageEvent):
            history.append(load_message(event.message, run_dir))
        elif isinstance(event, Compaction):
            history = apply_compaction(history, event.summary, event.replaced)
        elif isinstance(event, RunResumed) and event.note and history:
            history[-1] = with_text(history[-1], event.note)
    completed[MAIN] = main_turns
    status = _read_status(run_dir)
    elapsed += (last_t - segment_start) if segment_start is not None else 0.0
    return RunState(
        config,
        history,
        main_turns,
        spend,
        completed,
        elapsed,
        tags,
        status,
        instruction,
        task_started_at,
        events,
    )


def _read_status(run_dir: Path) -> str:
    try:
        return json.loads((run_dir / "result.json").read_text(encoding="utf-8")).get("status", "")
    except (OSError, ValueError):
        return ""


def with_text(message: Message, text: str) -> Message:
    return Message(role=message.role, content=[*message.content, TextBlock(text=text)])


def restore_loop(loop: AgentLoop, state: RunState, context: RunContext, note: str) -> None:
    """Put a fresh main loop where the stopped one was, and tell the agent what happened (`note`)."""
    if not state.history:
        raise ResumeError("the run stopped before its first message; start it again instead")
    loop.restore(state.history, state.main_turns, state.elapsed_s)
    _restore_spend(context.meter, state)
    for role, count in state.completed_responses.items():
        context.provider(role).take_up(count)
    last = loop.messages[-1]
    unanswered = last.tool_uses() if last.role == "assistant" else []
    done = {e.id: e for e in state.events if isinstance(e, ToolResultEvent) and e.scope == MAIN}
    notes: list[TextBlock | ToolResultBlock] = [
        _logged_result(done[call.id])
        if call.id in done
        else ToolResultBlock(
            tool_use_id=call.id,
            content=[TextBlock(text=interrupted_call_text(state.events, call.id))],
            is_error=True,
        )
        for call in unanswered
    ]
    if last.role == "assistant" and not unanswered:
        notes.append(TextBlock(text="Continue the task with a tool call; call `finish` when it is complete."))
    notes.append(TextBlock(text=note))
    if last.role == "user":  # logged with the RunResumed event below, which a later resume replays
        loop.messages[-1] = with_text(last, note)
    else:
        loop.append(Message(role="user", content=notes))
    context.log.emit(
        RunResumed(
            turns=state.main_turns,
            messages=len(loop.messages),
            unknown_outcomes=[c.id for c in unanswered if c.id not in done],
            note=note if last.role == "user" else "",
        )
    )


def _logged_result(result: ToolResultEvent) -> ToolResultBlock:
    """A call of the cut turn that had finished before the stop: its result as the log kept it."""
    text = result.text
    if len(text) >= LOGGED_TEXT_CHARS:
        text += "\n[the rest of this result was not kept: run the call again to see it whole]"
    if result.images:
        text += f"\n[{result.images} image(s) of this result are not shown again]"
    return ToolResultBlock(tool_use_id=result.id, content=[TextBlock(text=text)], is_error=result.is_error)


def interrupted_call_text(events: Sequence[Event], call_id: str) -> str:
    """The result of a main-agent call the stop cut short: its outcome is unknown, and when it was a
    delegation, the steps its subagent had logged (calls and results) and every turn's words."""
    start = next(
        (i for i, e in enumerate(events) if isinstance(e, ToolCall) and e.scope == MAIN and e.id == call_id),
        None,
    )
    later = events[start + 1 :] if start is not None else []
    scope = next((e.scope for e in later if is_numbered_scope(e.scope)), None)
    if scope is None:
        return UNKNOWN_OUTCOME
    results = {e.id: e for e in later if isinstance(e, ToolResultEvent) and e.scope == scope}
    calls = [e for e in later if isinstance(e, ToolCall) and e.scope == scope]
    lines = [
        f"The run was interrupted during this call, while its subagent {scope} was working: the call "
        f"returned no report. What {scope} had done before the stop ({len(calls)} tool "
        + ("call" if len(calls) == 1 else "calls")
        + (f", the latest {STEPS_SHOWN} shown" if len(calls) > STEPS_SHOWN else "")
        + "):"
    ]
    for call in calls[-STEPS_SHOWN:]:
        result = results.get(call.id)
        outcome = _clip(result.text) if result is not None else "no result: the stop came during this step"
        failed = " (error)" if result is not None and result.is_error else ""
        lines.append(
            f"- {call.name} {_clip(json.dumps(call.input, ensure_ascii=False))} -> {outcome}{failed}"
        )
    if not calls:
        lines.append("- no step finished")
    words = [
        e.message.text() for e in later if isinstance(e, MessageEvent) and e.scope == scope
        and e.message.role == "assistant" and e.message.text().strip()
    ]  # fmt: skip
    if words:  # every turn's words: a value the subagent read may be in any of them
        lines.append("What it said, turn by turn:")
        lines += [f"- {_clip(text)}" for text in words]
    lines.append("Check the machine's state before doing any of this again: the steps above took effect.")
    return "\n".join(lines)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= STEP_TEXT_CHARS else text[:STEP_TEXT_CHARS] + "…"


def _restore_spend(meter: Meter, state: RunState) -> None:
    for role, usage, usd in state.spend:
        meter.add(role, usage, usd)
