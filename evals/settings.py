"""Every tunable number of the evals package (task setup and scoring, validation, the suite runner and
its reports), defined once."""

OPEN_WINDOW_TIMEOUT_S = 90.0
"""How long an `open` step waits for a window whose title shows the file name."""
WINDOW_POLL_S = 0.5
"""Delay between two window-list probes."""
SETUP_COMMAND_TIMEOUT_S = 120.0
"""Timeout of one `execute`/`command` setup step (the VM server's own limit)."""
SETUP_KEEP_MAX_BYTES = 256 * 1024 * 1024
"""The largest file a command step of a task's setup creates whose copy is kept for a resume."""
SETUP_WATCH_MAX_FILES = 20000
"""Files under a local sandbox's home and /tmp beyond which its setup's command steps are not watched."""
SETUP_WATCH_TIMEOUT_S = 60.0
"""Timeout of listing or hashing a sandbox's files around its setup's command steps."""
LAUNCH_OUTPUT_TAIL_BYTES = 8192
"""The tail of a launched program's output a local sandbox keeps, to say why it ended."""
LAUNCH_OUTPUT_SHOWN_CHARS = 600
"""Characters of that tail an error or a resume's notice shows."""
GETTER_COMMAND_TIMEOUT_S = 120.0
VLC_HTTP_PORT = 8080
"""Where VLC's HTTP interface listens inside the sandbox (OSWorld's VMs: 8080, password `password`)."""
"""Timeout of a `vm_command_line` getter."""
DOWNLOAD_TIMEOUT_S = 60.0
"""Timeout (to connect, and between two reads) of downloading a file the cache does not hold."""
URL_PROBE_TIMEOUT_S = 5.0
"""Timeout of asking whether a URL answers (`stateact eval check`); without internet it fails at once."""
URL_PROBE_WORKERS = 16
"""URLs `stateact eval check` asks at once."""
PACKAGE_INDEX_URL = "https://pypi.org/simple/"
"""The URL `stateact eval check` asks for a task that installs packages (pip, apt) while it runs."""
CONDA_CHANNEL_URL = "https://conda.anaconda.org/conda-forge/"
"""The URL `stateact eval check` asks for a task that installs conda packages while it runs."""
SHEET_PRECISION = 4
"""Default rounding of `compare_table`/`sheet_data` (OSWorld's `precision`)."""
FUZZY_THRESHOLD = 85.0
"""Default `threshold` (0-100) of a `compare_table`/`sheet_fuzzy` `fuzzy_match` sub-rule."""
EXPLAIN_DIFFERENCES = 8
"""Differences a failed checkpoint's explanation lists (cells, lines), the rest counted."""
EXPLAIN_VALUE_CHARS = 120
"""Characters of one compared value in an explanation."""
OSWORLD_BRIDGE_TIMEOUT_S = 600.0
"""Timeout of one metric call run in the user's OSWorld environment (evals/osworld/bridge.py)."""
DEFAULT_ZOOM = 100.0
"""The zoom scale `compare_table`/`zoom` reads when a sheet sets none."""
SHAPE_TOLERANCE = 0.005
"""Default `approximately_tolerance` of `compare_pptx_files`: the relative difference up to which two
shape positions or sizes count as equal."""
TEST_SUITE_TIMEOUT_S = 300.0
"""Wall time a task's own Python test function (`check_python_file_by_test_suite`) may run."""
METRIC_WALL_S = TEST_SUITE_TIMEOUT_S + 30.0
"""Wall time of one metric call (evals/osworld/metric_call.py); past it the task is a scoring error. A
task's own test suite scores 0 at its own timeout, before this."""
METRIC_CPU_S = 120
"""CPU seconds (RLIMIT_CPU) of one metric call's process."""
METRIC_MEMORY_MB = 3072
"""Resident memory of one metric call's process, the metric modules it starts with included."""

# Suite validation (replaying reference solutions)
VALIDATE_MAX_TURNS = 80
"""Main-agent turns a reference solution may take."""
VALIDATE_MAX_SECONDS = 900.0
"""Wall-clock seconds one task's validation run may take."""

# The finish gate's accuracy corpus (evals/authoring/gate_corpus.py)
GATE_CORPUS_STEP_TIMEOUT_S = 180.0
"""Timeout of one shell command of a case's steps (a LibreOffice conversion included)."""
GATE_CORPUS_MIN_SHARE = 0.4
"""The least share of the corpus each expected verdict (pass, fail) must have."""

# Suite runner and its reports
TASK_TIMEOUT_S = 1800.0
"""Default wall-time budget of one task's agent run (the harness's `max_seconds`)."""
TASK_MAX_USD = 20.0
"""Default dollar budget of one task's agent run."""
TASK_MAX_TURNS = 500
"""Default main-agent turn budget of one task (OSWorld 2.0's step budget)."""
WORKERS = 2
"""Tasks run at once, each on its own sandbox and display."""
STOP_GRACE_S = 30.0
"""After Ctrl-C, how long the running jobs get to close their runs and sandboxes."""
REFERENCE_MODEL = "reference"
"""The `--model` value that plays each task's own reference solution through the scripted provider."""
TRAJECTORY_TEXT_CAP_CHARS = 6_000
"""A tool input or result longer than this is cut in the trajectory viewer."""

# Suite engines (evals/running/engines)
ENGINE_LOCAL = "local"
"""Jobs in threads on this machine, one per pool slot."""
ENGINE_RAY = "ray"
"""Jobs as Ray tasks, one Ray actor per pool slot."""
RAY_SLOT_CPUS = 1
"""CPUs a slot's Ray actor reserves (a local slot runs the task's apps on its node)."""
RAY_ACTOR_RESTARTS = 2
"""Times Ray restarts a slot's actor whose worker died before the slot is retired."""
RAY_JOB_ATTEMPTS = 3
"""Times a job may be sent to a slot whose worker then dies before it becomes an error row."""
RAY_CLOSE_TIMEOUT_S = 30.0
"""How long the driver waits for the slots' actors to remove their scratch folders at the end."""

# Checker sensitivity (evals/authoring/mutators.py, benchmarks/checker_sensitivity.py)
MUTATION_RECALC_TIMEOUT_S = 120.0
"""Timeout of recalculating a mutated workbook with headless LibreOffice."""
MUTATION_FONT_STEP_PT = 4
"""Points a `format` mutation adds to a run's font size."""
MUTATION_FONT_NAME = "Courier New"
"""The font a `format` mutation gives a run that sets no bold or size."""
LIVE_STATE_URL = "http://127.0.0.1:"
"""A probe whose command names this reads a running program's state (a desktop app's status port),
which is gone after a replay: sensitivity does not re-score such checkpoints."""
