"""Every tunable number of the finish gate, defined once."""

GATE_MAX_ROUNDS = 3
"""FAIL rounds after which the gate is exhausted and the run ends with the last verdict."""
GATE_MAX_TURNS = 40
"""Model turns one gate round may take before it ends without a verdict."""
GATE_MAX_USD = 2.0
"""Dollars one gate round may spend, and never more than what remains of the run's budget."""
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
GATE_NAMED_CELLS_MAX = 60
"""Cells named in the instruction shown in the gate's request, over all sheets they may be on."""

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

GATE_BASELINE_FILE_MAX_BYTES = 16 * 1024 * 1024
"""A file larger than this gets no baseline copy (its change is reported by size only)."""
GATE_BASELINE_CONFIG_MAX_BYTES = 512 * 1024
"""A settings file larger than this gets no baseline copy."""
GATE_BASELINE_TOTAL_MAX_BYTES = 128 * 1024 * 1024
"""Total size of the baseline copies; the files the task names come first, then the newest."""
GATE_BASELINE_MAX_FILES = 400
"""Files the baseline covers (the files the task names come first)."""
GATE_BASELINE_TIMEOUT_S = 120.0
"""How long listing and hashing the baseline's files in the sandbox may take."""
GATE_BASELINE_DOCUMENT_EXTENSIONS = (
    "xlsx", "xlsm", "xls", "ods", "csv", "tsv", "docx", "odt", "pptx", "odp", "txt", "md", "json",
    "db", "sqlite", "sqlite3", "ini", "cfg", "conf", "toml", "yaml", "yml", "xml", "log", "sh", "py",
)  # fmt: skip
"""File types of the home folder the baseline copies (files the task names are copied whatever their type):
documents, data, settings, and the logs and scripts tasks read as their inputs ("the .log files in my logs
folder", which names no path)."""
GATE_BASELINE_SETTINGS_PATHS = (
    "~/.bashrc", "~/.profile", "~/.gitconfig", "~/.vimrc",
    "~/.config/Code/User/settings.json", "~/.config/Code/User/keybindings.json",
    "~/.config/vlc/vlcrc", "~/.config/GIMP/*/gimprc",
    "~/.config/libreoffice/4/user/registrymodifications.xcu",
    "~/.config/google-chrome/Default/Preferences", "~/.config/chromium/Default/Preferences",
    "~/.thunderbird/*/prefs.js", "~/.local/share/applications/mimeapps.list", "~/.config/mimeapps.list",
)  # fmt: skip
"""Settings files inside hidden folders the baseline also copies (glob patterns); `dconf dump /` too when
the sandbox has dconf."""
GATE_BASELINE_INVENTORY_MAX_FILES = 5_000
"""Files of the home (outside hidden folders, any type) the baseline lists without copying them, so the change
list shows every file created, moved or deleted; over this many, only the copied files are compared."""
GATE_BASELINE_INVENTORY_HASH_MAX_BYTES = 8 * 1024 * 1024
"""Listed files up to this size are hashed (a moved file is recognised by its hash; a larger one by its size,
inode and mtime)."""
GATE_BASELINE_SKIP_DIRS = ("node_modules", "__pycache__", "snap", "site-packages")
"""Folders of the home the baseline never enters (hidden folders are skipped as well)."""

GATE_DIFF_MAX_ITEMS = 40
"""Entries one list of the state diff shows (cells of a sheet, paragraphs, rows, lines); the rest are counted."""
GATE_DIFF_MAX_FILES = 30
"""Files the state diff describes in detail; the rest are listed by name and counted."""
GATE_DIFF_MAX_VALUE_CHARS = 160
"""A value, paragraph or line longer than this is shortened in the state diff."""
GATE_DIFF_APP_STATE_KEYS = (
    "/org.openoffice.Office.Histories/", "/org.openoffice.Office.Views/", "/org.openoffice.Office.UI.",
    "/org.openoffice.Office.Recovery/", "/org.openoffice.Office.Common/History/",
    "/org.openoffice.Office.Common/Misc/FirstRun", "/org.openoffice.Office.Logging/",
    "/org.openoffice.Setup/Office/", "/org.openoffice.Setup/Product/", "/org.openoffice.Setup/L10N/ooLocale",
    "/org.openoffice.Office.Common/Misc/UseSystemFileDialog", "/org.openoffice.Office.Jobs/Jobs/",
    "browser.window_placement", "profile.last_engagement_time", "profile.exit_type", "profile.exited_cleanly",
    "sessions.", "media.engagement.", "in_product_help.", "gcm.", "updateclientdata.", "domain_diversity.",
)  # fmt: skip
"""Settings keys (prefixes) an application rewrites as it runs: LibreOffice's window states, recent files,
toolbar layout and what its start records (compatibility check, restart flag, the locale it found, the file
dialog, the update check's job: measured on a headless conversion), a browser's window place and session
data. The state diff leaves them out, and a settings file whose changes are all of them is not listed."""
GATE_DIFF_MAX_CHARS = 24_000
"""The whole state diff is cut to this many characters (with a note saying so)."""

GATE_READ_PAGE_TIMEOUT_S = 20.0
"""How long the gate's `read_page` waits for one HTTP response."""
GATE_READ_PAGE_MAX_BYTES = 2 * 1024 * 1024
"""Bytes of a response body `read_page` reads; a larger body is cut here, with a note."""
GATE_READ_PAGE_MAX_REDIRECTS = 5
GATE_RENDER_TIMEOUT_MS = 20_000
"""How long `read_page` with `render` waits for the page and its requests to settle."""
"""Redirects `read_page` follows, each to an allowed host only."""

GATE_OPEN_SAVE_GRACE_S = 15.0
"""LibreOffice rewrites a document's lock file when it starts saving it and writes the file just after:
a file written at most this many seconds after its lock is taken as saved from the window; written
later, it was changed on disk behind the window (a stale window). Measured: 0.8 s for a small .odt."""

GATE_CHANGED_FILES_SKIP = (
    ".cache", ".config/libreoffice", ".config/chromium", ".config/google-chrome", ".mozilla", ".thunderbird",
    ".local/share/Trash", ".local/share/stateact", ".pki", ".dbus", ".Xauthority", ".ipython", ".npm",
)  # fmt: skip
"""Folders of the home (relative paths) the "changed since the task started" list does not enter:
caches, browser and office profiles, the toolkit. Other hidden folders are listed (an app's data in
~/.local/share is often the deliverable)."""
