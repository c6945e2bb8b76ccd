"""Harness assembly: a variant's tools, prompt, context policy and gate around the main loop."""

from __future__ import annotations

from stateact.context_policy import build_context_manager
from stateact.evidence import EvidenceChecker
from stateact.loop import AgentLoop, Budget, Injection
from stateact.prompts import render_main_prompt
from stateact.runtime import RunContext
from stateact.tools.base import Tool
from stateact.tools.bash import BashTool
from stateact.tools.edit import EditTool
from stateact.tools.finish import FinishTool
from stateact.tools.plan import PLAN_FILE, Plan, PlanTool, plan_injection
from stateact.variants import HarnessVariant
from subagents.web import DelegateWebTool


def build_main_loop(context: RunContext, variant: HarnessVariant, budget: Budget) -> AgentLoop:
    """The top-level agent of a run for a harness variant."""
    tools: list[Tool] = []
    plan_tool: PlanTool | None = None
    if variant.bash:
        tools.append(BashTool(context))
    if variant.editor:
        tools.append(EditTool(context))
    if variant.plan:
        checker = EvidenceChecker(context.sandbox)
        plan_tool = PlanTool(context, Plan.load(context.run_dir / PLAN_FILE), checker)
        tools.append(plan_tool)
    if variant.web:
        tools.append(DelegateWebTool(context))
    tools.append(FinishTool(context, gate=None, on_verdict=plan_tool.gate_boundary if plan_tool else None))
    plan_text = plan_injection(plan_tool.plan) if plan_tool else None
    model = context.provider("main")
    policy = build_context_manager(context, model.name, enabled=variant.context_management, plan=plan_text)
    injections: list[Injection] = [policy.stall_note] + ([plan_tool.injection] if plan_tool else [])
    return AgentLoop(
        scope="main",
        model=model,
        tools=tools,
        system_prompt=render_main_prompt({t.name for t in tools}, context.sandbox.home, gate=variant.gate),
        log=context.log,
        meter=context.meter,
        budget=budget,
        context=policy,
        injections=injections,
        nudge_text_replies=True,
    )
