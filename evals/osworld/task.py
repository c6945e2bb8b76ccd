"""OSWorld task files: pydantic models and a loader.

A task file is JSON with `id`, `instruction`, `config` (setup steps),
`evaluator` and bookkeeping fields. Unknown fields are kept, so a task file
round-trips unchanged. Read as OSWorld reads it: the bookkeeping fields
(`source`, `snapshot`, `proxy`, ...) may have any shape, a missing or null
`config` is no steps, and an empty `result` or `expected` (`{}`) is no getter.
A task whose `func` is empty loads, but cannot be scored (OSWorld's DesktopEnv
fails to set it up: it has no metric function of that name).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

INFEASIBLE = "infeasible"
"""Not a metric function: the task scores 1 only when the agent declared it infeasible (see evals/osworld/scoring.py)."""


class TaskError(ValueError):
    """A task file is malformed or names something that cannot be provided."""


class Step(BaseModel):
    """One setup step: `{type, parameters}`."""

    model_config = ConfigDict(extra="allow")

    type: str
    parameters: dict[str, Any] = Field(default_factory=dict)


class Getter(BaseModel):
    """Where a metric's input comes from: `{type: vm_file | cloud_file | rule | vm_command_line, ...}`."""

    model_config = ConfigDict(extra="allow")

    type: str

    def params(self) -> dict[str, Any]:
        return self.model_dump(exclude={"type"})


class Evaluator(BaseModel):
    """`func` is one metric name or a list combined by `conj` (`and` | `or`)."""

    model_config = ConfigDict(extra="allow")

    func: str | list[str]
    result: Getter | list[Getter | None] | None = None
    expected: Getter | list[Getter | None] | None = None
    options: dict[str, Any] | list[dict[str, Any] | None] = Field(default_factory=dict)
    conj: str = "and"
    postconfig: list[Step] = Field(default_factory=list)

    @field_validator("result", "expected", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        """`{}` (a whole value or a list entry) is no getter, as OSWorld skips an empty one."""
        if isinstance(value, list):
            return [entry or None for entry in value]
        return value or None

    @field_validator("conj")
    @classmethod
    def _known_conj(cls, value: str) -> str:
        if value not in ("and", "or"):
            raise ValueError(f"conj must be 'and' or 'or', not {value!r}")
        return value

    def getters(self) -> list[Getter]:
        """Every result and expected getter the evaluator names."""
        found = []
        for value in (self.result, self.expected):
            found.extend(g for g in (value if isinstance(value, list) else [value]) if g is not None)
        return found

    def funcs(self) -> list[str]:
        return [self.func] if isinstance(self.func, str) else list(self.func)

    def nth(self, field: str, index: int) -> Any:
        """The getter or options of metric `index` (a single value applies to a single metric)."""
        value = getattr(self, field)
        if isinstance(self.func, str):
            return value
        if isinstance(value, list):
            return value[index] if index < len(value) else None
        return value if field == "options" and not value else None


class ScheduledChange(BaseModel):
    """A change the harness makes to the task's machine during the run (a task file's `schedule` entry):
    once the run has made `after_steps` tool calls (every role's, evals/running/step_count.py) or
    `after_seconds` have passed since the agent started, its `steps` (setup steps of any kind) run in the
    sandbox. The agent is told nothing."""

    model_config = ConfigDict(extra="forbid")

    id: str = ""
    """Its name in the events and results (default: its place in the list, `change-1`)."""
    after_steps: int | None = Field(None, ge=1)
    after_seconds: float | None = Field(None, gt=0)
    steps: list[Step] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_trigger(self) -> ScheduledChange:
        if (self.after_steps is None) == (self.after_seconds is None):
            raise ValueError("give one of `after_steps` and `after_seconds`")
        return self

    @property
    def trigger(self) -> str:
        """When it is due, in words (`after 40 steps`, `after 90 seconds`)."""
        if self.after_steps is not None:
            return f"after {self.after_steps} steps"
        return f"after {self.after_seconds:g} seconds"


class UserPersona(BaseModel):
    """The user a simulated user plays (`--user-model`): a task file's `user`, as an object of these
    fields or as one text."""

    model_config = ConfigDict(extra="forbid")

    persona: str = ""
    """Who the user is."""
    knows: list[str] = Field(default_factory=list)
    wants: list[str] = Field(default_factory=list)
    does_not_know: list[str] = Field(default_factory=list)
    answers: str = ""
    """How the user answers (brief, vague, only what is asked...)."""

    def text(self) -> str:
        """The persona as the simulated user's prompt gives it."""
        parts = [self.persona] if self.persona else []
        for title, items in (
            ("You know", self.knows),
            ("You want", self.wants),
            ("You do not know", self.does_not_know),
        ):
            parts += [f"{title}:", *(f"- {item}" for item in items)] if items else []
        if self.answers:
            parts.append(f"How you answer: {self.answers}")
        return "\n".join(parts)


class Task(BaseModel):
    """An OSWorld task file."""

    model_config = ConfigDict(extra="allow")

    id: str
    instruction: str
    config: list[Step] = Field(default_factory=list)
    evaluator: Evaluator
    related_apps: list[str] = Field(default_factory=list)
    snapshot: Any = None
    source: Any = None
    proxy: Any = None
    possibility_of_env_change: Any = None
    max_steps: int | None = Field(None, ge=1)
    """The main agent's step budget this task needs (a stateact field; OSWorld's files have none): a run
    of the task that sets no --max-steps uses it."""
    user: UserPersona | None = None
    """The user behind the task, for a simulated user (a stateact field; a text is its `persona`)."""

    schedule: list[ScheduledChange] = Field(default_factory=list)
    """Changes made during the run (a stateact field; see ScheduledChange)."""
    checkpoint_safe: bool | None = None
    """Whether the task may be scored mid-run (`--checkpoint-steps`); None: when its postconfig does
    nothing to the machine's applications (evals/running/budget_scores.py)."""

    @field_validator("schedule")
    @classmethod
    def _named_changes(cls, changes: list[ScheduledChange]) -> list[ScheduledChange]:
        """Each change gets its default id; ids must differ (the run records which were made by id)."""
        named = [c.model_copy(update={"id": c.id or f"change-{n}"}) for n, c in enumerate(changes, 1)]
        seen: set[str] = set()
        for change in named:
            if change.id in seen:
                raise ValueError(f"two scheduled changes are named {change.id!r}")
            seen.add(change.id)
        return named

    @field_validator("user", mode="before")
    @classmethod
    def _text_is_a_persona(cls, value: Any) -> Any:
        return {"persona": value} if isinstance(value, str) else value

    @property
    def persona(self) -> str:
        """The simulated user's persona ("": the task gives none)."""
        return self.user.text() if self.user is not None else ""

    @field_validator("config", mode="before")
    @classmethod
    def _no_config_is_no_steps(cls, value: Any) -> Any:
        return [] if value is None else value

    @property
    def infeasible(self) -> bool:
        return INFEASIBLE in self.evaluator.funcs()


def step_budget(task: Task, given: int | None, default: int | None) -> int | None:
    """The main agent's step budget on `task`: the one given, else the task's own, else `default`."""
    if given is not None:
        return given
    return task.max_steps if task.max_steps is not None else default


def load_task(path: Path) -> Task:
    """Read and validate a task file; raises TaskError naming the file and the problem."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise TaskError(f"task file not found: {path}") from exc
    except json.JSONDecodeError as exc:
        raise TaskError(f"{path} is not valid JSON: {exc}") from exc
    try:
        return Task.model_validate(raw)
    except ValidationError as exc:
        raise TaskError(f"{path} is not an OSWorld task: {validation_summary(exc)}") from None


def validation_summary(exc: ValidationError, limit: int = 3) -> str:
    """A validation error on one line: each failing field and why (`evaluator: Input should be ...`)."""
    problems = [
        f"{'.'.join(str(part) for part in error['loc']) or 'the file'}: {error['msg']}"
        for error in exc.errors()[:limit]
    ]
    more = exc.error_count() - limit
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


def task_domain(path: Path, task: Task) -> str:
    """The domain folder of a suite's task: its parent folder (as in OSWorld's `examples/<domain>/<id>.json`)."""
    parent = Path(path).resolve().parent.name
    return parent or app_domain(task)


OSWORLD_DOMAINS = frozenset(
    {"chrome", "gimp", "libreoffice_calc", "libreoffice_impress", "libreoffice_writer", "multi_apps"}
    | {"os", "thunderbird", "vlc", "vs_code"}
)
"""The domain folders of OSWorld's `evaluation_examples/examples`."""
MULTI_APPS = "multi_apps"


def app_domain(task: Task) -> str:
    """A domain named by the task's apps, as OSWorld files them: its one app, `multi_apps` for several."""
    if not task.related_apps:
        return "default"
    return task.related_apps[0] if len(task.related_apps) == 1 else MULTI_APPS


SHIPPED_SUITES = Path(__file__).resolve().parents[1] / "suites"
"""The task suites shipped with stateact (evals/suites/)."""


def standalone_domain(path: Path, task: Task) -> str:
    """The domain of a task run on its own (`stateact run --task`): its folder when that is one of
    OSWorld's domains or a folder of a shipped suite (so a task is filed where `eval run` files it),
    else the one its apps name (a folder such as `tasks/` names no domain)."""
    folder = Path(path).resolve().parent
    if folder.name in OSWORLD_DOMAINS or folder.is_relative_to(SHIPPED_SUITES):
        return folder.name
    return app_domain(task)
