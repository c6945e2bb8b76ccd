"""Named settings of the sandbox package: shells, displays, isolation, OSWorld VMs and pools."""

import os
from pathlib import Path

ISOLATION_MODES = ("bwrap", "none")
"""`bwrap`: every process of a local sandbox runs inside bubblewrap; `none`: plain host processes."""
DEFAULT_ISOLATION = "bwrap"
NETWORK_MODES = ("own", "host")
"""`own`: an isolated sandbox has a network namespace of its own (sandbox/netns.py); `host`: it shares
this machine's network, loopback included (a task that needs the host's services)."""
DEFAULT_NETWORK = "own"
PASTA_START_TIMEOUT_S = 10.0
"""How long pasta may take to set up the sandbox's outbound route."""
RELAY_CHUNK_BYTES = 65536
"""What a relay between the harness and a sandbox's namespace reads at once."""

SANDBOX_HOME = "/home/user"
"""The home folder as the sandbox's processes see it (an OSWorld VM's)."""
SANDBOX_UID = 1000
"""The host user id sandbox processes run as when the harness runs as root (root ignores RLIMIT_NPROC)."""
SANDBOX_HOSTNAME = "sandbox"
SANDBOX_USER = "user"
"""The user name inside an isolated sandbox, as on OSWorld's VM image (password: `password`)."""
IMAGE_FOLDERS = ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Public", "Templates", "Videos")
"""The folders of the VM image's home (with `~/.config/user-dirs.dirs` naming them)."""
IMAGE_SETTINGS = (("org.gnome.desktop.screensaver", "lock-enabled", "false"),)
"""GSettings keys whose value on the VM image differs from GNOME's default, set in a fresh home."""
IMAGE_BIN_MOUNT = "/run/stateact/bin"
"""Where an isolated sandbox sees sandbox/image_bin (sudo), on PATH after the toolkit."""
SESSION_BUS_TIMEOUT_S = 10.0
"""How long the sandbox's session D-Bus may take to come up."""
SANDBOX_TOOLKIT = "/run/stateact/toolkit"
"""Where an isolated sandbox sees the office toolkit's bin folder (in its own /run, so the path tells
nothing of the harness's checkout)."""

RUNTIME_DIR = (
    Path("/opt/stateact/sandbox-python")
    if os.geteuid() == 0
    else Path.home() / ".cache/stateact/sandbox-python"
)
"""The sandbox's own Python venv on the host (readable by `SANDBOX_UID`), built by scripts/setup.sh or
`stateact doctor --fix`."""
SYSTEM_FOLDERS = ("/usr", "/etc", "/opt", "/var/lib", "/var/cache", "/sys")
"""Host folders an isolated sandbox sees, read-only: the installed system, as a VM's disk holds it.
Nothing else of the host is there (other users' homes, /root, /mnt, /srv, checkouts, data folders)."""
SYSTEM_COVERED = ("/sys/devices/virtual/block",)
"""Folders of `SYSTEM_FOLDERS` covered by an empty tmpfs inside: the loop devices' `backing_file` there
names host files (every sandbox's home image)."""
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Top-level folders that merged-/usr systems keep as links into /usr: links inside too, else folders."""
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
"""Processes one sandbox may have at once (`--max-processes`): its cgroup's pids.max (sandbox/cgroups.py);
where there are no cgroups, RLIMIT_NPROC, which counts every process of the sandbox's user (one budget
for all sandboxes when the harness is root)."""
LIMIT_MEMORY_BYTES = 4 * 2**30
"""Memory one sandbox's processes may use together, RAM and swap (`--max-memory`; an OSWorld VM has 4 GB):
its cgroup's memory limit, past which the kernel kills the largest process inside."""
MIN_PROCESSES = 32
"""The fewest processes a sandbox may be given: its holder, session bus, shell and one command fit."""
MIN_MEMORY_BYTES = 64 * 2**20
"""The least memory a sandbox may be given: its session bus and a shell fit."""
CGROUP_REMOVE_TIMEOUT_S = 10.0
"""How long closing a sandbox waits for the processes left in its cgroup to die before giving up on it."""
LIMIT_ADDRESS_SPACE_BYTES = 8 * 2**30
"""RLIMIT_AS of every sandbox process: one runaway allocation fails instead of the machine swapping."""
LIMIT_CPU_SECONDS = 3600
"""RLIMIT_CPU of one-shot commands (`run`, `run_python`): a runaway loop ends."""
FILE_OP_TIMEOUT_S = 20.0
"""Longest one harness file operation in a sandbox (a read, a write, a look at a path) may take before its
helper is killed and the operation fails: a tool call on a file never blocks the run."""
FILE_READ_CAP_BYTES = 512 * 2**20
"""Largest file the harness reads from a sandbox at once (the editor, evidence, the gate, checkers)."""
HOLDER_START_TIMEOUT_S = 15.0
"""How long the sandbox's namespace holder may take to come up."""
SYSTEM_PYTHON = "/usr/bin/python3"
"""The machine's own Python (Debian's), which small harness helpers outside the sandbox run on."""
GUARD_EXIT_TIMEOUT_S = 10.0
"""How long a closed sandbox's guard (sandbox/guard.py) may take to look for its processes and end."""

# Shells, displays, OSWorld VMs and pools
HARNESS_TMP_PREFIX = ".stateact-"
"""Entries of a local sandbox's /tmp whose names start so are the harness's (its shell's scripts, its
launched programs' logs): a resume does not carry them into the new sandbox, which makes its own."""
BASH_SOFT_TIMEOUT_S = 30.0
"""How long a bash call waits for its command before returning partial output."""
BASH_INTERRUPT_GRACE_S = 3.0
"""How long each escalation step (Ctrl-C, then SIGQUIT) waits for the prompt."""
BASH_MAXREAD = 1 << 20
"""pexpect read size; large reads keep 10 MB outputs fast."""
DISPLAY_SIZE = (1280, 800)
DISPLAY_DEPTH = 24
DISPLAY_START_TIMEOUT_S = 15.0
RECORDING_FPS = 4
"""Frames per second of a display's video: enough to follow the agent, light on a loaded machine."""
RECORDING_STOP_TIMEOUT_S = 15.0
"""How long ffmpeg may take to finish the video once asked to stop, before it is killed."""
BASH_COLLECT_CAP_CHARS = 32_000_000
"""A bash call returns early (the command still running) once this much output is waiting, bounding memory."""
VM_REQUEST_TIMEOUT_S = 30.0
"""HTTP timeout of one VM server call that does not run a command (files, screenshots, launch)."""
VM_EXECUTE_LIMIT_S = 120.0
"""The VM server kills every /execute subprocess after this long; longer work goes through the shell."""
VM_RETRIES = 3
"""Attempts per VM call when the connection fails (the official client also tries 3 times)."""
VM_BACKOFF_S = 1.0
"""First delay between attempts; it doubles on each retry."""
VM_QUERY_TIMEOUT_S = 10.0
"""Longest a short query command in the VM may take (its environment, whether a path exists)."""
VM_HOME = "/home/user"
"""The task user's home inside an OSWorld VM; task files name paths under it."""
VM_SHELL_WAIT_MAX_S = 60.0
"""Longest one VM shell request waits inside the VM for the command's prompt (under VM_EXECUTE_LIMIT_S);
a longer soft timeout takes several requests."""
VM_SHELL_REQUEST_MARGIN_S = 10.0
"""Time a VM shell request may take beyond its wait inside the VM (sending, reading the log)."""
VM_SHELL_INLINE_BYTES = 32_000
"""Commands up to this size travel inside the shell's request; longer ones are uploaded first (one more
request), as one argument of a command line is limited to 128 KiB."""
VM_SHELL_READ_CAP_BYTES = 4 << 20
"""Most bytes of shell output fetched from the VM per read."""
VM_SHELL_START_TIMEOUT_S = 15.0
POOL_RESET_TIMEOUT_S = 600.0
"""How long a VM slot's reset command (a snapshot revert) may run."""
POOL_READY_TIMEOUT_S = 300.0
"""How long a pool waits, after a reset, for the VM server to answer before retiring the slot."""
POOL_READY_POLL_S = 2.0
"""Delay between two probes of a VM server that is coming back from a reset."""
POOL_PROBE_TIMEOUT_S = 5.0
"""HTTP timeout of one readiness or health probe of a VM server."""
POOL_LEASE_MARKER = "~/.stateact-lease"
"""The file a pool leaves in a VM it hands out; a VM that still has it after a reset was not reset."""

# Disk caps and private mounts of an isolated sandbox (sandbox/mounts.py)
DISK_HOME_BYTES = 10 * 2**30
"""The most the agent's home may hold (`--disk-home`): a loop-mounted ext4 image of this size."""
DISK_TMP_BYTES = 2 * 2**30
"""The most the sandbox's /tmp may hold (`--disk-tmp`): a tmpfs of this size, counted in memory."""
DEV_SHM_BYTES = 1 * 2**30
"""The size of the sandbox's private /dev/shm (POSIX shared memory: multiprocessing, browsers)."""
VAR_TMP_BYTES = 256 * 2**20
"""The size of the sandbox's /var/tmp, a tmpfs: like /tmp and /dev/shm it is counted in the sandbox's
memory, so together they stay below the default memory cap and a full one leaves its processes room."""
STATE_TMPFS_BYTES = 64 * 2**20
"""The tmpfs holding a sandbox's small files (toolkit and image copies, /etc files, runtime folder)."""
HOME_IMAGE_FOLDER = "/var/tmp"
"""Where home images live on the host: /var/tmp is on disk where /tmp may be in memory."""
MOUNT_TIMEOUT_S = 60.0
"""How long one mount, unmount, mkfs or copy-in command may take."""
QEMU_BINARY = "qemu-system-x86_64"
QEMU_MEMORY_MB = 2048
"""Memory of a qemu slot's guest (pool file: `memory_mb`)."""
QEMU_CPUS = 1
"""Virtual CPUs of a qemu slot's guest (pool file: `cpus`)."""
QEMU_KVM_PROBE_S = 60.0
"""How long a first boot under KVM may take to answer before KVM is taken as not working here (a guest
that stalls in early boot under partial nested virtualization) and the slot boots with TCG instead."""
QEMU_STOP_TIMEOUT_S = 10.0
"""How long a killed qemu may take to end before its slot is retired."""
QEMU_STATE_DIR = "stateact-qemu"
"""Folder (under the system's temporary folder unless a slot names its own) of each slot's overlay,
qemu's pid file and the guest's console log."""
