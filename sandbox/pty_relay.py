"""A terminal relay run inside the sandbox: `python3 pty_relay.py DIR CWD MARKER`.

Starts `bash --rcfile DIR/rc -i` on a new pseudo-terminal in CWD, copies bytes
written to the FIFO `DIR/in` to the terminal, and appends everything the
terminal prints to `DIR/log`. Each time the terminal prints a prompt marker
line (MARKER...__END), it replaces `DIR/last` with one line, `SIZE START B64`:
the log's size, where the output since the previous prompt starts, and that
output in base64 (only `SIZE` when the output is over INLINE_BYTES), then
writes a newline to the FIFO `DIR/done`, so a reader can wait for a command's
end without polling and often read its output without another program. When
bash exits, `last` says `exit`. Writes bash's pid to `DIR/pid` once running and exits
when bash does. Standard library only: the sandbox needs nothing but python3
(every OSWorld VM has it: its server is Python).
"""

import base64
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios

ROWS, COLUMNS = 50, 200
INLINE_BYTES = 65536
"""Most output between two prompts that `last` carries itself."""
CARRY_BYTES = 8192
"""Bytes kept from one read to the next, so a marker line split across reads is still seen (it holds the cwd)."""


class MarkerWatch:
    """Finds complete marker lines in terminal output arriving in pieces."""

    def __init__(self, marker: bytes) -> None:
        self.marker = marker
        self.pattern = re.compile(re.escape(marker) + rb"-?\d+__.*?__END\r?\n")
        self.carry = b""

    def seen(self, data: bytes) -> bool:
        """True when `data` completes at least one marker line."""
        text = self.carry + data
        matches = list(self.pattern.finditer(text))
        last = matches[-1] if matches else None
        rest = text[last.end() :] if last else text
        start = rest.rfind(self.marker)
        self.carry = rest[start:][-CARRY_BYTES:] if start >= 0 else rest[-len(self.marker) :]
        return last is not None


def announce(folder: str, done: int, line: bytes) -> None:
    """Replace `last` with `line` and wake a waiting reader (a full FIFO already holds a wake-up)."""
    with open(os.path.join(folder, "last.tmp"), "wb") as handle:
        handle.write(line + b"\n")
    os.replace(os.path.join(folder, "last.tmp"), os.path.join(folder, "last"))
    with contextlib.suppress(BlockingIOError):
        os.write(done, b"\n")


def main(folder: str, cwd: str, marker: str) -> None:
    fifo = os.path.join(folder, "in")
    os.mkfifo(fifo)
    os.mkfifo(os.path.join(folder, "done"))
    inbox = os.open(fifo, os.O_RDWR)  # read-write: writers never block and EOF never comes
    done = os.open(os.path.join(folder, "done"), os.O_RDWR | os.O_NONBLOCK)
    log = os.open(os.path.join(folder, "log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    watch = MarkerWatch(marker.encode())
    pid, terminal = pty.fork()
    if pid == 0:
        # a background `&` start left SIGINT/SIGQUIT ignored; a Python parent, SIGPIPE and SIGXFSZ
        for number in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(number, signal.SIG_DFL)
        os.chdir(cwd)
        os.execvp("bash", ["bash", "--noprofile", "--rcfile", os.path.join(folder, "rc"), "-i"])
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    with open(os.path.join(folder, "pid.tmp"), "w") as handle:
        handle.write(str(pid))
    os.replace(os.path.join(folder, "pid.tmp"), os.path.join(folder, "pid"))
    size = 0
    since_prompt: bytes | None = b""  # None: over INLINE_BYTES
    while True:
        ready, _, _ = select.select([terminal, inbox], [], [])
        if terminal in ready:
            try:
                data = os.read(terminal, 65536)
            except OSError:  # bash exited and the terminal closed
                break
            if not data:
                break
            os.write(log, data)
            size += len(data)
            if since_prompt is not None:
                since_prompt = since_prompt + data if len(since_prompt) + len(data) <= INLINE_BYTES else None
            if watch.seen(data):
                line = b"%d" % size
                if since_prompt is not None:
                    line += b" %d %s" % (size - len(since_prompt), base64.b64encode(since_prompt))
                announce(folder, done, line)
                since_prompt = b""
        if inbox in ready:
            os.write(terminal, os.read(inbox, 65536))
    announce(folder, done, b"exit")
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
