"""Users that answer the main agent's `ask_user` without a terminal: a script, or a model role.

    ScriptedUser.from_file(path)                    # `--user scripted:FILE`: answers in order
    ModelUser(context, persona="...")               # `--user-model SPEC`: the `user` role plays the persona
    ModelUser(context, model=RelayProvider(dir))    # `--user relay:DIR`: a person or an agent answers in files

A model user answers each question in a loop of its own (scope `user#N`, role `user`: its settings,
its spend in the meter) whose request holds the task, the earlier questions and answers, and the
question, so it needs no state of its own and a resumed run's user knows what it said before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from stateact.kernel import settings
from stateact.kernel.loop import Budget, LoopOutcome, LoopSpec
from stateact.kernel.models.base import ModelProvider
from stateact.kernel.prompts import read_prompt
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.ask_user import Exchange, Reply

USER_ROLE = "user"
NO_PERSONA = (
    "You wrote the task as it stands and know nothing beyond it: a fact, a value or a decision it does "
    "not state, you do not know."
)
"""The simulated user's persona when the task gives none."""


class UserScriptError(ValueError):
    """A `--user scripted:FILE` that is not a JSON list of answers."""


class ScriptedUser:
    """Gives the answers of a script in order (for tests); past its end, no answer."""

    name = "scripted"

    def __init__(self, answers: Sequence[str], path: Path | None = None) -> None:
        self.answers = list(answers)
        self.path = path

    @classmethod
    def from_file(cls, path: Path) -> ScriptedUser:
        """A script: a JSON list of answers, or `{"answers": [...]}`; UserScriptError otherwise."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UserScriptError(f"cannot read the user's script {path}: {exc}") from None
        answers = data.get("answers") if isinstance(data, dict) else data
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            raise UserScriptError(f"the user's script {path} is not a list of answers (texts)")
        return cls(answers, Path(path))

    def answer(self, question: str, earlier: Sequence[Exchange]) -> Reply:
        """The answer after those already given (a resumed run's `earlier` counts them)."""
        given = sum(1 for exchange in earlier if exchange.answer is not None)
        if given >= len(self.answers):
            return Reply(None, f"the user's script has no answer left after {len(self.answers)}")
        return Reply(self.answers[given])


class ModelUser:
    """A user played by a model: the `user` role as the persona (simulated), or a given provider (relay)."""

    def __init__(self, context: RunContext, persona: str = "", model: ModelProvider | None = None) -> None:
        self.context = context
        self.persona = (persona or NO_PERSONA) if model is None else ""
        self.model = model
        self.name = "simulated" if model is None else "relay"

    def answer(self, question: str, earlier: Sequence[Exchange]) -> Reply:
        context = self.context
        present = {"persona"} if self.persona else set()
        spec = LoopSpec(
            scope=context.log.next_scope(USER_ROLE),
            tools=[],
            system_prompt=read_prompt(USER_ROLE, present, persona=self.persona),
            budget=Budget(
                1,
                context.dollar_budget(settings.USER_MAX_USD),
                context.seconds_left(settings.USER_MAX_SECONDS),
            ),
        )
        outcome: LoopOutcome = context.loop(spec, model=self.model).run(
            user_request(context.task, earlier, question)
        )
        if outcome.status != "replied" or not outcome.text.strip():
            return Reply(None, f"the {self.name} user gave no answer ({outcome.status}: {outcome.text})")
        return Reply(outcome.text.strip())


def user_request(task: str, earlier: Sequence[Exchange], question: str) -> str:
    """What a model user reads: the task, the questions asked before with their answers, the question."""
    lines = [f"The task you gave the agent:\n<task>\n{task}\n</task>"]
    if earlier:
        lines.append("Its earlier questions and your answers:")
        lines += [
            f"- Q: {e.question}\n  A: {e.answer if e.answer is not None else '(no answer)'}" for e in earlier
        ]
    lines.append(f"The agent asks:\n<question>\n{question}\n</question>")
    return "\n\n".join(lines)
