"""A scripted agent for task tests: the real AgentLoop and RunLog, a scripted model, two small tools."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from stateact.evals.running.runner import TaskOutcome, run_task_file
from stateact.kernel.loop import AgentLoop, LoopSpec
from stateact.kernel.meter import Meter
from stateact.kernel.models.scripted import ScriptedProvider
from stateact.kernel.runlog import RunLog
from stateact.kernel.tools.base import Tool, ToolResult
from stateact.kernel.tools.finish import FinishClaim
from stateact.sandbox.base import Sandbox


class ShellTool(Tool):
    name = "sh"
    description = "Run a shell command in the sandbox; `screenshot` adds a screenshot to the result."

    class Input(BaseModel):
        command: str
        screenshot: bool = False

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def run(self, params: Input) -> ToolResult:
        result = self.sandbox.run(params.command)
        images = (self.sandbox.screenshot(),) if params.screenshot else ()
        return ToolResult(text=result.output or "(no output)", images=images, is_error=not result.ok)


class FinishTool(Tool):
    name = "finish"
    description = "End the task; set `infeasible` when the task cannot be done."

    class Input(BaseModel):
        summary: str = ""
        infeasible: bool = False

    def run(self, params: Input) -> ToolResult:
        claim = FinishClaim(summary=params.summary, infeasible=params.infeasible)
        return ToolResult(text=params.summary, terminal=True, ending=claim)


def scripted_agent(runs_root: Path, commands: list[str], infeasible: bool = False, screenshot: bool = False):
    """run_agent(instruction, sandbox) -> run_dir: one `sh` call per command, then `finish`."""
    counter = itertools.count(1)

    def run_agent(instruction: str, sandbox: Sandbox) -> Path:
        run_dir = runs_root / f"run{next(counter)}"
        turns = [
            {
                "text": f"Step {i}",
                "tool_calls": [{"name": "sh", "input": {"command": c, "screenshot": screenshot}}],
            }
            for i, c in enumerate(commands, start=1)
        ]
        turns.append(
            {"text": "Done.", "tool_calls": [{"name": "finish", "input": {"infeasible": infeasible}}]}
        )
        log = RunLog(run_dir)
        loop = AgentLoop(
            LoopSpec(scope="main", tools=[ShellTool(sandbox), FinishTool()], system_prompt="test"),
            model=ScriptedProvider(turns),
            log=log,
            meter=Meter(),
        )
        outcome = loop.run(instruction)
        claim = outcome.ending_as(FinishClaim)
        declared = {"infeasible": claim.infeasible} if claim else {}
        log.write_json("result.json", {"status": outcome.status, "instruction": instruction, **declared})
        log.close()
        return run_dir

    return run_agent


RunAgent = Callable[[str, Sandbox], Path]
__all__ = ["RunAgent", "scripted_agent"]


def run_scripted_task(
    task: Path, sandbox: Sandbox, work: Path, commands: list[str], **options: Any
) -> TaskOutcome:
    """`task` run end to end on `sandbox` by `scripted_agent` making `commands`, with its runs, cache and
    results folders under `work`; a harness failure fails the test."""
    outcome = run_task_file(
        task, sandbox, scripted_agent(work / "runs", commands), work / "cache", work / "results", **options
    )
    assert outcome.failure is None, outcome.failure
    return outcome
