"""The subagent roles, declared: their names, the delegate tools that hand them a subgoal (named by path,
so that declaring them imports none of their code), their briefs in the main agent's prompt and their
settings models; each registers its `<role>_report` event too. A new subagent role is its module, its prompt and one line here."""

from pathlib import Path

from stateact.kernel.roles import MAIN, Role, extend_settings
from stateact.subagents.events import register_subagent
from stateact.subagents.screen_settings import ScreenSettings

PROMPTS = Path(__file__).parent / "prompts"

register_subagent(
    Role(
        "gui",
        delegate="stateact.subagents.gui:DelegateGuiTool",
        brief=PROMPTS / "gui_brief.md",
        absent_brief=PROMPTS / "gui_absent.md",
        settings=ScreenSettings,
    )
)
register_subagent(
    Role("web", delegate="stateact.subagents.web:DelegateWebTool", brief=PROMPTS / "web_brief.md")
)
extend_settings(MAIN, ScreenSettings)  # the pixel harness's main agent sees the screen
