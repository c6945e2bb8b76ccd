"""The application: assembles the kernel, the roles (subagents, gate) and the evals into runs and the CLI.

Every role is imported here first (`stateact.app.roles`), so any part of the application sees them all.
"""

from stateact.app import roles

__all__ = ["roles"]
