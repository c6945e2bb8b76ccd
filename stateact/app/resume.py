"""Rebuilding a stopped run from its event log, so it can go on where it stopped.

The log is the source of truth: the main conversation is replayed from its
`message` events with each `compaction` applied where it happened; spend comes
from `response` events; a tool call left without a result (the process died
during it) gets a result saying its outcome is unknown.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from stateact.app.config import RunConfig
from stateact.kernel.compaction import apply_compaction
from stateact.kernel.events import (
    Compaction,
    Event,
    EventLogError,
    LoopEnd,
    MessageEvent,
    Response,
    RunResumed,
    RunStart,
    read_events,
)
from stateact.kernel.loop import UNKNOWN_OUTCOME, AgentLoop
from stateact.kernel.messages import Message, TextBlock, ToolResultBlock, Usage
from stateact.kernel.meter import Meter
from stateact.kernel.roles import MAIN, role_of_scope
from stateact.kernel.runlog import load_message
from stateact.kernel.runtime import RunContext

RESUME_NOTE = (
    "The run was stopped and has been resumed. Files persist, but programs that were running "
    "(open applications, the shell's variables and background jobs) were restarted. Check the "
    "state you rely on before going on."
)


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
        elif isinstance(event, LoopEnd):
            completed[role_of_scope(scope)] += pending.pop(scope, 0)
        if scope != MAIN:
            continue
        if isinstance(event, MessageEvent):
            history.append(load_message(event.message, run_dir))
        elif isinstance(event, Compaction):
            history = apply_compaction(history, event.summary, event.replaced)
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


def restore_loop(loop: AgentLoop, state: RunState, context: RunContext) -> None:
    """Put a fresh main loop where the stopped one was, and tell the agent what happened."""
    if not state.history:
        raise ResumeError("the run stopped before its first message; start it again instead")
    loop.restore(state.history, state.main_turns, state.elapsed_s)
    _restore_spend(context.meter, state)
    for role, count in state.completed_responses.items():
        context.provider(role).take_up(count)
    last = loop.messages[-1]
    unanswered = last.tool_uses() if last.role == "assistant" else []
    notes: list[TextBlock | ToolResultBlock] = [
        ToolResultBlock(tool_use_id=call.id, content=[TextBlock(text=UNKNOWN_OUTCOME)], is_error=True)
        for call in unanswered
    ]
    if last.role == "assistant" and not unanswered:
        notes.append(TextBlock(text="Continue the task with a tool call; call `finish` when it is complete."))
    notes.append(TextBlock(text=RESUME_NOTE))
    if last.role == "user":
        loop.messages[-1] = Message(role="user", content=[*last.content, TextBlock(text=RESUME_NOTE)])
    else:
        loop.append(Message(role="user", content=notes))
    context.log.emit(
        RunResumed(
            turns=state.main_turns, messages=len(loop.messages), unknown_outcomes=[c.id for c in unanswered]
        )
    )


def _restore_spend(meter: Meter, state: RunState) -> None:
    for role, usage, usd in state.spend:
        meter.add(role, usage, usd)
