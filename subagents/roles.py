"""The subagent roles, declared: their names and the delegate tools that hand them a subgoal, named by
path so that declaring them imports none of their code. A new subagent role is its module, its prompt and
one line here."""

from stateact.kernel.roles import Role, register_role

register_role(Role("gui", delegate="stateact.subagents.gui:DelegateGuiTool"))
register_role(Role("web", delegate="stateact.subagents.web:DelegateWebTool"))
