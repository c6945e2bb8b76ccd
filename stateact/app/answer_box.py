"""A run's question open to more than one answerer: the person at the terminal and the watch page.

While the run waits on a question it names it in its run folder (outside the agent's sandbox):

    question.json      {"number": N, "question": ..., "owner": "PID START_TIME"}
    answer-N.json      {"answer": text or null, "by": "terminal" | "watch"}

The first answer wins: an answer file is published by a hard link, which fails when one is there, so a
question is answered once, by whichever side came first, and the other side reads who did.

    box = AnswerBox(run_dir)
    box.ask(3, "Which sheet?")          # the run: open the question (a stale answer-3.json goes)
    box.claim(3, "Sheet2", TERMINAL)    # True: this answer counts; False: the other side answered first
    box.answer(3)                       # Answered("Sheet2", "terminal"), or None while unanswered
    box.withdraw()                      # the run: the question is closed
    box.pending()                       # {"number", "question"} while a live run waits, else None
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stateact.sandbox.processes import start_time

QUESTION_FILE = "question.json"
WATCH = "watch"
"""Who answered from the watch page."""


@dataclass(frozen=True)
class Answered:
    answer: str | None
    """None: no answer (the terminal's time ran out, or an empty line)."""
    by: str


class AnswerBox:
    """The open question of the run whose folder is `run_dir`, and its answer files."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)

    def _answer_file(self, number: int) -> Path:
        return self.run_dir / f"answer-{number}.json"

    def ask(self, number: int, question: str) -> None:
        """Open question `number` (an answer left by an earlier, stopped attempt of the run is removed)."""
        self._answer_file(number).unlink(missing_ok=True)
        owner = f"{os.getpid()} {start_time(os.getpid())}"
        self._publish(self.run_dir / QUESTION_FILE, {"number": number, "question": question, "owner": owner})

    def withdraw(self) -> None:
        (self.run_dir / QUESTION_FILE).unlink(missing_ok=True)

    def pending(self) -> dict[str, Any] | None:
        """The question a live process of the run waits on (number and text), or None."""
        try:
            data = json.loads((self.run_dir / QUESTION_FILE).read_text(encoding="utf-8"))
            pid, _, started = str(data["owner"]).partition(" ")
            number, question = int(data["number"]), str(data["question"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not pid.isdigit() or start_time(int(pid)) != started or self.answer(number) is not None:
            return None
        return {"number": number, "question": question}

    def claim(self, number: int, answer: str | None, by: str) -> bool:
        """Publish `answer` to question `number` unless one is there: True when this one counts."""
        return self._publish(self._answer_file(number), {"answer": answer, "by": by}, replace=False)

    def answer(self, number: int) -> Answered | None:
        """The answer published to question `number`, or None while there is none."""
        try:
            data = json.loads(self._answer_file(number).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        answer = data.get("answer") if isinstance(data, dict) else None
        return Answered(answer if isinstance(answer, str) else None, str(data.get("by", "")))

    def _publish(self, path: Path, value: dict[str, Any], replace: bool = True) -> bool:
        """Write `value` as `path` whole (a reader never sees part of it); without `replace`, only when
        `path` is not there (False otherwise)."""
        fd, temporary = tempfile.mkstemp(dir=self.run_dir, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(value, out)
            if replace:
                os.replace(temporary, path)
                return True
            try:
                os.link(temporary, path)
            except FileExistsError:
                return False
            return True
        finally:
            Path(temporary).unlink(missing_ok=True)
