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


def _texts(blocks: list[dict]) -> str:
    return "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text" and b.get("text"))


def _images(blocks: list[dict], run_dir: Path) -> list[str]:
    return [
        b["path"]
        for b in blocks
        if b.get("type") == "image" and b.get("path") and (run_dir / b["path"]).is_file()
    ]


CallKey = tuple[str, str]
"""(scope, tool_use id): ids are unique only within one loop's model."""


class _Results:
    """Tool results as their messages carry them (full text and images), by scope and tool_use id."""

    def __init__(self) -> None:
        self.by_call: dict[CallKey, tuple[str, list[str]]] = {}

    def add(self, scope: str, blocks: list[dict], run_dir: Path) -> None:
        for block in blocks:
            if block.get("type") == "tool_result":
                content = block.get("content", [])
                self.by_call[(scope, block.get("tool_use_id", ""))] = (
                    _texts(content),
                    _images(content, run_dir),
                )


def _format_input(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        return next(iter(value.values()))
    return json.dumps(value, indent=2, ensure_ascii=False)


def _findings(event: dict) -> str:
    lines = [event.get("summary", "")] if event.get("summary") else []
    for finding in event.get("findings", []):
        lines.append(f"- [{finding.get('location', '')}] {finding.get('problem', '')}")
        if finding.get("evidence"):
            lines.append(f"  evidence: {finding['evidence']}")
    for item in event.get("checklist", []):
        lines.append(f"* {item.get('result', '?')}: {item.get('requirement', '')}")
    lines += [f"! {v}" for v in event.get("violations", [])]
    return "\n".join(lines)


def trajectory_steps(run_dir: Path) -> list[Step]:
    """The steps of a run folder's events.jsonl, in order; empty when there is no log."""
    run_dir = Path(run_dir)
    path = run_dir / "events.jsonl"
    if not path.is_file():
        return []
    events = list(read_events(path))
    results = _Results()
    for event in events:
        if event.get("kind") == "message" and event.get("message", {}).get("role") == "user":
            results.add(str(event.get("scope", "main")), event["message"].get("content", []), run_dir)
    steps: list[Step] = []
    calls: dict[CallKey, Step] = {}
    for event in events:
        step = _step(event, run_dir, results, calls)
        if step is not None:
            steps.append(step)
    return steps


def _step(event: dict, run_dir: Path, results: _Results, calls: dict[CallKey, Step]) -> Step | None:
    kind, scope = event.get("kind", ""), str(event.get("scope", "main"))
    if kind == "message":
        message = event.get("message", {})
        blocks = message.get("content", [])
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
                text or event.get("text", ""),
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
        summary = f"{event.get('turns', 0)} main turns, ${float(event.get('usd', 0)):.4f}"
        return Step("run", scope, f"run ends: {event.get('status', '?')}", summary)
    return None
