"""The `ask_user` tool: the main agent asks the user a question and gets the answer back.

Who answers is a `User` chosen by the run (`stateact.app.users`): the person at the terminal, a
script, a relay folder, a simulated user, or nobody. Every question and answer is a `user_question`
and a `user_answer` event; `exchanges` reads them back from a log (a resumed run, the finish gate).

    AskUserTool(context, NOBODY).run(AskUserInput(question="Which sheet?"))  # "No one can be asked ..."
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from stateact.kernel.events import (
    Event,
    UserAnswer,
    UserQuestion,
    ignore_damaged,
    parse_event,
    read_jsonl,
)
from stateact.kernel.roles import MAIN
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.base import Tool, ToolResult


@dataclass(frozen=True)
class Exchange:
    """One question of the agent and the user's answer (None: no one answered)."""

    question: str
    answer: str | None


@dataclass(frozen=True)
class Reply:
    """What a user gave back: the answer, or None and why there is none."""

    answer: str | None
    reason: str = ""
    answerer: str = ""
    """Who answered, when not the user itself (the watch page for the terminal's person)."""


class User(Protocol):
    """Who answers the agent's questions in a run."""

    name: str
    """How the events name it: terminal, scripted, relay, simulated, nobody."""

    def answer(self, question: str, earlier: Sequence[Exchange]) -> Reply:
        """The answer to `question`; `earlier` holds the run's questions and answers before it."""


class Nobody:
    """A run without a user (non-interactive, no `--user`): every question is answered at once by no one."""

    name = "nobody"

    def answer(self, question: str, earlier: Sequence[Exchange]) -> Reply:
        return Reply(None, "no one can be asked in this run")


NOBODY = Nobody()


def exchanges(events: Iterable[Event]) -> list[Exchange]:
    """The main agent's questions with their answers, in order, from a run's events; a question the
    log has no answer for (the run stopped while it waited) is left out."""
    found: list[Exchange] = []
    question: str | None = None
    for event in events:
        if event.scope != MAIN:
            continue
        if isinstance(event, UserQuestion):
            question = event.question
        elif isinstance(event, UserAnswer) and question is not None:
            found.append(Exchange(question, event.answer))
            question = None
    return found


def logged_exchanges(events_path: Path) -> list[Exchange]:
    """`exchanges` of a run's log, reading only its question and answer lines (a long log stays cheap)."""
    kinds = {UserQuestion.model_fields["kind"].default, UserAnswer.model_fields["kind"].default}
    records = (record for _, record in read_jsonl(events_path, ignore_damaged))
    return exchanges(parse_event(r) for r in records if isinstance(r, dict) and r.get("kind") in kinds)


def clarifications(found: Iterable[Exchange]) -> str:
    """The questions the user answered, with the answers, as lines for a reviewer ("": none)."""
    return "\n".join(
        f"- asked: {json.dumps(e.question, ensure_ascii=False)}\n"
        f"  answered: {json.dumps(e.answer, ensure_ascii=False)}"
        for e in found
        if e.answer is not None
    )


class AskUserInput(BaseModel):
    question: str = Field(
        min_length=1,
        description="One self-contained question (the user does not see your work), with the options "
        "you found.",
    )


NO_ONE_TEXT = (
    "No answer: {reason}. Decide from the instruction and the machine's state: take the "
    "reading the instruction most plainly supports, and say in your finish summary what you assumed."
)


class AskUserTool(Tool[AskUserInput]):
    name = "ask_user"
    description = (
        "Ask the user who gave you the task one question and wait for the answer. Ask only when the "
        "machine's state cannot settle it and a guess could cost the task: readings of the instruction "
        "that give different results, a decision that is the user's (a preference, consent to something "
        "irreversible), or what only the user has (a password, a key). Never ask what you can find out, "
        "to confirm a plan, or for leave to do what the task says. Answers are part of the instruction; "
        "if no one can be asked, the tool says so at once."
    )
    Input = AskUserInput

    def __init__(self, context: RunContext, user: User, past_events: Iterable[Event] = ()) -> None:
        self.context = context
        self.user = user
        self.earlier = exchanges(past_events)

    def run(self, params: AskUserInput) -> ToolResult:
        log = self.context.log
        log.emit(UserQuestion(question=params.question, answerer=self.user.name))
        started = time.monotonic()
        reply = self.user.answer(params.question, tuple(self.earlier))
        log.emit(
            UserAnswer(
                answer=reply.answer,
                answerer=reply.answerer or self.user.name,
                reason=reply.reason,
                seconds=round(time.monotonic() - started, 3),
            )
        )
        self.earlier.append(Exchange(params.question, reply.answer))
        if reply.answer is None:
            return ToolResult(text=NO_ONE_TEXT.format(reason=reply.reason or "no answer came"))
        return ToolResult(text=f"The user answered:\n{reply.answer}")
