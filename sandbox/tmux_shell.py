"""A persistent bash inside any Sandbox that can only run one-shot commands (an OSWorld VM).

Design. The VM server runs every request as a fresh subprocess, so state must
live in a process that outlives requests. We start bash inside a detached tmux
session on a private tmux server (`tmux -L <name>`, so the VM's own tmux, if
any, is untouched) and talk to it with three kinds of one-shot commands:

- **input**: each command is uploaded as a script file and typed into the pane
  as `. <script>` with `tmux send-keys` (so heredocs, quotes and multi-line code
  behave as if typed, like the local BashSession);
- **output**: `tmux pipe-pane` appends everything the pane prints to a log
  file, and we read that file from a byte offset (`tail -c +N | base64`). A
  log read by offset loses nothing, unlike `capture-pane`, which only sees the
  visible screen and its history and re-wraps long lines;
- **completion**: bash's PROMPT_COMMAND prints a marker with a random nonce
  carrying the exit code and the working directory, exactly as BashSession does.

bash starts only after the pipe is attached (the pane first waits for a flag
file), so its first marker is never missed. The pane is a real terminal, so
programs behave as in an interactive shell; `stty -echo` keeps typed commands
out of the log. A soft timeout returns partial output with `running=True`;
`wait` and `send_input` continue; `interrupt` sends Ctrl-C, then Ctrl-\\, then
SIGKILLs the pane's foreground process group, then restarts the shell.
Each read is one round trip, so polling starts fast and backs off.
"""

from __future__ import annotations

import base64
import codecs
import itertools
import secrets
import time
from collections.abc import Callable
from shlex import quote

from sandbox.base import Sandbox, SandboxError, ShellOutput
from sandbox.bash_session import NONINTERACTIVE_ENV
from sandbox.marker_shell import MarkerShell, PromptMarker
from stateact import settings


class TmuxShell(MarkerShell):
    """One bash in a tmux pane inside `sandbox`, driven through `sandbox.run` and `sandbox.write_file`."""

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
        nonce = secrets.token_hex(6)
        self._name = f"sa_{nonce}"
        self._dir = f"/tmp/stateact_shell_{nonce}"
        self._log = f"{self._dir}/log"
        self._offset = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._marker = PromptMarker()
        exports = "".join(f"export {key}={quote(value)}\n" for key, value in self._env.items())
        rc = (
            "stty -echo 2>/dev/null\nunset HISTFILE\nexport PS1='' PS2='' PS0=''\n"
            f"{exports}"
            f"{self._marker.prompt_command}\n"
        )
        self._sandbox.write_file(f"{self._dir}/rc", rc.encode())
        flag = f"{self._dir}/go"
        pane = f"while [ ! -e {flag} ]; do sleep 0.05; done; exec bash --noprofile --rcfile {self._dir}/rc -i"
        start = (
            f"{self._tmux()} new-session -d -s {self._name} -x 200 -y 50 -c {quote(self._start_cwd)} "
            f"{quote(pane)} && {self._tmux()} pipe-pane -t {self._name} {quote('cat >> ' + self._log)} "
            f"&& touch {flag}"
        )
        result = self._sandbox.run(start, timeout=settings.VM_SHELL_START_TIMEOUT_S)
        if not result.ok:
            raise SandboxError(f"could not start tmux in the sandbox: {result.output.strip()}")
        self._alive = True
        self._busy = True
        first = self._collect(settings.VM_SHELL_START_TIMEOUT_S)
        if first.running:
            raise SandboxError("the sandbox shell did not show a prompt in time")

    def _tmux(self) -> str:
        return f"tmux -L {self._name}"

    def close(self) -> None:
        if self._alive:
            self._alive = False
            self._sandbox.run(f"{self._tmux()} kill-server; rm -rf {self._dir}", timeout=10)

    # -- commands ----------------------------------------------------------------
    def _send_command(self, command: str) -> None:
        script = f"{self._dir}/cmd_{next(self._counter)}.sh"
        self._sandbox.write_file(script, (command + "\n").encode())
        self._keys(f"-l -- {quote('. ' + script)}", "Enter")

    def send_input(self, text: str, timeout: float = settings.BASH_SOFT_TIMEOUT_S) -> ShellOutput:
        """Type text into the running command (a newline is not added)."""
        lines = text.split("\n")
        keys = []
        for index, line in enumerate(lines):
            if line:
                keys.append(f"-l -- {quote(line)}")
            if index < len(lines) - 1:
                keys.append("Enter")
        if keys:
            self._keys(*keys)
        return self._collect(timeout)

    # -- internals -----------------------------------------------------------------
    def _interrupt_steps(self) -> tuple[Callable[[], None], ...]:
        """Ctrl-C, then Ctrl-\\, then SIGKILL of the pane's foreground group."""
        return (lambda: self._keys("C-c"), lambda: self._keys("C-\\\\"), self._kill_foreground)

    def _is_dir(self, path: str) -> bool:
        return self._sandbox.run(f"test -d {quote(path)}", timeout=10).ok

    def _keys(self, *groups: str) -> None:
        target = f"-t {self._name}"
        command = " \\; ".join(f"send-keys {target} {group}" for group in groups)
        result = self._sandbox.run(f"{self._tmux()} {command}", timeout=10)
        if not result.ok:
            raise SandboxError(f"tmux send-keys failed: {result.output.strip()}")

    def _kill_foreground(self) -> None:
        script = (
            f"pane=$({self._tmux()} display -p -t {self._name} '#{{pane_pid}}'); "
            'fg=$(ps -o tpgid= -p "$pane" | tr -d " "); '
            '[ -n "$fg" ] && [ "$fg" != "$pane" ] && [ "$fg" -gt 0 ] && kill -9 -- "-$fg"; true'
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

    def _pane_alive(self) -> bool:
        return self._sandbox.run(f"{self._tmux()} has-session -t {self._name} 2>/dev/null", timeout=10).ok

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
            if not self._pane_alive():
                return self._died()
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, settings.VM_SHELL_POLL_MAX_S)
        return ShellOutput(self._marker.partial(), None, self.cwd, running=True)
