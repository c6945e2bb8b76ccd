"""The subagent roles, declared: their names, the delegate tools that hand them a subgoal (named by path,
so that declaring them imports none of their code) and their briefs in the main agent's prompt. A new
subagent role is its module, its prompt and one line here."""

from pathlib import Path

from stateact.kernel.roles import Role, register_role

PROMPTS = Path(__file__).parent / "prompts"

register_role(
    Role(
        "gui",
        delegate="subagents.gui:DelegateGuiTool",
        brief=PROMPTS / "gui_brief.md",
        absent_brief=PROMPTS / "gui_absent.md",
    )
)
register_role(Role("web", delegate="subagents.web:DelegateWebTool", brief=PROMPTS / "web_brief.md"))
