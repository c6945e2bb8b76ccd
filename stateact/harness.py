"""Harness assembly: a variant's tools, prompt, context policy and gate around the main loop."""

from __future__ import annotations

from stateact.loop import AgentLoop, Budget, Injection
from stateact.prompts import render_main_prompt
from stateact.runtime import RunContext
from stateact.tools.base import Tool
from stateact.tools.bash import BashTool
from stateact.tools.edit import EditTool
from stateact.tools.finish import FinishTool
from stateact.tools.plan import Plan, PlanTool, plan_injection
from stateact.variants import HarnessVariant


def build_main_loop(context: RunContext, variant: HarnessVariant, budget: Budget) -> AgentLoop:
    """The top-level agent of a run for a harness variant."""
    tools: list[Tool] = []
    injections: list[Injection] = []
    if variant.bash:
        tools.append(BashTool(context))
    if variant.editor:
        tools.append(EditTool(context))
    if variant.plan:
        plan = Plan.load(context.run_dir / "plan.json")
        tools.append(PlanTool(context, plan))
        injections.append(plan_injection(plan))
    tools.append(FinishTool(context, gate=None))
    return AgentLoop(
        scope="main",
        model=context.provider("main"),
        tools=tools,
        system_prompt=render_main_prompt({t.name for t in tools}, context.sandbox.home),
        log=context.log,
        meter=context.meter,
        budget=budget,
        injections=injections,
        nudge_text_replies=True,
    )
