"""A terminal relay run inside the sandbox: `python3 pty_relay.py DIR CWD`.

Starts `bash --rcfile DIR/rc -i` on a new pseudo-terminal in CWD, copies bytes
written to the FIFO `DIR/in` to the terminal, and appends everything the
terminal prints to `DIR/log`. Writes bash's pid to `DIR/pid` once running and
exits when bash does. Standard library only: the sandbox needs nothing but
python3 (every OSWorld VM has it: its server is Python).
"""

import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios

ROWS, COLUMNS = 50, 200


def main(folder: str, cwd: str) -> None:
    fifo = os.path.join(folder, "in")
    os.mkfifo(fifo)
    inbox = os.open(fifo, os.O_RDWR)  # read-write: writers never block and EOF never comes
    log = os.open(os.path.join(folder, "log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
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
        if inbox in ready:
            os.write(terminal, os.read(inbox, 65536))
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
