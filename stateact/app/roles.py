"""Every role of the application, imported once: importing a role's module registers its events with
the kernel (`stateact.kernel.events.register_event`).

`stateact.app` imports this module first, so every part of the application, and everything above it
(the evals), sees every role's events: the readers of a whole run's log (show, resume, watch, reports,
trajectories) read each role's events as their typed kinds.
"""

from types import ModuleType

from gate import events as gate_events
from subagents import events as subagent_events

ROLE_MODULES: tuple[ModuleType, ...] = (gate_events, subagent_events)
"""The modules that register the roles' events."""
