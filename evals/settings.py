"""Tunable numbers of OSWorld task setup and scoring, defined once."""

OPEN_WINDOW_TIMEOUT_S = 90.0
"""How long an `open` step waits for a window whose title shows the file name."""
WINDOW_POLL_S = 0.5
"""Delay between two window-list probes."""
SETUP_COMMAND_TIMEOUT_S = 120.0
"""Timeout of one `execute`/`command` setup step (the VM server's own limit)."""
GETTER_COMMAND_TIMEOUT_S = 120.0
"""Timeout of a `vm_command_line` getter."""
DOWNLOAD_TIMEOUT_S = 60.0
"""Timeout (to connect, and between two reads) of downloading a file the cache does not hold."""
SHEET_PRECISION = 4
"""Default rounding of `compare_table`/`sheet_data` (OSWorld's `precision`)."""
FUZZY_THRESHOLD = 85.0
"""Default `threshold` (0-100) of a `compare_table`/`sheet_fuzzy` `fuzzy_match` sub-rule."""
DEFAULT_ZOOM = 100.0
"""The zoom scale `compare_table`/`zoom` reads when a sheet sets none."""
DEFAULT_HARNESS = "stateact"
"""First folder of the results layout when none is given."""

# Suite validation (replaying reference solutions)
VALIDATE_MAX_TURNS = 80
"""Main-agent turns a reference solution may take."""
VALIDATE_MAX_SECONDS = 900.0
"""Wall-clock seconds one task's validation run may take."""
VALIDATE_HARNESS = "stateact"
"""The harness reference solutions are replayed through (the full one, so the finish gate runs)."""

# The finish gate's accuracy corpus (evals/gate_corpus.py)
GATE_CORPUS_STEP_TIMEOUT_S = 180.0
"""Timeout of one shell command of a case's steps (a LibreOffice conversion included)."""
GATE_CORPUS_MIN_SHARE = 0.4
"""The least share of the corpus each expected verdict (pass, fail) must have."""

# Checker sensitivity (evals/mutators.py, benchmarks/checker_sensitivity.py)
MUTATION_RECALC_TIMEOUT_S = 120.0
"""Timeout of recalculating a mutated workbook with headless LibreOffice."""
MUTATION_FONT_STEP_PT = 4
"""Points a `format` mutation adds to a run's font size."""
MUTATION_FONT_NAME = "Courier New"
"""The font a `format` mutation gives a run that sets no bold or size."""
