"""Every tunable number of the finish gate, defined once.

The number of rounds is `stateact.settings.GATE_MAX_ROUNDS` (shared with the harness).
"""

GATE_MAX_TURNS = 40
"""Model turns one gate round may take before it ends without a verdict."""
GATE_MAX_USD = 2.0
"""Dollars one gate round may spend (on top of what the run had spent when the round started)."""
GATE_MAX_SECONDS = 900.0
"""Wall-clock seconds one gate round may take."""

GATE_SHELL_TIMEOUT_S = 60.0
"""How long one gate shell command may run."""
GATE_OUTPUT_CAP_CHARS = 12_000
"""Tool output longer than this is middle-truncated before the gate model sees it."""
GATE_PROBE_TIMEOUT_S = 90.0
"""How long one probe (a Python script run in the sandbox) may take."""
GATE_PROBE_MAX_CELLS = 400
"""Cells a spreadsheet probe returns in one call; ask for a range to see others."""
GATE_PROBE_MAX_ITEMS = 300
"""Paragraphs, rows, lines or shapes a document probe returns in one call."""

GATE_FINGERPRINT_MAX_FILES = 5_000
"""Files of the home folder the fingerprint covers (deliverables always come first)."""
GATE_HASH_MAX_BYTES = 64 * 1024 * 1024
"""Files larger than this are fingerprinted by size and mtime only."""
GATE_SNAPSHOT_FILE_MAX_BYTES = 64 * 1024 * 1024
"""Files larger than this get no restore copy (a change is still detected and recorded)."""
GATE_SNAPSHOT_TOTAL_MAX_BYTES = 512 * 1024 * 1024
"""Total size of the restore copies of one round; deliverables first, then the newest files."""
GATE_FINGERPRINT_TIMEOUT_S = 300.0
"""How long fingerprinting, snapshotting or restoring may take."""

GATE_UNDECIDED_PASSES = False
"""A round that ends without a `verdict` call (budget, model error) counts as PASS when True, else FAIL."""

GATE_RECALC_TIMEOUT_S = 120.0
"""How long LibreOffice may take to recalculate the copy of one workbook for the formula check."""
GATE_RECALC_REL_TOL = 1e-6
"""Relative tolerance when a saved number is compared with its recalculated value."""
GATE_RECALC_MAX_LISTED = 10
"""Mismatching formula cells a pre-gate finding lists (the rest are counted)."""

GATE_OPEN_SAVE_GRACE_S = 15.0
"""LibreOffice rewrites a document's lock file when it starts saving it and writes the file just after:
a file written at most this many seconds after its lock is taken as saved from the window; written
later, it was changed on disk behind the window (a stale window). Measured: 0.8 s for a small .odt."""
