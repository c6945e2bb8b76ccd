"""Failures that are not the agent's: a task that could not be set up, run or scored has no score.

Such a task gets `error.json` (a TaskFailure) in its results folder instead of
`result.txt`, shows as an error in the reports, and runs again on resume. A
metric that scores 0 because the agent's file is wrong or missing is a score,
not a failure (see evals/METRICS.md).
"""

from __future__ import annotations

import traceback
from dataclasses import asdict, dataclass
from typing import Any

SETUP = "setup"
"""Loading the task file and running its `config` steps."""
AGENT = "agent"
"""The harness's run: it raised, or ended with an error before the agent's first turn."""
SCORING = "scoring"
"""`postconfig`, the getters' inputs the agent does not make, an unsupported metric rule."""

_DEFAULT_WHAT = {SETUP: "task setup", AGENT: "agent run", SCORING: "scoring"}


@dataclass(frozen=True)
class TaskFailure:
    """Why a task has no score: the stage, what failed, the message (and a traceback when one was raised)."""

    stage: str
    what: str
    error: str
    traceback: str = ""

    @classmethod
    def from_exception(cls, stage: str, exc: BaseException) -> TaskFailure:
        """The failure an exception stands for. One with a `what` attribute names the failing part and
        its message is used as is; any other is named by its type."""
        what = str(getattr(exc, "what", ""))
        message = str(exc) if what else f"{type(exc).__name__}: {exc}"
        trace = "".join(traceback.format_exception(exc))
        return cls(stage, what or _DEFAULT_WHAT[stage], message, trace)

    @property
    def summary(self) -> str:
        """One line: `stage: what: message`."""
        return f"{self.stage}: {self.what}: {self.error}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
