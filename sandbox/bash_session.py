"""A persistent bash driven through a pseudo-terminal with pexpect.

Each command is written to a script file and sourced, so commands of any length
and shape (heredocs, multi-line functions) behave as if typed, and exactly one
prompt marker follows each (sandbox/marker_shell.py: the marker carries the exit
code and the working directory). Reading happens with a large `maxread` and no
send delay.

bash is its terminal's controlling process, also in an isolated sandbox (where `nsenter` starts it):
when the harness dies (`kill -9` included) the terminal hangs up and the kernel's SIGHUP goes to bash,
which ends its jobs and exits, so nothing after the cut command of a line runs. Were `nsenter` the
controlling process, the SIGHUP would end it and then only the running command, and bash would go on
to the next command of the line.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import secrets
import signal
import struct
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from shlex import quote

import pexpect

from stateact.sandbox import settings
from stateact.sandbox.base import ShellOutput
from stateact.sandbox.marker_shell import (
    NONINTERACTIVE_ENV,
    MarkerShell,
    PromptMarker,
    restore_default_signals,
)
from stateact.sandbox.processes import kill_session

TIOCGSID = 0x5429
"""ioctl: the session of a terminal (its pty master's too); Python's termios lacks it (asm-generic/ioctls.h)."""
TAKE_TERMINAL = ("setsid", "--ctty")
"""Prefix of a shell started inside a sandbox: a session of its own, whose controlling terminal is the pty."""


class BashSession(MarkerShell):
    """One bash process behind a pty. Not thread-safe; one caller at a time.

    A shell in an isolated sandbox gives `launcher` (the host argv that runs a given argv inside, in a
    given sandbox folder), `preexec` (its resource limits), `inner_scratch` (where the shell
    sees `scratch_dir`) and `is_dir` (whether a sandbox path is a folder). `env` is the shell's whole
    environment (the harness's when None), so an isolated sandbox's shell gets none of the harness's.
    """

    DEFAULT_ARGV = ("bash", "--noprofile", "--norc", "--noediting", "-i")

    def __init__(
        self,
        scratch_dir: Path,
        cwd: str,
        env: Mapping[str, str] | None = None,
        launcher: Callable[[Sequence[str], str], list[str]] | None = None,
        preexec: Callable[[], None] | None = None,
        inner_scratch: str | None = None,
        is_dir: Callable[[str], bool] = os.path.isdir,
    ) -> None:
        if not Path(scratch_dir).is_absolute():
            raise ValueError(f"the shell's scratch folder must be an absolute path, not {scratch_dir}")
        self._scratch = Path(scratch_dir)
        self._scratch.mkdir(parents=True, exist_ok=True)
        self._start_cwd = cwd
        self._env = {**(os.environ if env is None else env), **NONINTERACTIVE_ENV}
        self._launcher = launcher
        self._preexec = preexec
        self._inner_scratch = inner_scratch or str(self._scratch)
        self._is_dir_check = is_dir
        self._counter = itertools.count(1)
        self._script_prefix = f"cmd_{secrets.token_hex(3)}"  # shells sharing a scratch folder never collide
        self._child: pexpect.spawn | None = None
        self._session = 0
        """The session of bash and its jobs (the terminal's)."""
        self._busy = False
        self.cwd = cwd
        self._spawn()

    # -- lifecycle -------------------------------------------------------
    def _before_exec(self) -> None:
        """In the child before bash starts: default signal dispositions, the terminal left for the shell
        inside a sandbox to take, then the sandbox's limits."""
        restore_default_signals()
        if self._launcher is not None:
            give_up_terminal()
        if self._preexec is not None:
            self._preexec()

    def _spawn(self) -> None:
        self._marker = PromptMarker()
        if self._launcher is None:
            argv = list(self.DEFAULT_ARGV)
        else:
            argv = self._launcher((*TAKE_TERMINAL, *self.DEFAULT_ARGV), self._start_cwd)
        self._child = pexpect.spawn(
            argv[0],
            argv[1:],
            cwd=None if self._launcher else self._start_cwd,
            env=self._env,
            preexec_fn=self._before_exec,
            encoding="utf-8",
            codec_errors="replace",
            echo=False,
            maxread=settings.BASH_MAXREAD,
            searchwindowsize=None,
            dimensions=(50, 200),
        )
        self._child.delaybeforesend = None
        self._child.sendline(
            "stty -echo -onlcr 2>/dev/null; unset HISTFILE; export PS1='' PS2='' PS0=''; "
            + self._marker.prompt_command
        )
        self._busy = True
        self._collect(settings.BASH_SOFT_TIMEOUT_S)
        if self._busy:
            raise RuntimeError("bash did not start: no prompt within the timeout")
        self._session = terminal_session(self._child.child_fd)

    def close(self) -> None:
        """End the shell and everything in its terminal's session at once (the running command, the rest
        of its command line, its background jobs), then release the terminal."""
        if self._child is not None:
            for session in {self._child.pid, self._session} - {0}:
                kill_session(session)
            self._child.close(force=True)
        self._child = None

    # -- commands ----------------------------------------------------------
    def _send_command(self, command: str) -> None:
        name = f"{self._script_prefix}_{next(self._counter)}.sh"
        (self._scratch / name).write_text(command + "\n", encoding="utf-8")
        self._child.sendline(f". {quote(self._inner_scratch + '/' + name)}")

    def _type(self, text: str) -> None:
        self._child.send(text)

    # -- internals -----------------------------------------------------------
    def _interrupt_steps(self) -> tuple[Callable[[], None], ...]:
        """Ctrl-C, then Ctrl-\\ (SIGQUIT), then SIGKILL of the terminal's foreground process group."""
        return (self._child.sendintr, lambda: self._child.sendcontrol("\\"), self._kill_foreground)

    def _is_dir(self, path: str) -> bool:
        return self._is_dir_check(path)

    def _kill_foreground(self) -> None:
        try:
            pgid = os.tcgetpgrp(self._child.child_fd)
            if pgid != self._session:  # bash's own group: it is at its prompt
                os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass

    def _collect(self, timeout: float) -> ShellOutput:
        """Read until the prompt marker, the timeout or a memory-bounding amount of output."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            done = self._take_finished()
            if done is not None:
                return done
            remaining = deadline - time.monotonic()
            if remaining <= 0 or len(self._marker.pending) >= settings.BASH_COLLECT_CAP_CHARS:
                break
            try:
                text = self._child.read_nonblocking(settings.BASH_MAXREAD, timeout=min(remaining, 0.5))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                self._child.close(force=True)
                return self._died(self._child.exitstatus)
            self._marker.feed(text)
        return ShellOutput(self._marker.partial(), None, self.cwd, running=True)


def give_up_terminal() -> None:
    """In a session leader: release its controlling terminal, so that a process of another session can
    take it (the SIGHUP that the release sends the leader's own group is ignored)."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    fcntl.ioctl(0, termios.TIOCNOTTY)
    signal.signal(signal.SIGHUP, previous)


def terminal_session(master_fd: int) -> int:
    """The session whose controlling terminal is the pty behind `master_fd` (its PID as the harness sees it)."""
    raw = fcntl.ioctl(master_fd, TIOCGSID, struct.pack("i", 0))
    return struct.unpack("i", raw)[0]
