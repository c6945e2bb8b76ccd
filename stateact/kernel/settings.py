"""Every tunable number of the harness, defined once.

Modules import these names instead of repeating literals, so a default can be
found and changed in one place.
"""

# Persistent bash
BASH_MAX_TIMEOUT_S = 600.0
"""Upper bound on a per-call timeout the model may ask for."""
BASH_OUTPUT_CAP_CHARS = 16_000
"""Tool output longer than this is middle-truncated; the full text is saved to a file."""

# Editor
EDITOR_UNDO_DEPTH = 20
"""Edits remembered per file for undo_edit."""
EDITOR_VIEW_CAP_CHARS = 16_000
"""A file view longer than this is truncated with a note."""
EDITOR_DIR_DEPTH = 2
"""Depth of a directory view."""
EDITOR_IMAGE_MAX_SOURCE_PIXELS = 80_000_000
"""An image file with more pixels than this is not decoded for a view (a 600 dpi A4 scan has 35 million)."""
EDITOR_JPEG_QUALITY = 85
"""Quality of a photo re-encoded as JPEG for the model."""
EDITOR_PDF_MAX_DPI = 200
"""A PDF page shown as a picture is rendered at the model's image size, at most at this resolution."""
EDITOR_PDF_MAX_PAGES_PER_VIEW = 50
"""A PDF view reads the text of at most this many pages; a note says where to go on."""
EDITOR_PDF_SCAN_PICTURES = 3
"""A PDF view shows at most this many of its pages without text (scans) as pictures; a note names the rest."""
EDITOR_LOOK_TIMEOUT_S = 20.0
"""An image or PDF the editor shows is read in a child process killed after this many seconds."""
EDITOR_LOOK_CPU_S = 20
"""The CPU seconds (RLIMIT_CPU) of that child."""
EDITOR_LOOK_MEMORY_MB = 1536
"""The address space (RLIMIT_AS) of that child: an 80-million-pixel RGBA image fits, a decompression
bomb does not."""

# Display

# Models
MODEL_MAX_OUTPUT_TOKENS = 8192
MODEL_RETRIES = 4
"""Retries after a retryable provider error (429, 5xx, overloaded, connection)."""
MODEL_BACKOFF_BASE_S = 1.0
"""First backoff delay; it doubles on each retry (with jitter)."""
MODEL_BACKOFF_MAX_S = 30.0
MODEL_REQUEST_TIMEOUT_S = 600.0
DEFAULT_CONTEXT_WINDOW = 128_000
UNKNOWN_CONTEXT_WINDOW = 32_768
"""Context window assumed for a model the catalog does not know (state the real one per role)."""
UNKNOWN_MAX_OUTPUT_TOKENS = 4096
"""Output tokens asked of a model the catalog does not know (state another per role)."""

THINKING_NOTICE_S = 5.0
"""After this long without a model's answer, `stateact run` prints that the model is still thinking."""

# Relay provider (a person or another agent plays a model role through files)
RELAY_POLL_S = 0.5
"""How often the relay looks for a reply file."""
RELAY_TIMEOUT_S: float | None = None
"""How long the relay waits for a reply before the call fails; None waits for good."""
RELAY_TAIL_LINES = 60
"""Lines of the pending request that `stateact relay` shows."""

# The user (`ask_user`)
USER_ANSWER_TIMEOUT_S = 1800.0
"""How long the person at the terminal may take to answer a question (the run's deadline may cut it)."""
USER_ANSWER_POLL_S = 0.2
"""How often a run waiting on the terminal looks whether the watch page answered first."""
USER_MAX_USD = 0.5
"""Dollars one answer of the simulated user may cost (within the run's budget)."""
USER_MAX_SECONDS = 300.0
"""Seconds one answer of the simulated user or a relay may take (the run's deadline may cut it)."""

# Loop budgets
MAIN_MAX_TURNS = 200
MAIN_MAX_USD = 20.0
MAIN_MAX_SECONDS = 4 * 3600.0
TEXT_REPLY_NUDGES = 3
"""Consecutive replies without a tool call the main agent may give before the run stops."""

# CLI
DEFAULT_MODEL = "anthropic:claude-sonnet-5-5"
"""The main model when neither --model nor STATEACT_MODEL is given."""

# Main prompt
PRIORS_WINDOW_LIST_TIMEOUT_S = 10.0
"""Longest the list of open windows (which picks app priors for the prompt) may take at a run's start."""

# Main agent tools
EDITOR_SNIPPET_CONTEXT_LINES = 4
"""Unchanged lines shown around an edit in the editor's confirmation."""

# Context management
CONTEXT_COMPACT_THRESHOLD = 0.8
"""Compact when the next prompt would pass this share of the model's context window."""
CONTEXT_KEEP_RECENT_SHARE = 0.25
"""Share of the window the most recent turns may keep verbatim through a compaction."""
CONTEXT_COMPACTOR_INPUT_SHARE = 0.6
"""Share of the compactor's window its transcript of the replaced turns may fill."""
CONTEXT_COMPACTOR_OUTPUT_CAP_CHARS = 3_000
"""Each tool output is middle-truncated to this length in the compactor's transcript."""
CONTEXT_SUMMARY_CAP_CHARS = 24_000
"""A compaction summary longer than this is truncated."""
CONTEXT_KEEP_IMAGES = 3
"""Messages whose screenshots stay in the request view; older ones leave behind one placeholder."""
CONTEXT_IMAGE_STRIP_CHUNK = 4
"""Old screenshots leave this many messages' worth at a time, so the cached prefix changes rarely."""
CONTEXT_TOOL_OUTPUT_CAP_CHARS = 20_000
"""A tool result longer than this is middle-truncated in the request view."""
CONTEXT_REPORT_CAP_CHARS = 8_000
"""Cap on a delegation report (a result of a tool named in CONTEXT_REPORT_TOOL_PREFIXES)."""
CONTEXT_REPORT_TOOL_PREFIXES = ("delegate",)
"""Tool-name prefixes whose results are subagent reports."""
CONTEXT_STALL_REPEATS = 3
"""The same tool calls with the same output this many times in a row is a stall."""
CONTEXT_STALL_IDLE_STEPS = 5
"""This many steps in a row without a new successful result is a stall."""
TOKENS_IMAGE_PIXELS_PER_TOKEN = 750
"""Image tokens are estimated as width x height / this."""
MODEL_IMAGE_MAX_EDGE = 1568
"""Providers downscale images whose long edge passes this: screenshots are scaled to fit, token counts
assume it."""
MODEL_IMAGE_MAX_PIXELS = 1_150_000
"""Providers downscale images with more pixels than this: screenshots are scaled to fit, token counts
assume it."""
MODEL_IMAGE_MAX_BYTES = 3_750_000
"""Providers refuse images larger than 5 MB in base64 (3.75 MB raw): a bigger PNG is sent as JPEG."""


# Verified plan items
PLAN_RECHECK_EVERY = 10
"""Requests between re-checks of the evidence of verified plan items."""

# Agent loop
CONTEXT_OVERFLOW_RECOVERIES = 2
"""Times in a row the loop lets the context manager shrink the history after a context-length error."""
CONTEXT_OVERFLOW_TARGET_SHARE = 0.7
"""After a context-length error the retried request aims below this share of the refused prompt (that
request only: later turns use the model's window)."""
CONTEXT_CUT_KEEP_SHARE = 0.02
"""A block cut to fit a refused request keeps at least this share of the window; smaller ones stay whole."""

# OSWorld VM sandbox

# Sandbox pools (sandbox/pool.py)
