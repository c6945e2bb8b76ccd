"""Tool schemas without pydantic's boilerplate: every tool's schema is compact (no titles, no `$defs`, no
`null` branches), still accepts the calls the tools accept and refuses the ones they refuse, and the main
agent's preamble on a plain file task stays within its budget (benchmarks/prompt_tokens.py prints it)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field

from stateact.app.harness import build_main_loop
from stateact.app.variants import VARIANTS
from stateact.kernel.context.token_counter import counter
from stateact.kernel.loop import Budget
from stateact.kernel.meter import Meter
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.kernel.tools.base import Tool
from stateact.kernel.tools.edit import ViewInput
from stateact.kernel.tools.plan import PlanInput
from stateact.kernel.tools.schema import compact_schema

TOOL_MODULES = (
    "stateact.kernel.tools.bash",
    "stateact.kernel.tools.edit",
    "stateact.kernel.tools.plan",
    "stateact.kernel.tools.finish",
    "stateact.gate.review.tools",
    "stateact.gate.review.finish_gate",
    "stateact.subagents.gui_tools",
    "stateact.subagents.web_tools",
    "stateact.subagents.delegation",
)
PLAIN_FILE_TASK = "Write ~/notes/todo.md with a checklist of three items."
MAIN_PREAMBLE_BUDGET = 4_000
"""Tokens of the main agent's system prompt and tool schemas on a plain file task: 5,248 before the
schemas were compacted, 4,417 after, 4,636 with the `ask_user` tool and the toolkit's `pkill`, 3,912 with
the home folder and app priors moved to the first message and the prompt and descriptions said once."""
BOILERPLATE_KEYS = {"title", "$defs", "$ref", "discriminator"}


def tool_inputs() -> Iterator[type[BaseModel]]:
    """The input model of every tool class of the harness (and the read-only editor's)."""
    for module in TOOL_MODULES:
        importlib.import_module(module)
    pending, seen = list(Tool.__subclasses__()), set()
    while pending:
        tool = pending.pop()
        pending.extend(tool.__subclasses__())
        model = getattr(tool, "Input", None)
        if isinstance(model, type) and issubclass(model, BaseModel) and model not in seen:
            seen.add(model)
            yield model
    yield ViewInput


def keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from keys(value.values() if key == "properties" else value)
    elif isinstance(node, list | type({}.values())):
        for item in node:
            yield from keys(item)


@pytest.mark.parametrize("model", list(tool_inputs()), ids=lambda model: model.__qualname__)
def test_every_tool_schema_is_compact_and_valid(model: type[BaseModel]) -> None:
    schema = compact_schema(model.model_json_schema())

    jsonschema.Draft202012Validator.check_schema(schema)
    assert not BOILERPLATE_KEYS & set(keys(schema)), json.dumps(schema)
    assert '{"type": "null"}' not in json.dumps(schema) and '"default": null' not in json.dumps(schema)


PLAN_CALLS = [
    {
        "action": "set",
        "items": ["Read the sheet", {"title": "Write totals", "status": "pending", "note": "n"}],
    },
    {"action": "update", "updates": [{"id": 1, "status": "done", "note": "ok"}]},
    {"action": "remember", "facts": {"book": "/home/user/sales.xlsx"}},
    {
        "action": "claim",
        "claims": [
            {
                "id": 2,
                "evidence": [
                    {"kind": "file_exists", "path": "/home/user/a.txt"},
                    {"kind": "file_contains", "path": "/home/user/a.txt", "text": "x"},
                    {"kind": "cell_equals", "path": "/home/user/s.xlsx", "cell": "B5", "value": 60},
                    {
                        "kind": "cell_equals",
                        "path": "/h/s.xlsx",
                        "cell": "A1",
                        "value": "Total",
                        "sheet": "S",
                    },
                    {"kind": "command_output", "command": "cat /home/user/a.txt", "expect": "x"},
                ],
            }
        ],
    },
]
BAD_PLAN_CALLS = [
    {"action": "claim", "claims": [{"id": 1, "evidence": [{"path": "/home/user/a.txt"}]}]},  # no kind
    {"action": "claim", "claims": [{"id": 1, "evidence": [{"kind": "cell_equals", "path": "/h/s.xlsx"}]}]},
    {"action": "update", "updates": [{"id": 1, "status": "finished"}]},
    {"action": "forget"},
]


def test_the_compact_plan_schema_accepts_and_refuses_what_the_plan_tool_does() -> None:
    schema = compact_schema(PlanInput.model_json_schema())

    for call in PLAN_CALLS:
        jsonschema.validate(call, schema)
        PlanInput.model_validate(call)
    for call in BAD_PLAN_CALLS:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(call, schema)
        with pytest.raises(ValueError):
            PlanInput.model_validate(call)


def test_shared_definitions_are_inlined_and_recursive_ones_refused() -> None:
    class Point(BaseModel):
        x: int

    class Segment(BaseModel):
        start: Point
        end: Point | None = None
        style: Literal["solid"] = Field(default="solid", title="Style")

    class Tree(BaseModel):
        children: list[Tree] = []

    assert compact_schema(Segment.model_json_schema()) == {
        "properties": {
            "start": {"properties": {"x": {"type": "integer"}}, "required": ["x"], "type": "object"},
            "end": {"properties": {"x": {"type": "integer"}}, "required": ["x"], "type": "object"},
            "style": {"const": "solid", "type": "string"},
        },
        "required": ["start"],
        "type": "object",
    }
    with pytest.raises(ValueError, match="recursive"):
        compact_schema(Tree.model_json_schema())


def test_main_preamble_of_a_plain_file_task_is_within_budget(tmp_path: Path, local) -> None:
    context = RunContext(
        run_dir=tmp_path / "run",
        task=PLAIN_FILE_TASK,
        sandbox=local,
        log=RunLog(tmp_path / "run"),
        meter=Meter(),
        models=RoleModels(main="scripted:quickstart"),
    )
    loop = build_main_loop(context, VARIANTS["stateact"], Budget(max_turns=1))
    loop.close_tools()
    context.log.close()

    tokens = counter().preamble(loop.system_prompt, [tool.spec() for tool in loop.tools.values()])

    assert tokens <= MAIN_PREAMBLE_BUDGET
