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

GATE_MAX_INVALID_VERDICTS = 3
"""Rejected `verdict` calls (e.g. a PASS without its checklist) after which a round ends undecided."""
GATE_UNDECIDED_RETRIES = 1
"""Fresh rounds one finish call starts after an undecided round; if they end undecided too, the finish
is accepted unreviewed (`gate_passed` null, a `gate_undecided` event)."""

GATE_RECALC_TIMEOUT_S = 120.0
"""How long LibreOffice may take to recalculate the copy of one workbook for the formula check."""
GATE_RECALC_REL_TOL = 1e-6
"""Relative tolerance when a saved number is compared with its recalculated value."""
GATE_RECALC_MAX_LISTED = 10
"""Mismatching formula cells a pre-gate finding lists (the rest are counted)."""

GATE_READ_PAGE_TIMEOUT_S = 20.0
"""How long the gate's `read_page` waits for one HTTP response."""
GATE_READ_PAGE_MAX_BYTES = 2 * 1024 * 1024
"""Bytes of a response body `read_page` reads; a larger body is cut here, with a note."""
GATE_READ_PAGE_MAX_REDIRECTS = 5
"""Redirects `read_page` follows, each to an allowed host only."""
