"""Every role of the application, imported once: importing a role's module registers its role and its
events with the kernel (`stateact.kernel.roles.register_role`, `stateact.kernel.events.register_event`).

`stateact.app` imports this module first, so every part of the application, and everything above it
(the evals), sees every role: the command line's role flags, the harness's delegate tools, and the
readers of a whole run's log (show, resume, watch, reports, trajectories), which read each role's
events as their typed kinds. A new role is its module and one entry in `ROLE_MODULES`.
"""

from types import ModuleType

from gate import events as gate_events
from gate.judge import judge
from gate.review import finish_gate
from subagents import events as subagent_events
from subagents import gui, web

ROLE_MODULES: tuple[ModuleType, ...] = (finish_gate, gate_events, gui, web, subagent_events, judge)
"""The modules that register the roles besides the kernel's own (main, compactor), and their events."""
