"""The main agent's tools."""
