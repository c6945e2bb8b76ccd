"""Every role of the application, declared once: importing this module registers the roles besides the
kernel's own (main, compactor) and their events with the kernel (`stateact.kernel.roles.register_role`,
`stateact.kernel.events.register_event`). Declarations name their code by path, so this is quick.

`stateact.app` imports this module first, so every part of the application, and everything above it
(the evals), sees every role: the command line's role flags, the harness's delegate tools, and the
readers of a whole run's log (show, resume, watch, reports, trajectories), which read each role's
events as their typed kinds.
"""

from types import ModuleType

from stateact.gate import events as gate_events
from stateact.gate import roles as gate_roles
from stateact.subagents import events as subagent_events
from stateact.subagents import roles as subagent_roles

ROLE_MODULES: tuple[ModuleType, ...] = (gate_roles, gate_events, subagent_roles, subagent_events)
"""The modules that declare the roles besides the kernel's own, and their events."""
