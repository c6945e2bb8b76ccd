"""The Sandbox contract: everything the harness does to a machine goes through it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from shlex import quote
from typing import Protocol

from stateact.sandbox.paths import expand_path


@dataclass(frozen=True)
class CommandResult:
    """The outcome of a one-shot command."""

    returncode: int
    stdout: str
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@dataclass(frozen=True)
class ShellOutput:
    """What a persistent shell returns. `exit_code` is None while the command still runs."""

    output: str
    exit_code: int | None
    cwd: str
    running: bool = False
    note: str = ""


class Shell(Protocol):
    """A persistent shell: state (cwd, env, functions) survives between calls."""

    def run(self, command: str, timeout: float) -> ShellOutput: ...

    def wait(self, timeout: float) -> ShellOutput: ...

    def send_input(self, text: str, timeout: float) -> ShellOutput: ...

    def interrupt(self) -> ShellOutput: ...

    def restart(self) -> ShellOutput: ...

    @property
    def busy(self) -> bool: ...

    def close(self) -> None: ...


class SandboxError(RuntimeError):
    """A sandbox could not do what was asked (unreachable VM, no display, ...)."""


class SandboxLost(SandboxError):
    """A part the sandbox cannot work without (its X server, a helper that would not start again) died:
    the run cannot go on in this sandbox, and ends (a resume starts a new one)."""


class SandboxUnsupported(SandboxError):
    """The sandbox cannot give what was asked at all (not a passing failure): the caller may need a VM."""


class BrowserPlace(Enum):
    """Where the web subagent's browser runs and how it is reached."""

    ATTACHED = "attached"
    """A running Chrome at `Sandbox.web_browser_url`, reached over CDP."""
    INSIDE = "inside"
    """A Chromium the sandbox starts among its own processes (`LocalSandbox.spawn`), reached over CDP."""
    HOST = "host"
    """A Chromium Playwright launches on this machine; downloads are written into the sandbox."""


class Sandbox(ABC):
    """A machine the agent acts on. Backends: local host processes, an OSWorld VM."""

    home: str
    """The task's home folder as seen inside the sandbox."""
    toolkit_dir: str
    """The folder of the office toolkit (sandbox/toolkit/bin) as seen inside the sandbox; the sandbox's
    shells have it first on PATH."""
    shares_host_files: bool = False
    """Whether the sandbox sees the host's files at their host paths (then nothing needs uploading)."""
    shares_host_network: bool = False
    """Whether the sandbox's loopback network is the host's (then two sandboxes cannot serve one port)."""
    cdp_port: int = 9222
    """The sandbox's port where the Chrome a task starts serves DevTools (OSWorld's tasks forward 9222 to it)."""

    full_system: bool = False
    """Whether the sandbox is a whole machine of its own (an OSWorld VM): its system can be changed
    (packages, users, services), and a task's setup step that fails is recorded as OSWorld does."""
    display: str | None = None
    """The X display on this machine that is the sandbox's screen (`:N`), where a recording and a live
    view read it; None when its screen is not on this machine."""
    tag: str | None = None
    """The tag of the processes it starts on this machine (sandbox/processes.py), which a later run kills
    when this one died; None when it starts none here."""
    warnings: Sequence[str] = ()
    """What did not go as planned at start (the run logs and prints them)."""
    web_browser_url: str | None = None
    """A running Chrome's DevTools endpoint the web subagent attaches to (a run's `--cdp-url`); None: the
    web subagent starts its own browser (`browser_place`)."""

    @abstractmethod
    def start(self) -> None: ...

    @abstractmethod
    def close(self) -> None:
        """End every process the sandbox started; safe to call twice."""

    @abstractmethod
    def run(self, command: str, timeout: float = 60.0) -> CommandResult:
        """Run a one-shot shell command and wait for it."""

    def clock(self) -> float | None:
        """The sandbox's clock in epoch seconds (a VM's clock may differ from the host's); None if unreadable."""
        result = self.run("date +%s.%N")
        try:
            return float(result.stdout.strip())
        except ValueError:
            return None

    @abstractmethod
    def read_file(self, path: str) -> bytes:
        """Read the file `path` names (see `expand`); raises FileNotFoundError when it does not exist,
        IsADirectoryError when it is a folder."""

    @abstractmethod
    def write_file(self, path: str, data: bytes) -> None:
        """Write the file `path` names (see `expand`), creating parent folders; raises IsADirectoryError
        when it is a folder."""

    @abstractmethod
    def open_shell(self, scratch_dir: Path) -> Shell:
        """Start a persistent shell; `scratch_dir` is a host folder it may use for its own files."""

    @abstractmethod
    def screenshot(self) -> bytes:
        """A PNG of the whole screen."""

    @abstractmethod
    def screen_size(self) -> tuple[int, int]: ...

    def run_read_only(self, command: str, timeout: float = 60.0) -> CommandResult | None:
        """Run `command` like `run`, but in a read-only view of the sandbox's files (a throwaway $TMPDIR the
        only writable folder), or return None when this sandbox has no such view."""
        return None

    @abstractmethod
    def run_python(self, code: str, timeout: float = 60.0) -> CommandResult:
        """Run Python code on the sandbox's display (GUI actions are pyautogui code run this way)."""

    @abstractmethod
    def launch(self, command: str) -> None:
        """Start a long-lived process without waiting for it."""

    def restore_helpers(self) -> str:
        """Check the processes the sandbox runs for itself (called before each tool call): start again
        those that died where that is safe, and return what the agent must be told of it ('' when all
        ran); raise SandboxLost when one died that cannot come back."""
        return ""

    def browser_place(self) -> BrowserPlace:
        """Where the web subagent's browser runs: attached to `web_browser_url` when one is given, else
        launched on this machine."""
        return BrowserPlace.ATTACHED if self.web_browser_url else BrowserPlace.HOST

    def harness_url(self, url: str) -> str:
        """`url` (an address as the sandbox's processes use it) as this machine's harness reaches the same
        server; the same URL unless the sandbox has a loopback of its own on this machine."""
        return url

    def keep_tmp_in(self, folder: Path) -> None:
        """If the harness dies, its clean-up moves the sandbox's /tmp to `folder` (a run folder's, for the
        resume) rather than deleting it; nothing to do where /tmp outlives the harness (a VM)."""
        return None

    def reach_host_ports(self, ports: Iterable[int]) -> None:
        """Make each of `ports` on this machine's 127.0.0.1 reachable inside on the same port (the task's
        own sites on this machine); nothing to do where the sandbox shares this machine's network or is
        another machine."""
        return None

    def cdp_url(self) -> str:
        """The DevTools address of the sandbox's Chrome (`cdp_port`) as this machine reaches it."""
        raise SandboxError(f"{type(self).__name__} cannot reach a browser inside it")

    # -- desktop state (what OSWorld's evaluators read); backends override what they can give ----------
    def accessibility_tree(self) -> str:
        """The AT-SPI tree of the desktop as XML text."""
        raise SandboxUnsupported(
            f"needs a VM: accessibility tree (AT-SPI), which {type(self).__name__} lacks"
        )

    def terminal_output(self) -> str | None:
        """The text of the active terminal window, as its accessibility node holds it; None when no
        terminal is active."""
        raise SandboxUnsupported(
            f"needs a VM: terminal output (read from the AT-SPI tree), which {type(self).__name__} lacks"
        )

    def window_size(self, app_class: str) -> tuple[int, int] | None:
        """(width, height) of the first window whose WM_CLASS instance or class is `app_class` (any case);
        None when there is none."""
        raise SandboxUnsupported(f"{type(self).__name__} cannot measure windows")

    def wallpaper(self) -> bytes | None:
        """The desktop's wallpaper file (XFCE's, else GNOME's picture-uri); None when none is set."""
        raise SandboxUnsupported(f"{type(self).__name__} cannot read the wallpaper")

    def directory_tree(self, path: str) -> dict | None:
        """`{type: "directory", name, children: [...]}` of the folder `path` names (see `expand`),
        recursively, files as `{type: "file", name}`; None when it is not a folder."""
        raise SandboxUnsupported(f"{type(self).__name__} cannot list folders")

    def path_variables(self) -> Mapping[str, str]:
        """The environment that `$NAME` in a path expands from (the sandbox's own)."""
        return {}

    def expand(self, path: str) -> str:
        """The absolute sandbox path that `path` names: `~`, `$NAME`, `${NAME}` and relative paths are
        resolved as the OSWorld VM server does (the rule is in sandbox/paths.py). Every method that
        takes a path goes through this."""
        return expand_path(path, self.home, self.path_variables())

    def exists(self, path: str) -> bool:
        """Whether the file or folder `path` names (see `expand`) exists."""
        return self.run(f"test -e {quote(self.expand(path))}").ok

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
