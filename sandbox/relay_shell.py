"""A persistent bash inside any Sandbox that can only run one-shot commands (an OSWorld VM).

Design. The VM server runs every request as a fresh subprocess, so state must
live in a process that outlives requests. We start, detached (`setsid`), a
small terminal relay inside the sandbox (sandbox/pty_relay.py, standard-library
Python): it runs bash on a new pseudo-terminal, feeds it whatever is written to
a FIFO, and appends everything the terminal prints to a log file. Then:

- **input**: each command is uploaded as a script file and `. <script>` is
  written to the FIFO, so heredocs, quotes and multi-line code behave as if
  typed (as in the local BashSession); typed input and Ctrl-C / Ctrl-\\ bytes
  go the same way (base64 in the command line, so any text is safe);
- **output**: the log is read from a byte offset (`tail -c +N | base64`). A log
  read by offset loses nothing, unlike screen scraping (`tmux capture-pane`
  sees only the visible screen and history, and re-wraps long lines);
- **completion**: bash's PROMPT_COMMAND prints a marker with a random nonce
  carrying the exit code and the working directory (sandbox/marker_shell.py).

Why a relay and not tmux or ssh: an OSWorld VM is a stock Ubuntu desktop where
tmux may be missing and ssh is not set up, but python3 is always there (the VM
server is Python). The relay opens the log before bash starts, so the first
prompt is never missed; the pane is a real terminal, so programs behave as in
an interactive shell, and `stty -echo` keeps typed commands out of the log. A
soft timeout returns partial output with `running=True`; `wait` and
`send_input` continue; `interrupt` escalates Ctrl-C, Ctrl-\\, then SIGKILL of
the terminal's foreground process group, then a restart. Each read is one round
trip, so polling starts fast and backs off.
"""

from __future__ import annotations

import base64
import codecs
import itertools
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from shlex import quote

from sandbox.base import Sandbox, SandboxError, ShellOutput
from sandbox.marker_shell import NONINTERACTIVE_ENV, MarkerShell, PromptMarker
from stateact import settings

RELAY_SOURCE = (Path(__file__).parent / "pty_relay.py").read_bytes()
CTRL_C, CTRL_BACKSLASH = "\x03", "\x1c"


class RelayShell(MarkerShell):
    """One bash on a terminal relay inside `sandbox`, driven through `sandbox.run` and `sandbox.write_file`."""

    def __init__(self, sandbox: Sandbox, cwd: str, env: dict[str, str] | None = None) -> None:
        self._sandbox = sandbox
        self._env = {**NONINTERACTIVE_ENV, **(env or {})}
        self._start_cwd = cwd
        self.cwd = cwd
        self._counter = itertools.count(1)
        self._busy = False
        self._alive = False
        self._spawn()

    # -- lifecycle -------------------------------------------------------------
    def _spawn(self) -> None:
        self._dir = f"/tmp/stateact_shell_{secrets.token_hex(6)}"
        self._log = f"{self._dir}/log"
        self._offset = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._marker = PromptMarker()
        exports = "".join(f"export {key}={quote(value)}\n" for key, value in self._env.items())
        rc = (
            "stty -echo 2>/dev/null\nunset HISTFILE\nexport PS1='' PS2='' PS0=''\n"
            f"{exports}{self._marker.prompt_command}\n"
        )
        self._sandbox.write_file(f"{self._dir}/rc", rc.encode())
        self._sandbox.write_file(f"{self._dir}/relay.py", RELAY_SOURCE)
        start = (
            f"cd {self._dir} && (setsid python3 relay.py {self._dir} {quote(self._start_cwd)} "
            "</dev/null >relay.err 2>&1 &) ; for i in $(seq 200); do [ -s pid ] && break; sleep 0.05; done; "
            "cat pid 2>/dev/null || cat relay.err"
        )
        result = self._sandbox.run(start, timeout=settings.VM_SHELL_START_TIMEOUT_S)
        if not result.stdout.strip().isdigit():
            raise SandboxError(f"could not start the shell relay in the sandbox: {result.output.strip()}")
        self._pid = int(result.stdout.strip())
        self._alive = True
        self._busy = True
        if self._collect(settings.VM_SHELL_START_TIMEOUT_S).running:
            raise SandboxError("the sandbox shell did not show a prompt in time")

    def close(self) -> None:
        if self._alive:
            self._alive = False
            self._sandbox.run(
                f"kill -HUP {self._pid} 2>/dev/null; sleep 0.1; kill -9 {self._pid} 2>/dev/null; rm -rf {self._dir}",
                timeout=10,
            )

    # -- commands ----------------------------------------------------------------
    def _send_command(self, command: str) -> None:
        script = f"{self._dir}/cmd_{next(self._counter)}.sh"
        self._sandbox.write_file(script, (command + "\n").encode())
        self._type(f". {quote(script)}\n")

    # -- internals -----------------------------------------------------------------
    def _interrupt_steps(self) -> tuple[Callable[[], None], ...]:
        """Ctrl-C, then Ctrl-\\, then SIGKILL of the terminal's foreground process group."""
        return (lambda: self._type(CTRL_C), lambda: self._type(CTRL_BACKSLASH), self._kill_foreground)

    def _is_dir(self, path: str) -> bool:
        return self._sandbox.run(f"test -d {quote(path)}", timeout=10).ok

    def _type(self, text: str) -> None:
        encoded = base64.b64encode(text.encode()).decode()
        result = self._sandbox.run(f"printf %s {encoded} | base64 -d > {self._dir}/in", timeout=10)
        if not result.ok:
            raise SandboxError(f"could not type into the sandbox shell: {result.output.strip()}")

    def _kill_foreground(self) -> None:
        script = (
            f'fg=$(ps -o tpgid= -p {self._pid} | tr -d " "); '
            f'[ -n "$fg" ] && [ "$fg" != {self._pid} ] && [ "$fg" -gt 0 ] && kill -9 -- "-$fg"; true'
        )
        self._sandbox.run(script, timeout=10)

    def _read_new(self) -> bool:
        """Fetch log bytes past the offset; True when something new arrived."""
        result = self._sandbox.run(
            f"tail -c +{self._offset + 1} {self._log} 2>/dev/null | head -c {settings.VM_SHELL_READ_CAP_BYTES} "
            "| base64 -w0",
            timeout=30,
        )
        if not result.ok:
            raise SandboxError(f"could not read the shell log: {result.output.strip()}")
        raw = base64.b64decode(result.stdout.strip() or b"")
        self._offset += len(raw)
        self._marker.feed(self._decoder.decode(raw))
        return bool(raw)

    def _bash_alive(self) -> bool:
        return self._sandbox.run(f"kill -0 {self._pid} 2>/dev/null", timeout=10).ok

    def _collect(self, timeout: float) -> ShellOutput:
        """Read until the prompt marker or the timeout, whichever comes first."""
        deadline = time.monotonic() + max(0.0, timeout)
        delay = settings.VM_SHELL_POLL_S
        while True:
            done = self._take_finished()
            if done is not None:
                return done
            if self._read_new():
                delay = settings.VM_SHELL_POLL_S
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if not self._bash_alive():
                return self._died()
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, settings.VM_SHELL_POLL_MAX_S)
        return ShellOutput(self._marker.partial(), None, self.cwd, running=True)
