"""The finish gate's accuracy corpus: deliverables of office-suite tasks, each with the verdict it deserves.

    cases = load_cases()                                   # evals/authoring/gate_corpus/*.json, validated
    with staged_case(cases[0], root, cache_dir) as staged:  # the task's setup, the baseline, the case's steps
        pregate_verdict(staged)                            # "pass" or "fail"
        gate_verdict(staged)                               # "pass", "fail" or "undecided" (needs a gate model)

A case (`<id>.json`) names a task of the office suite, the steps that turn the task's set-up state
into the deliverable (the reference solution's bash commands, optionally with text replaced or some
skipped; shell commands; web pages visited, saved as the web subagent would), whether the agent
claims the task is infeasible, and the expected verdict with a one-line reason. A case may carry
its own `instruction` (the gate reads it in place of the task's) and `setup` (bash steps run after
the task's setup, before the baseline is taken), for deliverables the suite's instructions never
name: a file "in my home folder", a bare file name, a running script, a folder of inputs. Paths are
written as the task files write them (`/home/user`, the isolated sandbox's home). A case is staged
as a run is: the task's setup on a fresh LocalSandbox isolated by bubblewrap (with a display when
the setup opens a window), the case's setup, the gate's baseline, then the steps.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stateact.evals import settings
from stateact.evals.running.runner import prepare_task
from stateact.evals.running.suite import OFFICE_SUITE, SuiteTask, discover
from stateact.gate.inspect.changes import take_baseline
from stateact.gate.inspect.deliverables import mentioned_paths
from stateact.gate.inspect.pregate import run_pregate
from stateact.gate.review import FinishGate
from stateact.kernel.meter import Meter
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.sandbox.local import LocalSandbox

CORPUS_DIR = Path(__file__).parent / "gate_corpus"
KINDS = (
    "correct",
    "wrong_value",
    "wrong_sheet",
    "missing_row",
    "extra_change",
    "uncached_formulas",
    "stale_open_document",
    "wrong_folder",
    "wrong_web_value",
    "false_infeasible",
)
"""What a case's deliverable is: right, or wrong in one of the ways the gate must catch."""
DISPLAY_STEPS = ("open", "activate_window", "close_window", "chrome_open_tabs")
"""Setup step types that need a display."""
NO_MODEL = "scripted:unused.json"
"""The main role's spec when only the pre-gate runs (no model is asked)."""


class CaseError(RuntimeError):
    """A case that is malformed, or whose steps could not be applied."""


class SolutionStep(BaseModel):
    """The reference solution's bash commands (main role) in order, with `replace` applied to each."""

    model_config = ConfigDict(extra="forbid")
    run: Literal["solution"]
    replace: list[tuple[str, str]] = []
    skip: list[int] = []
    """Indexes of the solution's bash commands left out."""


class BashStep(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run: Literal["bash"]
    command: str = Field(min_length=1)


class VisitStep(BaseModel):
    """Pages a headless browser loads and saves to the run's `web_pages/`, as the web subagent does."""

    model_config = ConfigDict(extra="forbid")
    run: Literal["visit"]
    urls: list[str] = Field(min_length=1)


Step = Annotated[SolutionStep | BashStep | VisitStep, Field(discriminator="run")]


class GateCase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    task: str
    kind: Literal[KINDS]  # type: ignore[valid-type]
    instruction: str | None = Field(default=None, min_length=1)
    """The instruction the gate reads in place of the task's; None keeps the task's."""
    setup: list[BashStep] = []
    """Commands run after the task's setup and before the baseline: the state the instruction starts from."""
    steps: list[Step]
    infeasible_claim: str | None = None
    """The agent's stated reason when it calls `finish(infeasible=true)`; None for a deliverable."""
    expected: Literal["pass", "fail"]
    reason: str = Field(min_length=1)


def suite_tasks() -> dict[str, SuiteTask]:
    return {t.id: t for t in discover(OFFICE_SUITE)}


def load_cases(folder: Path = CORPUS_DIR, only: list[str] | None = None) -> list[GateCase]:
    """Every case in `folder` (sorted by id), or those in `only`; raises CaseError on a bad case."""
    tasks = suite_tasks()
    cases = [_load_case(path, tasks) for path in sorted(Path(folder).glob("*.json"))]
    if only:
        missing = sorted(set(only) - {c.id for c in cases})
        if missing:
            raise CaseError(f"no case {', '.join(missing)} in {folder}")
        cases = [c for c in cases if c.id in only]
    return cases


def _load_case(path: Path, tasks: dict[str, SuiteTask]) -> GateCase:
    try:
        case = GateCase.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        raise CaseError(f"{path.name}: {exc}") from exc
    if case.id != path.stem:
        raise CaseError(f"{path.name}: id {case.id!r} differs from the file name")
    if case.task not in tasks:
        raise CaseError(f"{path.name}: no task {case.task!r} in the office suite")
    if not case.steps and case.infeasible_claim is None:
        raise CaseError(f"{path.name}: a deliverable case needs steps")
    for step in case.steps:
        if isinstance(step, SolutionStep):
            _solution_commands(tasks[case.task], step, path.name)
    return case


def _solution_commands(task: SuiteTask, step: SolutionStep, where: str) -> list[str]:
    """The solution's bash commands with `step` applied; every replacement and skip must match."""
    script = json.loads(task.solution_path.read_text(encoding="utf-8"))
    commands = [
        call["input"]["command"]
        for turn in script["roles"]["main"]
        for call in turn.get("tool_calls", [])
        if call["name"] == "bash"
    ]
    bad_skips = [i for i in step.skip if not 0 <= i < len(commands)]
    if bad_skips:
        raise CaseError(f"{where}: skip {bad_skips} outside the solution's {len(commands)} bash commands")
    kept = [c for i, c in enumerate(commands) if i not in step.skip]
    for old, new in step.replace:
        if not any(old in c for c in kept):
            raise CaseError(f"{where}: {old!r} is in none of the solution's bash commands")
        kept = [c.replace(old, new) for c in kept]
    return kept


@dataclass
class StagedCase:
    """A case's deliverable state on a started sandbox, with the run folder the gate writes to."""

    case: GateCase
    context: RunContext
    started_at: float | None


def needs_display(task: SuiteTask) -> bool:
    return task.domain == "desktop" or any(step.type in DISPLAY_STEPS for step in task.task.config)


@contextmanager
def staged_case(
    case: GateCase, root: Path, cache_dir: Path, gate_model: str | None = None
) -> Iterator[StagedCase]:
    """Set up the case's task and its own setup in `root/home`, take the baseline into `root/run`, apply the steps.

    The fixtures must be built in `cache_dir` (`python -m evals.fixtures.build DIR`). `gate_model` is
    the spec of the gate role (None: only the pre-gate can run). The sandbox is closed on exit."""
    if Path(root).exists():
        raise CaseError(f"{case.id}: {root} exists already; a case is staged in a new folder")
    task = suite_tasks()[case.task]
    sandbox = LocalSandbox(Path(root) / "home", display=needs_display(task), isolation="bwrap", hidden=[root])
    log = RunLog(Path(root) / "run")
    try:
        sandbox.start()
        prepared = prepare_task(task.path, sandbox, cache_dir)
        instruction = case.instruction or prepared.instruction
        for step in case.setup:
            _apply(step, case, task, sandbox, log)
        started_at = sandbox.clock()
        take_baseline(sandbox, log.run_dir, instruction, log, started_at)
        for step in case.steps:
            _apply(step, case, task, sandbox, log)
        models = RoleModels(main=gate_model or NO_MODEL, gate=gate_model)
        context = RunContext(log.run_dir, instruction, sandbox, log, Meter(), models)
        yield StagedCase(case, context, started_at)
    finally:
        log.close()
        sandbox.close()


def _apply(step: Step, case: GateCase, task: SuiteTask, sandbox: LocalSandbox, log: RunLog) -> None:
    if isinstance(step, VisitStep):
        _visit(step.urls, sandbox, log)
        return
    commands = _solution_commands(task, step, case.id) if isinstance(step, SolutionStep) else [step.command]
    for command in commands:
        result = sandbox.run(command, timeout=settings.GATE_CORPUS_STEP_TIMEOUT_S)
        if not result.ok:
            raise CaseError(
                f"{case.id}: step failed (exit {result.returncode}): {command[:200]}\n{result.output[-1500:]}"
            )


def _visit(urls: list[str], sandbox: LocalSandbox, log: RunLog) -> None:
    """Load each page in a headless browser and save it as the web subagent would."""
    from stateact.subagents.browser import BrowserSession  # Playwright loads only for web cases
    from stateact.subagents.web_pages import WebPageLog

    session = BrowserSession(sandbox)
    session.on_snapshot = WebPageLog(log).record
    try:
        session.start()
        for url in urls:
            session.page.goto(url)
            session.settle()
            session.snapshot()
    finally:
        session.close()


def pregate_verdict(staged: StagedCase) -> str:
    """The pre-gate's verdict: "fail" on a certain problem, else "pass". It does not judge an
    infeasibility claim (the gate ignores its findings then), so a claim always gets "pass"."""
    if staged.case.infeasible_claim is not None:
        return "pass"
    sandbox = staged.context.sandbox
    result = run_pregate(sandbox, mentioned_paths(staged.context.task), staged.started_at)
    return "fail" if result.findings else "pass"


def gate_verdict(staged: StagedCase) -> str:
    """One review by the full FinishGate (pre-gate, then the gate model): "pass", "fail" or "undecided"."""
    gate = FinishGate(staged.context, task_started_at=staged.started_at)
    verdict = gate.review(infeasible_claim=staged.case.infeasible_claim)
    return "undecided" if verdict.passed is None else "pass" if verdict.passed else "fail"


def rates(expected: list[str], verdicts: list[str]) -> tuple[float | None, float | None]:
    """(catch rate: wrong deliverables failed / wrong ones, false-fail rate: correct failed / correct)."""
    wrong = [v for e, v in zip(expected, verdicts, strict=True) if e == "fail"]
    right = [v for e, v in zip(expected, verdicts, strict=True) if e == "pass"]
    catch = sum(v == "fail" for v in wrong) / len(wrong) if wrong else None
    false_fail = sum(v == "fail" for v in right) / len(right) if right else None
    return catch, false_fail


def check_balance(cases: list[GateCase]) -> None:
    """Raise CaseError unless each expected verdict has at least GATE_CORPUS_MIN_SHARE of the cases."""
    for side in ("pass", "fail"):
        share = sum(c.expected == side for c in cases) / len(cases)
        if share < settings.GATE_CORPUS_MIN_SHARE:
            raise CaseError(f"only {share:.0%} of the cases expect {side}")
