"""A run folder's events as the steps of a trajectory viewer.

Each step has a kind: `text` (what a model said), `tool` (a call with its
result and screenshots), `observation` (images handed to a loop outside a tool
result), `loop` (a subagent or gate loop starting or ending), `compaction`,
`gate` (a verdict with its findings), `stall`, `error`, `run`
(start and end). Scopes (`main`, `gui#1`, `web#1`, `gate#1`) are kept so a
viewer can show delegations nested. Images are paths relative to the run folder,
listed only when the file exists.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateact.evals.running.midrun_events import ScheduledChangeMade, StepBudgetScored
from stateact.evals.running.results import ASK_USER, ENV_CHANGE
from stateact.gate.events import GateVerdict
from stateact.kernel.events import (
    Compaction,
    ErrorEvent,
    Event,
    LoopEnd,
    LoopStart,
    MessageEvent,
    RunEnd,
    RunStart,
    Stall,
    ToolCall,
    ToolResultEvent,
    UserAnswer,
    ignore_damaged,
    read_events,
    read_jsonl,
)
from stateact.kernel.messages import ContentBlock, ImageBlock, Message, TextBlock


@dataclass
class Step:
    kind: str
    scope: str
    title: str
    body: str = ""
    detail: str = ""
    """A second text (a tool's result, a verdict's findings)."""
    images: list[str] = field(default_factory=list)
    is_error: bool = False
    passed: bool | None = None

    def __post_init__(self) -> None:
        self.title, self.body, self.detail = str(self.title), str(self.body or ""), str(self.detail or "")


def dicts(value: Any) -> list[dict]:
    """The dict items of a list (a traj.jsonl written by another runner may hold anything)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _texts(blocks: Sequence[ContentBlock]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock) and b.text)


def _images(blocks: Sequence[ContentBlock], run_dir: Path) -> list[str]:
    return [b.path for b in blocks if isinstance(b, ImageBlock) and b.path and (run_dir / b.path).is_file()]


CallKey = tuple[str, str]
"""(scope, tool_use id): ids are unique only within one loop's model."""


class _Results:
    """Tool results as their messages carry them (full text and images), by scope and tool_use id."""

    def __init__(self) -> None:
        self.by_call: dict[CallKey, tuple[str, list[str]]] = {}

    def add(self, scope: str, message: Message, run_dir: Path) -> None:
        for block in message.tool_results():
            self.by_call[(scope, block.tool_use_id)] = (
                _texts(block.content),
                _images(block.content, run_dir),
            )


def _format_input(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        return next(iter(value.values()))
    return json.dumps(value, indent=2, ensure_ascii=False)


def _findings(event: GateVerdict) -> str:
    lines = [event.summary] if event.summary else []
    for finding in event.findings:
        lines.append(f"- [{finding.get('location', '')}] {finding.get('problem', '')}")
        if finding.get("evidence"):
            lines.append(f"  evidence: {finding['evidence']}")
    lines += [f"* {item.get('result', '?')}: {item.get('requirement', '')}" for item in event.checklist]
    lines += [f"! {v}" for v in event.violations]
    return "\n".join(lines)


def trajectory_steps(run_dir: Path) -> list[Step]:
    """The steps of a run folder's events.jsonl, in order; empty when there is no log.

    The log is read leniently: a log from another version or a crash gives gaps, not an error."""
    run_dir = Path(run_dir)
    path = run_dir / "events.jsonl"
    if not path.is_file():
        return []
    events = list(read_events(path, lenient=True))
    results = _Results()
    for event in events:
        if isinstance(event, MessageEvent) and event.message.role == "user":
            results.add(event.scope, event.message, run_dir)
    steps: list[Step] = []
    calls: dict[CallKey, Step] = {}
    for event in events:
        step = _step(event, run_dir, results, calls)
        if step is not None:
            steps.append(step)
    return steps


def _step(event: Event, run_dir: Path, results: _Results, calls: dict[CallKey, Step]) -> Step | None:
    scope = event.scope
    if isinstance(event, MessageEvent):
        blocks = event.message.content
        if event.message.role == "assistant":
            text = _texts(blocks)
            return Step("text", scope, "model", text) if text else None
        images = _images(blocks, run_dir)
        text = _texts(blocks)
        if images or (text and scope != "main"):
            return Step("observation", scope, "input", text, images=images)
        return None
    if isinstance(event, ToolCall):
        step = Step("tool", scope, event.name or "?", _format_input(event.input))
        calls[(scope, event.id)] = step
        return step
    if isinstance(event, ToolResultEvent):
        key = (scope, event.id)
        step = calls.get(key)
        if step is not None:
            text, images = results.by_call.get(key, (event.text, []))
            step.detail, step.images, step.is_error = text or event.text, images, event.is_error
        return None
    return _marker(event)


def _marker(event: Event) -> Step | None:
    """Steps that are not model turns: loops, compactions, gate verdicts, stalls, errors, start and end."""
    scope = event.scope
    if isinstance(event, LoopStart | LoopEnd) and scope != "main":
        started = isinstance(event, LoopStart)
        return Step("loop", scope, f"{scope} {'starts' if started else 'ends'}", getattr(event, "model", ""))
    if isinstance(event, Compaction):
        title = f"compaction: {event.tokens_before} -> {event.tokens_after} tokens"
        return Step("compaction", scope, title, event.summary)
    if isinstance(event, GateVerdict):
        passed = bool(event.passed)
        title = f"gate round {event.round}: {'PASS' if passed else 'FAIL'} ({event.source})"
        return Step("gate", scope, title, detail=_findings(event), passed=passed)
    if isinstance(event, Stall):
        return Step("stall", scope, f"stall: {event.sign}", event.note)
    if isinstance(event, UserAnswer):
        answer = event.answer if event.answer is not None else f"(no answer: {event.reason})"
        return Step("user", scope, f"the user answers ({event.answerer})", answer)
    if isinstance(event, ScheduledChangeMade):
        title = f"scheduled change {event.id} made {event.trigger} (at step {event.at_step})"
        body = json.dumps(event.steps, indent=2, ensure_ascii=False)
        return Step("change", scope, title, body, event.failed, is_error=bool(event.failed))
    if isinstance(event, StepBudgetScored):
        score = "skipped" if event.skipped else "error" if event.error else f"{event.score:g}"
        return Step(
            "budget", scope, f"score at step budget {event.budget}: {score}", event.skipped or event.error
        )
    if isinstance(event, ErrorEvent):
        return Step("error", scope, f"error: {event.error}", event.message, is_error=True)
    if isinstance(event, RunStart):
        return Step("run", scope, f"run starts ({event.harness or '?'})", event.instruction)
    if isinstance(event, RunEnd):
        return Step(
            "run",
            scope,
            f"run ends: {event.status}",
            f"{event.turns} main turns, ${event.usd:.4f}",
            is_error=event.status == "error",
        )
    return None


OSWORLD_TRAJECTORY = "traj.jsonl"


def osworld_steps(result_dir: Path) -> list[Step]:
    """The steps of OSWorld's `traj.jsonl` in a task's results folder (for results without a run log).

    Each line is one action: the model's words (`response`) when they change, then the action (a tool
    call with its input, or OSWorld's pyautogui code) with its result and screenshot, then the tool
    calls of any subagent that ran inside it (`info.subagent_steps`), nested under their scopes.
    """
    path = Path(result_dir) / OSWORLD_TRAJECTORY
    if not path.is_file():
        return []
    steps: list[Step] = []
    last_words: dict[str, str] = {}
    for line in dicts([value for _, value in read_jsonl(path, ignore_damaged)]):
        info = line.get("info") if isinstance(line.get("info"), dict) else {}
        shot = line.get("screenshot_file")
        images = [shot] if isinstance(shot, str) and shot and (Path(result_dir) / shot).is_file() else []
        _add_action(steps, last_words, str(info.get("scope", "main")), line, info, images)
        for sub in dicts(info.get("subagent_steps")):
            _add_action(steps, last_words, str(sub.get("scope", "sub")), sub, sub, [])
    return steps


def _add_action(
    steps: list[Step], last_words: dict[str, str], scope: str, line: dict, info: dict, images: list[str]
) -> None:
    """One traj action as steps: the model's words when they changed in its scope, then the call."""
    words = str(line.get("response") or "")
    if words and words != last_words.get(scope):
        steps.append(Step("text", scope, "model", words))
    last_words[scope] = words
    action = line.get("action")
    if isinstance(action, dict) and "tool" in action:
        title, body = str(action["tool"]), _format_input(action.get("input", {}))
    elif action == ASK_USER:
        title, body = "ask_user", str(line.get("question", ""))
        info = {**info, "result": f"the user answered: {line.get('user_response')}"}
    elif action == ENV_CHANGE:
        title = f"scheduled change {line.get('change', '?')} (after step {line.get('after_step', '?')})"
        body, info = json.dumps(info.get("steps", []), indent=2), {**info, "result": info.get("failed", "")}
    else:
        title, body = "action", action if isinstance(action, str) else json.dumps(action)
    steps.append(
        Step("tool", scope, title, body, str(info.get("result", "")), images, bool(info.get("is_error")))
    )
