"""A persistent bash inside any Sandbox that can only run one-shot commands (an OSWorld VM).

Design. The VM server runs every request as a fresh subprocess, so state must
live in a process that outlives requests. We start, detached (`setsid`), a
small terminal relay inside the sandbox (sandbox/pty_relay.py, standard-library
Python): it runs bash on a new pseudo-terminal, feeds it whatever is written to
a FIFO, appends everything the terminal prints to a log file, and announces
each prompt marker on a second FIFO. A command then costs ONE request in the
common case, a small bash script that:

- **sends**: writes the command to a script file and `. <script>` to the input
  FIFO, so heredocs, quotes and multi-line code behave as if typed (as in the
  local BashSession); typed input and Ctrl-C / Ctrl-\\ bytes go the same way.
  Commands over VM_SHELL_INLINE_BYTES are uploaded first;
- **waits** inside the sandbox, without polling, for the relay to announce a
  prompt past the bytes already read (`read -t` on the wake-up FIFO), at most
  VM_SHELL_WAIT_MAX_S or the caller's soft timeout;
- **reads** the output: the relay's `last` line carries the output since the
  previous prompt (when small), else the log is read from a byte offset
  (`dd skip=N | base64`). A log read by offset loses nothing, unlike screen
  scraping (`tmux capture-pane` sees only the visible screen and history, and
  re-wraps long lines).

Completion is bash's PROMPT_COMMAND marker with a random nonce carrying the
exit code and the working directory (sandbox/marker_shell.py). A command that
outlives the wait returns partial output with `running=True`; `wait` and
`send_input` continue. Background children do not matter: the marker, not the
end of a pipe, ends a command. Output that is not UTF-8 is decoded with
replacement characters and a note.

Why a relay and not tmux or ssh: an OSWorld VM is a stock Ubuntu desktop where
tmux may be missing and ssh is not set up, but python3 is always there (the VM
server is Python). The relay opens the log before bash starts, so the first
prompt is never missed; the pane is a real terminal, so programs behave as in
an interactive shell, and `stty -echo` keeps typed commands out of the log.
`interrupt` escalates Ctrl-C, Ctrl-\\, then SIGKILL of the terminal's
foreground process group, then a restart.
"""

from __future__ import annotations

import base64
import codecs
import itertools
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from shlex import quote

from stateact.sandbox import settings
from stateact.sandbox.base import Sandbox, SandboxError, ShellOutput
from stateact.sandbox.marker_shell import NONINTERACTIVE_ENV, MarkerShell, PromptMarker

RELAY_SOURCE = (Path(__file__).parent / "pty_relay.py").read_bytes()
CTRL_C, CTRL_BACKSLASH = "\x03", "\x1c"
UNDECODABLE_NOTE = "the output was not UTF-8: undecodable bytes are shown as \ufffd"
_UNDECODABLE = re.compile("[\udc80-\udcff]")
RELAY_EXITED = "exit"


def replace_undecodable(text: str) -> tuple[str, bool]:
    """Text decoded with `surrogateescape` -> the same with U+FFFD for each undecodable byte, and whether any was."""
    replaced, count = _UNDECODABLE.subn("\ufffd", text)
    return replaced, bool(count)


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
        self._offset = 0
        self._prompt_at = 0
        """Log size at the last prompt the relay announced; past the offset: a marker waits to be read."""
        self._outbox: list[str] = []
        self._undecodable = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
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
            f"{self._marker.marker} </dev/null >relay.err 2>&1 &) ; "
            "for i in $(seq 200); do [ -s pid ] && break; sleep 0.05; done; cat pid 2>/dev/null || cat relay.err"
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
        """Queue the command for the next request (uploaded now when too long to travel inside it)."""
        script = f"{self._dir}/cmd_{next(self._counter)}.sh"
        text = command + "\n"
        if "\0" in text or len(text.encode()) > settings.VM_SHELL_INLINE_BYTES:
            self._sandbox.write_file(script, text.encode())
        else:
            self._outbox.append(f"printf %s {quote(text)} > {script}")
        self._type(f". {quote(script)}\n")

    # -- internals -----------------------------------------------------------------
    def _interrupt_steps(self) -> tuple[Callable[[], None], ...]:
        """Ctrl-C, then Ctrl-\\, then SIGKILL of the terminal's foreground process group."""
        return (lambda: self._type(CTRL_C), lambda: self._type(CTRL_BACKSLASH), self._kill_foreground)

    def _is_dir(self, path: str) -> bool:
        return self._sandbox.run(f"test -d {quote(path)}", timeout=10).ok

    def _type(self, text: str) -> None:
        """Queue keys for the terminal; the next request writes them to the relay's input FIFO."""
        if "\0" in text:
            encoded = base64.b64encode(text.encode()).decode()
            self._outbox.append(f"printf %s {encoded} | base64 -d > {self._dir}/in")
        else:
            self._outbox.append(f"printf %s {quote(text)} > {self._dir}/in")

    def _kill_foreground(self) -> None:
        script = (
            f'fg=$(ps -o tpgid= -p {self._pid} | tr -d " "); '
            f'[ -n "$fg" ] && [ "$fg" != {self._pid} ] && [ "$fg" -gt 0 ] && kill -9 -- "-$fg"; true'
        )
        self._sandbox.run(script, timeout=10)

    def _exchange(self, wait_s: float) -> str:
        """One request: send what is queued, wait inside the sandbox up to `wait_s` for a prompt past the
        offset, read the new log bytes (from the relay's `last` line when it holds them, else the log).
        Returns the relay's word: a prompt's log size, RELAY_EXITED, or "" (no new prompt)."""
        sends = "".join(f"{line} || exit 3\n" for line in self._outbox)
        self._outbox.clear()
        if wait_s > 0 and self._prompt_at <= self._offset:  # else a prompt is already known to be waiting
            sleep = f"exec 3<>done; read -t {wait_s:.3f} -u 3 _ || break"
        else:
            sleep = "break"
        script = (
            f"cd {self._dir} || exit 3\n{sends}"
            "while :; do s=; read -r s < last 2>/dev/null; set -- $s\n"
            f'[ "$1" = {RELAY_EXITED} ] && break; [ -n "$1" ] && [ "$1" -gt {self._offset} ] && break\n'
            f"{sleep}; done\n"
            f"kill -0 {self._pid} 2>/dev/null || set -- {RELAY_EXITED}\n"
            f'if [ "$2" = {self._offset} ] && [ -n "$3" ]; then echo "$s"; else echo "$1"\n'
            f"dd if=log iflag=skip_bytes,count_bytes skip={self._offset} "
            f"count={settings.VM_SHELL_READ_CAP_BYTES} status=none | base64 -w0; fi"
        )
        result = self._sandbox.run(script, timeout=wait_s + settings.VM_SHELL_REQUEST_MARGIN_S)
        if not result.ok:
            raise SandboxError(f"could not drive the sandbox shell: {result.output.strip()[:500]}")
        first, _, rest = result.stdout.partition("\n")
        status, _, inline = first.strip().partition(" ")
        raw = base64.b64decode(inline.partition(" ")[2] if inline else rest.strip())
        self._offset += len(raw)
        text, undecodable = replace_undecodable(self._decoder.decode(raw))
        self._undecodable |= undecodable
        self._marker.feed(text)
        if status.isdigit():
            self._prompt_at = max(self._prompt_at, int(status))
        return status

    def _collect(self, timeout: float) -> ShellOutput:
        """Exchange until the prompt marker or the timeout, whichever comes first; one request usually."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            if not self._outbox:
                done = self._take_finished()
                if done is not None:
                    return self._noted(done)
            remaining = deadline - time.monotonic()
            status = self._exchange(min(remaining, settings.VM_SHELL_WAIT_MAX_S))
            done = self._take_finished()
            if done is not None:
                return self._noted(done)
            if status == RELAY_EXITED:
                return self._died()
            if time.monotonic() >= deadline and self._prompt_at <= self._offset:
                return self._noted(ShellOutput(self._marker.partial(), None, self.cwd, running=True))

    def _noted(self, out: ShellOutput) -> ShellOutput:
        """`out` with a note when some of its bytes were not UTF-8."""
        if not self._undecodable:
            return out
        self._undecodable = False
        return replace(out, note="; ".join(filter(None, (out.note, UNDECODABLE_NOTE))))
