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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateact.runlog import read_events


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
    """The dict items of a list (a log written by another version may hold anything)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _texts(blocks: Any) -> str:
    return "\n".join(str(b["text"]) for b in dicts(blocks) if b.get("type") == "text" and b.get("text"))


def _images(blocks: Any, run_dir: Path) -> list[str]:
    return [
        b["path"]
        for b in dicts(blocks)
        if b.get("type") == "image" and isinstance(b.get("path"), str) and (run_dir / b["path"]).is_file()
    ]


CallKey = tuple[str, str]
"""(scope, tool_use id): ids are unique only within one loop's model."""


class _Results:
    """Tool results as their messages carry them (full text and images), by scope and tool_use id."""

    def __init__(self) -> None:
        self.by_call: dict[CallKey, tuple[str, list[str]]] = {}

    def add(self, scope: str, blocks: Any, run_dir: Path) -> None:
        for block in dicts(blocks):
            if block.get("type") == "tool_result":
                content = block.get("content", [])
                self.by_call[(scope, str(block.get("tool_use_id", "")))] = (
                    _texts(content),
                    _images(content, run_dir),
                )


def _format_input(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        return next(iter(value.values()))
    return json.dumps(value, indent=2, ensure_ascii=False)


def _findings(event: dict) -> str:
    lines = [str(event["summary"])] if event.get("summary") else []
    for finding in dicts(event.get("findings")):
        lines.append(f"- [{finding.get('location', '')}] {finding.get('problem', '')}")
        if finding.get("evidence"):
            lines.append(f"  evidence: {finding['evidence']}")
    for item in dicts(event.get("checklist")):
        lines.append(f"* {item.get('result', '?')}: {item.get('requirement', '')}")
    violations = event.get("violations")
    lines += [f"! {v}" for v in violations] if isinstance(violations, list) else []
    return "\n".join(lines)


def trajectory_steps(run_dir: Path) -> list[Step]:
    """The steps of a run folder's events.jsonl, in order; empty when there is no log."""
    run_dir = Path(run_dir)
    path = run_dir / "events.jsonl"
    if not path.is_file():
        return []
    events = [event for event in read_events(path) if isinstance(event, dict)]
    results = _Results()
    for event in events:
        message = _message(event)
        if message.get("role") == "user":
            results.add(str(event.get("scope", "main")), message.get("content"), run_dir)
    steps: list[Step] = []
    calls: dict[CallKey, Step] = {}
    for event in events:
        step = _step(event, run_dir, results, calls)
        if step is not None:
            steps.append(step)
    return steps


def _message(event: dict) -> dict:
    message = event.get("message") if event.get("kind") == "message" else None
    return message if isinstance(message, dict) else {}


def _step(event: dict, run_dir: Path, results: _Results, calls: dict[CallKey, Step]) -> Step | None:
    kind, scope = event.get("kind", ""), str(event.get("scope", "main"))
    if kind == "message":
        message = _message(event)
        blocks = message.get("content")
        if message.get("role") == "assistant":
            text = _texts(blocks)
            return Step("text", scope, "model", text) if text else None
        images = _images(blocks, run_dir)
        text = _texts(blocks)
        if images or (text and scope != "main"):
            return Step("observation", scope, "input", text, images=images)
        return None
    if kind == "tool_call":
        step = Step("tool", scope, str(event.get("name", "?")), _format_input(event.get("input", {})))
        calls[(scope, str(event.get("id", "")))] = step
        return step
    if kind == "tool_result":
        key = (scope, str(event.get("id", "")))
        step = calls.get(key)
        if step is not None:
            text, images = results.by_call.get(key, (event.get("text", ""), []))
            step.detail, step.images, step.is_error = (
                str(text or event.get("text") or ""),
                images,
                bool(event.get("is_error")),
            )
        return None
    return _marker(kind, scope, event)


def _marker(kind: str, scope: str, event: dict) -> Step | None:
    """Steps that are not model turns: loops, compactions, gate verdicts, stalls, errors, start and end."""
    if kind in ("loop_start", "loop_end") and scope != "main":
        return Step(
            "loop", scope, f"{scope} {'starts' if kind == 'loop_start' else 'ends'}", event.get("model", "")
        )
    if kind == "compaction":
        title = f"compaction: {event.get('tokens_before', '?')} -> {event.get('tokens_after', '?')} tokens"
        return Step("compaction", scope, title, event.get("summary", ""))
    if kind == "gate_verdict":
        passed = bool(event.get("passed"))
        title = f"gate round {event.get('round', '?')}: {'PASS' if passed else 'FAIL'} ({event.get('source', 'model')})"
        return Step("gate", scope, title, detail=_findings(event), passed=passed)
    if kind == "stall":
        return Step("stall", scope, f"stall: {event.get('sign', '')}", event.get("note", ""))
    if kind == "error":
        return Step(
            "error", scope, f"error: {event.get('error', '')}", event.get("message", ""), is_error=True
        )
    if kind == "run_start":
        return Step("run", scope, f"run starts ({event.get('harness', '?')})", event.get("instruction", ""))
    if kind == "run_end":
        usd = event.get("usd")
        summary = f"{event.get('turns', 0)} main turns" + (
            f", ${usd:.4f}" if isinstance(usd, int | float) else ""
        )
        return Step("run", scope, f"run ends: {event.get('status', '?')}", summary)
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
    for line in dicts(list(read_events(path))):
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
    else:
        title, body = "action", action if isinstance(action, str) else json.dumps(action)
    steps.append(
        Step("tool", scope, title, body, str(info.get("result", "")), images, bool(info.get("is_error")))
    )
