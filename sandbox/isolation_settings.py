"""Named settings of the isolated local sandbox (sandbox/isolation.py, sandbox/runtime.py)."""

import os
from pathlib import Path

ISOLATION_MODES = ("bwrap", "none")
"""`bwrap`: every process of a local sandbox runs inside bubblewrap; `none`: plain host processes."""
DEFAULT_ISOLATION = "bwrap"

SANDBOX_HOME = "/home/user"
"""The home folder as the sandbox's processes see it (an OSWorld VM's)."""
SANDBOX_UID = 1000
"""The host user id sandbox processes run as when the harness runs as root (root ignores RLIMIT_NPROC)."""
SANDBOX_HOSTNAME = "sandbox"

RUNTIME_DIR = (
    Path("/opt/stateact/sandbox-python")
    if os.geteuid() == 0
    else Path.home() / ".cache/stateact/sandbox-python"
)
"""The sandbox's own Python venv on the host (readable by `SANDBOX_UID`), built by scripts/setup.sh or
`stateact doctor --fix`."""
RUNTIME_PACKAGES = (
    "openpyxl>=3.1",
    "python-docx>=1.1",
    "python-pptx>=0.6.23",
    "pandas",
    "lxml",
    "pillow",
    "pyautogui",
    "python-xlib",
)
"""What a task VM's Python offers the toolkit, the gate's probes and GUI actions."""
RUNTIME_BUILD_TIMEOUT_S = 900.0

LIMIT_PROCESSES = 1024
"""RLIMIT_NPROC of every sandbox process (counted per sandbox user namespace): stops fork bombs."""
LIMIT_ADDRESS_SPACE_BYTES = 8 * 2**30
"""RLIMIT_AS of every sandbox process: one runaway allocation fails instead of the machine swapping."""
LIMIT_CPU_SECONDS = 3600
"""RLIMIT_CPU of one-shot commands (`run`, `run_python`): a runaway loop ends."""
HOLDER_START_TIMEOUT_S = 15.0
"""How long the sandbox's namespace holder may take to come up."""
