"""Specialist subagents the main agent delegates to."""
