"""The application: assembles the kernel, the roles (subagents, gate) and the evals into runs and the CLI."""
