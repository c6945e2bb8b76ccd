"""`stateact relay DIR`: answer a relay provider's requests from a terminal.

It waits for the pending request, shows the end of its readable text (and why the last reply was
rejected, if it was), reads a reply from stdin up to a line `.` or the end of input, and writes it as
the reply file: `.reply.json` when it starts with `[` or `{`, `.reply.txt` otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from stateact.kernel import settings
from stateact.kernel.models.relay import error_path, pending_stem, rejected_count, reply_path, write_atomic

END_OF_REPLY = "."
"""A line holding only this ends a typed reply."""


def play(directory: Path, stdin: TextIO, echo: Callable[[str], None], lines: int, watch: bool) -> int:
    """Answer the pending request (every request in turn with `watch`); returns the replies written.

    Ends after one reply, or with `watch` when the input ends without a reply.
    """
    written = 0
    answered: tuple[str, int] | None = None
    while True:
        stem = wait_for_request(directory, answered, echo)
        show(directory, stem, lines, echo)
        reply = read_reply(stdin)
        if reply is None:
            echo("no reply written")
            return written
        path = write_reply(directory, stem, reply)
        echo(f"wrote {path}")
        written += 1
        if not watch:
            return written
        answered = (stem, rejected_count(directory, stem))


def wait_for_request(directory: Path, answered: tuple[str, int] | None, echo: Callable[[str], None]) -> str:
    """The pending request's stem, once it is not the one just answered (unless that was rejected since)."""
    told = False
    while True:
        stem = pending_stem(directory)
        if stem is not None and (stem, rejected_count(directory, stem)) != answered:
            return stem
        if not told:
            echo(f"waiting for a request in {directory} (Ctrl-C to stop) ...")
            told = True
        time.sleep(settings.RELAY_POLL_S)


def show(directory: Path, stem: str, lines: int, echo: Callable[[str], None]) -> None:
    """The last `lines` lines of the request's text, then the last rejection of a reply to it."""
    request = directory / f"{stem}.request.txt"
    text = request.read_text(encoding="utf-8").splitlines()
    shown = text[-lines:] if lines > 0 else text
    echo(f"== {request} (last {len(shown)} of {len(text)} lines) ==")
    echo("\n".join(shown))
    if rejected_count(directory, stem):
        echo(f"== your last reply was rejected ({error_path(directory, stem).name}) ==")
        echo(error_path(directory, stem).read_text(encoding="utf-8").rstrip())
    echo(f"== reply to {stem}; end with a line `{END_OF_REPLY}` or end of input ==")


def read_reply(stdin: TextIO) -> str | None:
    """Lines up to a line `.` or the end of input; None when nothing was typed."""
    typed: list[str] = []
    for line in iter(stdin.readline, ""):
        if line.rstrip("\r\n") == END_OF_REPLY:
            break
        typed.append(line.rstrip("\r\n"))
    reply = "\n".join(typed).strip("\n")
    return reply + "\n" if reply.strip() else None


def write_reply(directory: Path, stem: str, reply: str) -> Path:
    """Save a reply whole: as JSON when it starts with `[` or `{` (bad JSON is then rejected, not
    taken as text), else as text."""
    kind = "json" if reply.lstrip().startswith(("[", "{")) else "txt"
    path = reply_path(directory, stem, kind)
    write_atomic(path, reply)
    return path
