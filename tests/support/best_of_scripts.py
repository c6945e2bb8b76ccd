"""Scripted best-of-N rollouts for the tests and the benchmark: one script per rollout played through
the Anthropic wire server, and a judge that decides from the state evidence of its request."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable

from tests.support.wire_servers import WireError, anthropic_error, anthropic_reply

MODEL = "claude-sonnet-5-5"
MARKER = "NARRATION-7F3A"
"""Written by the main agent in its text and finish summary: the judge must never see it."""
RIGHT = {"budget.xlsx": ("B5", "1440"), "rates.xlsx": ("B3", "300")}


def _write_cells(path: str, sheet: str, cells: dict[str, object]) -> str:
    sets = "; ".join(f'ws["{ref}"] = {json.dumps(value)}' for ref, value in cells.items())
    return (
        f'python3 -c \'import os, openpyxl; p = os.path.expanduser("{path}"); wb = openpyxl.load_workbook(p); '
        f'ws = wb["{sheet}"]; {sets}; wb.save(p)\''
    )


Script = Callable[[str], list]
"""The turns of one rollout, given the path of the workbook its instruction names."""


def rollout(sheet: str, cells: dict[str, object]) -> Script:
    """A rollout that writes `cells` and claims, in words, that it is right."""
    return lambda path: [
        anthropic_reply(
            text=f"{MARKER}: writing the cells.",
            tool_calls=[("bash", {"command": _write_cells(path, sheet, cells)})],
        ),
        anthropic_reply(
            text=f"{MARKER}: checked twice, this one is correct.",
            tool_calls=[("finish", {"summary": f"{MARKER} saved the correct value"})],
        ),
    ]


REFUSED = anthropic_error(400, "invalid_request_error", "this rollout's request is refused")
"""What a rollout gets once its task's scripts are taken: its run ends with a provider error."""


class RolloutRouter:
    """Plays one script per rollout. A conversation's first request takes the next script of its task
    (named by the workbook its instruction names), or REFUSED once they are taken; its later requests
    follow the tool_use ids of the turns it was played."""

    def __init__(self, scripts: dict[str, list[Script]]) -> None:
        self.scripts = {key: list(value) for key, value in scripts.items()}
        self.by_id: dict[str, list] = {}
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> dict | WireError:
        with self.lock:
            ids = [
                block["id"]
                for message in body["messages"]
                if message["role"] == "assistant" and isinstance(message["content"], list)
                for block in message["content"]
                if block.get("type") == "tool_use"
            ]
            if ids:
                script = self.by_id[ids[-1]]
            else:
                path = re.search(r"In (\S+\.xlsx)", json.dumps(body["messages"][0])).group(1)
                left = self.scripts[next(key for key in self.scripts if path.endswith(key))]
                if not left:
                    return REFUSED
                script = left.pop(0)(path)
            turn = script.pop(0)
            for block in turn["content"]:
                if block["type"] == "tool_use":
                    self.by_id[block["id"]] = script
            return turn


def budget_totals(*totals: int) -> RolloutRouter:
    """Rollouts of the budget task, one per total it writes into Costs!B5 (1440 is right)."""
    return RolloutRouter(
        {"budget.xlsx": [rollout("Costs", {"A5": "Total", "B5": total}) for total in totals]}
    )


def read_request(body: dict) -> tuple[dict[int, str], str, str]:
    """A judge request's candidate sections by number, and the cell and value its task needs."""
    message = body["messages"][0]["content"]
    message = message if isinstance(message, str) else "\n".join(b.get("text", "") for b in message)
    ref, value = next(RIGHT[name] for name in RIGHT if name in message)
    sections = re.split(r"^## Candidate (\d+)$", message, flags=re.M)[1:]
    return {int(n): text for n, text in zip(sections[::2], sections[1::2], strict=True)}, ref, value


def shows(section: str, ref: str, value: str) -> bool:
    """Whether a candidate's state diff shows `value` written into `ref`."""
    return re.search(rf"!{ref}: \(empty\) → {value}$", section, flags=re.M) is not None


def judge_turn(body: dict) -> dict:
    """The judge's reply, decided from the evidence in its request: the candidate whose state diff
    shows the right value in the right cell (the first candidate when none does)."""
    candidates, ref, value = read_request(body)
    right = [n for n, section in candidates.items() if shows(section, ref, value)]
    pick = right[0] if right else min(candidates)
    rows = [{"requirement": f"{ref} holds {value}", "candidates": {str(n): "read" for n in candidates}}]
    return anthropic_reply(
        tool_calls=[("pick", {"candidate": pick, "requirements": rows, "reasons": f"{ref} = {value}"})]
    )
