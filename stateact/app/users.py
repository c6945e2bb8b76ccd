"""Who answers the main agent's `ask_user` in a run, from `stateact run`'s `--user` and `--user-model`.

    --user terminal         the person at the terminal (the default of an interactive `stateact run`)
    --user scripted:FILE    answers in order from a JSON list (tests)
    --user relay:DIR        a person or another agent answers in files (`stateact relay DIR`)
    --user none             nobody: every question is answered at once that no one can be asked
    --user-model SPEC       a simulated user: the `user` role plays the task file's persona

A run without any of them that is not interactive has nobody to ask.
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from stateact.app.answer_box import WATCH, AnswerBox, Answered
from stateact.kernel import settings
from stateact.kernel.models.relay import RelayProvider
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.ask_user import NOBODY, Exchange, Reply, User
from stateact.kernel.users import USER_ROLE, ModelUser, ScriptedUser

TERMINAL = "terminal"
NONE = "none"
RELAY = "relay"
USER_KINDS = (TERMINAL, NONE, "scripted:FILE", "relay:DIR")


def parse_user_spec(spec: str) -> tuple[str, str]:
    """(kind, target) of a `--user` spec; ValueError naming the forms for any other."""
    kind, sep, target = spec.partition(":")
    if (kind in (TERMINAL, NONE) and not sep) or (kind in ("scripted", RELAY) and target):
        return kind, target
    raise ValueError(f"bad --user {spec!r}: use {', '.join(USER_KINDS)}")


def check_user(spec: str | None, simulated: bool = False, unattended: bool = False) -> None:
    """ValueError for a `--user` spec that cannot serve: bad form, an unreadable script, a relay folder
    whose parent is missing, one given beside a simulated user (`--user-model`), or the terminal in a run
    no one sits at (`unattended`: `eval run`)."""
    if spec is None:
        return
    if simulated:
        raise ValueError("give --user or --user-model, not both (--user-model is a simulated user)")
    kind, target = parse_user_spec(spec)
    if kind == TERMINAL and unattended:
        raise ValueError(
            f"--user {TERMINAL} needs a person at the run's terminal: give scripted:FILE, relay:DIR or "
            f"{NONE}, or --user-model SPEC for a simulated user"
        )
    if kind == "scripted":
        ScriptedUser.from_file(Path(target).expanduser())
    elif kind == RELAY:
        parent = Path(target).expanduser().absolute().parent
        if not parent.is_dir():
            raise ValueError(f"--user {spec}: the folder's parent {parent} does not exist")


def make_user(spec: str | None, persona: str, simulated: bool, context: RunContext) -> User:
    """The run's user: the simulated one when the `user` role has a model of its own (`simulated`), else
    the one `spec` names; the terminal only while stdin is one (a resumed run may have none)."""
    if simulated:
        return ModelUser(context, persona=persona)
    kind, target = parse_user_spec(spec) if spec else (NONE, "")
    if kind == "scripted":
        return ScriptedUser.from_file(Path(target).expanduser())
    if kind == RELAY:
        return ModelUser(context, model=RelayProvider(Path(target).expanduser(), USER_ROLE, spec=spec))
    if kind == TERMINAL and sys.stdin.isatty():
        return TerminalUser(context.seconds_left, box=AnswerBox(context.run_dir))
    return NOBODY


def interactive_default(spec: str | None, simulated: bool, rollouts: int = 1) -> str | None:
    """`--user` as given, or `terminal` when none is and the run is interactive (stdin is a terminal,
    one rollout, no simulated user)."""
    if spec is None and not simulated and rollouts == 1 and sys.stdin.isatty():
        return TERMINAL
    return spec


ANSWER_PROMPT = "your answer (one line; an empty line answers nothing)> "


class TerminalUser:
    """The person at the terminal: the question is printed, the answer is the next line typed, or the
    one given on the watch page (`box`), whichever comes first."""

    name = TERMINAL

    def __init__(
        self,
        seconds_left: Callable[[float], float],
        fd: int | None = None,
        write: Callable[[str], object] | None = None,
        box: AnswerBox | None = None,
    ) -> None:
        self.seconds_left = seconds_left
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.write = write or _write_stdout
        self.box = box

    def answer(self, question: str, earlier: Sequence[Exchange]) -> Reply:
        wait = self.seconds_left(settings.USER_ANSWER_TIMEOUT_S)
        number = len(earlier) + 1
        box = self.box
        self.write(f"\nThe agent asks you:\n  {question}\n{ANSWER_PROMPT}")
        if box is not None:
            box.ask(number, question)
        try:
            line = _read_line(self.fd, wait, lambda: box is not None and box.answer(number) is not None)
            typed = (line or "").strip()
            if box is not None and not box.claim(number, typed or None, TERMINAL):
                return self._from_page(box.answer(number))
        finally:
            if box is not None:
                box.withdraw()
        if line is None:
            self.write("\n(no answer in time: the agent goes on without one)\n")
            return Reply(None, f"the user did not answer within {wait:.0f} s")
        if not typed:
            return Reply(None, "the user gave no answer")
        return Reply(typed)

    def _from_page(self, answered: Answered | None) -> Reply:
        """The answer the watch page gave first; the terminal is told."""
        text = answered.answer if answered is not None else None
        self.write(f"\n(answered on the watch page: {text})\n")
        if text is None:
            return Reply(None, "the user gave no answer", answerer=WATCH)
        return Reply(text, answerer=WATCH)


def _write_stdout(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _read_line(fd: int, seconds: float, stop: Callable[[], bool] = lambda: False) -> str | None:
    """The next line read from `fd` within `seconds` (without its newline); at the end of input what was
    read; None when the time ran out or `stop` (asked every USER_ANSWER_POLL_S) said so first."""
    deadline = time.monotonic() + seconds
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or stop():
            return None
        if not select.select([fd], [], [], min(left, settings.USER_ANSWER_POLL_S))[0]:
            continue
        chunk = os.read(fd, 1)  # one byte at a time: what follows the line stays for the next read
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", errors="replace").rstrip("\r\n")
