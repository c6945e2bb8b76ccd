"""Harness assembly: a variant's tools, prompt, context policy and gate around the main loop."""

from __future__ import annotations

from collections.abc import Sequence

from stateact.app.variants import HarnessVariant
from stateact.gate.review import FinishGate
from stateact.gate.review.guard import check_command
from stateact.kernel.context.pipeline import build_context_manager
from stateact.kernel.events import Event
from stateact.kernel.evidence import EvidenceChecker
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec, ReplyNudge
from stateact.kernel.prompts import main_opening, render_main_prompt
from stateact.kernel.prompts.app_priors import open_window_titles, select_priors
from stateact.kernel.roles import subagent_roles
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.ask_user import NOBODY, AskUserTool, User
from stateact.kernel.tools.base import Tool
from stateact.kernel.tools.bash import BashTool
from stateact.kernel.tools.edit import EditTool
from stateact.kernel.tools.finish import FinishTool
from stateact.kernel.tools.plan import PLAN_FILE, Plan, PlanTool, plan_injection
from stateact.subagents.pixel import build_pixel_loop


def build_main_loop(
    context: RunContext,
    variant: HarnessVariant,
    budget: Budget,
    past_events: Sequence[Event] = (),
    task_apps: Sequence[str] = (),
    user: User = NOBODY,
) -> AgentLoop:
    """The top-level agent of a run for a harness variant.

    `past_events` (a resumed run's log) gives the gate back its used rounds and `ask_user` the questions
    asked and answered; `user` answers `ask_user` (`stateact.app.users`);
    `task_apps` (a task file's `related_apps`) with the task's words and the open windows pick the
    app priors of its first message. The main agent gets the delegate tool of every registered subagent role
    the variant keeps (`stateact.kernel.roles.subagent_roles`); the web subagent's browser is where the
    sandbox says (`Sandbox.browser_place`).
    """
    if variant.pixel:
        return build_pixel_loop(context, budget)
    tools: list[Tool] = []
    plan_tool: PlanTool | None = None
    if variant.bash:
        tools.append(BashTool(context))
    if variant.editor:
        tools.append(EditTool(context))
    if variant.plan:
        checker = EvidenceChecker(context.sandbox, command_guard=check_command)
        plan_tool = PlanTool(context, Plan.load(context.run_dir / PLAN_FILE), checker)
        tools.append(plan_tool)
    tools += [role.delegate_tool(context) for role in subagent_roles() if variant.delegates_to(role.name)]
    tools.append(AskUserTool(context, user, past_events))
    gate = None
    if variant.gate:
        gate = FinishGate(context)
        gate.resume_from(past_events)
    tools.append(FinishTool(context, gate=gate, on_verdict=plan_tool.gate_boundary if plan_tool else None))
    model = context.provider("main")
    plan_text = plan_injection(plan_tool.plan) if plan_tool else None
    policy = build_context_manager(
        context,
        model.name,
        enabled=variant.context_management,
        plan=plan_text,
        notes=[plan_tool.injection] if plan_tool else [],
        window=model.info.context_window,
    )
    prompt = render_main_prompt({t.name for t in tools}, gate=variant.gate)
    opening = main_opening(
        context.sandbox.home, select_priors(task_apps, [context.task, *open_window_titles(context.sandbox)])
    )
    spec = LoopSpec(
        scope="main", tools=tools, system_prompt=prompt, budget=budget, nudge=ReplyNudge(), opening=opening
    )
    return context.loop(spec, model=model, context=policy)
