"""Every tunable number of the harness, defined once.

Modules import these names instead of repeating literals, so a default can be
found and changed in one place.
"""

# Persistent bash
BASH_SOFT_TIMEOUT_S = 30.0
"""How long a bash call waits for its command before returning partial output."""
BASH_MAX_TIMEOUT_S = 600.0
"""Upper bound on a per-call timeout the model may ask for."""
BASH_INTERRUPT_GRACE_S = 3.0
"""How long each escalation step (Ctrl-C, then SIGQUIT) waits for the prompt."""
BASH_OUTPUT_CAP_CHARS = 16_000
"""Tool output longer than this is middle-truncated; the full text is saved to a file."""
BASH_MAXREAD = 1 << 20
"""pexpect read size; large reads keep 10 MB outputs fast."""

# Editor
EDITOR_UNDO_DEPTH = 20
"""Edits remembered per file for undo_edit."""
EDITOR_VIEW_CAP_CHARS = 16_000
"""A file view longer than this is truncated with a note."""
EDITOR_DIR_DEPTH = 2
"""Depth of a directory view."""

# Display
DISPLAY_SIZE = (1280, 800)
DISPLAY_DEPTH = 24
DISPLAY_START_TIMEOUT_S = 15.0

# Models
MODEL_MAX_OUTPUT_TOKENS = 8192
MODEL_RETRIES = 4
"""Retries after a retryable provider error (429, 5xx, overloaded, connection)."""
MODEL_BACKOFF_BASE_S = 1.0
"""First backoff delay; it doubles on each retry (with jitter)."""
MODEL_BACKOFF_MAX_S = 30.0
MODEL_REQUEST_TIMEOUT_S = 600.0
DEFAULT_CONTEXT_WINDOW = 128_000

# Loop budgets
MAIN_MAX_TURNS = 200
MAIN_MAX_USD = 20.0
MAIN_MAX_SECONDS = 4 * 3600.0
TEXT_REPLY_NUDGES = 3
"""Consecutive replies without a tool call the main agent may give before the run stops."""

# Finish gate
GATE_MAX_ROUNDS = 3

# Agent loop
CONTEXT_OVERFLOW_RECOVERIES = 2
"""Times in a row the loop lets the context manager shrink the history after a context-length error."""
