"""Tunable numbers of the suite runner and its reports, defined once."""

TASK_TIMEOUT_S = 1800.0
"""Default wall-time budget of one task's agent run (the harness's `max_seconds`)."""
TASK_MAX_USD = 20.0
"""Default dollar budget of one task's agent run."""
TASK_MAX_TURNS = 500
"""Default main-agent turn budget of one task (OSWorld 2.0's step budget)."""
WORKERS = 2
"""Tasks run at once, each on its own sandbox and display."""
REFERENCE_MODEL = "reference"
"""The `--model` value that plays each task's own reference solution through the scripted provider."""
TRAJECTORY_TEXT_CAP_CHARS = 6_000
"""A tool input or result longer than this is cut in the trajectory viewer."""
