"""Running one task end to end, or resuming one: run folder, sandbox, main loop, result."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from stateact.app.arguments import check_models
from stateact.app.config import RunConfig
from stateact.app.harness import build_main_loop
from stateact.app.resume import ResumeError, RunState, load_run_state, restore_loop
from stateact.app.signals import shielded
from stateact.app.survival import CARRIED_TMP, carry_tmp, drop_staged_tmp, end_leftovers, resume_note
from stateact.app.users import make_user
from stateact.app.variants import get_variant
from stateact.kernel.events import ErrorEvent, RunEnd, RunStart, SandboxWarning
from stateact.kernel.loop import AgentLoop, Budget, LoopOutcome
from stateact.kernel.meter import Meter
from stateact.kernel.roles import role_names, roles
from stateact.kernel.runlog import EventListener, RunFolderFull, RunLog, RunWatcher
from stateact.kernel.runtime import RunContext
from stateact.kernel.tools.finish import FinishClaim
from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.leftovers import live_owner
from stateact.sandbox.netns import loopback_ports
from stateact.sandbox.recording import ScreenRecording, record_display
from stateact.subagents.endings import SubagentClaim


@dataclass
class RunResult:
    """What `result.json` holds."""

    run_dir: str
    status: str
    """finished | replied | budget | error | interrupted"""
    text: str
    infeasible: bool
    gate_passed: bool | None
    turns: int
    usd: float
    seconds: float
    spend: dict


def new_run_id() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def run_dir_of(config: RunConfig) -> Path:
    return Path(config.runs_root) / config.run_id


def execute(
    config: RunConfig,
    listener: EventListener | None = None,
    sandbox: Sandbox | None = None,
    watchers: Sequence[RunWatcher] = (),
) -> RunResult:
    """Run one task; the run folder is complete (config, events, result) whatever happens.

    With `sandbox` given (already started, e.g. after a task file's setup), the agent acts on it
    and the caller closes it; otherwise the run makes its own from the config and closes it.
    `watchers` listen to the run's events and may log their own (a task's mid-run changes and scores).
    """
    config = config.model_copy(update={"run_id": config.run_id or new_run_id()})
    get_variant(config.harness)  # an unknown harness fails before a run folder is made
    return _drive(config, None, listener, sandbox, watchers=watchers)


ResumeNote = Callable[[Sandbox], str]
"""Given the resumed run's started sandbox, the notice that tells the agent what survived the stop."""


def load_resumable(run_dir: Path) -> RunState:
    """A stopped run's state; raises ResumeError when it finished or cannot be read, ValueError when a
    role's model spec is no longer valid."""
    state = load_run_state(run_dir)
    if state.status == "finished":
        raise ResumeError(f"{run_dir} already finished; nothing to resume")
    running = sorted({owner for tag in state.sandbox_tags if (owner := live_owner(tag))})
    if running:
        raise ResumeError(
            f"{run_dir} is still running (process {', '.join(map(str, running))} owns its sandbox): "
            "stop it first (Ctrl-C, or kill that process), then resume"
        )
    check_models(state.config.models.spec_for(role) for role in role_names())
    return state


def resume(
    run_dir: Path, listener: EventListener | None = None, **budget_overrides: float | None
) -> RunResult:
    """Continue a stopped run from its log in a sandbox of its own; budgets may be raised through
    `budget_overrides`. What the stopped sandbox left is ended, its /tmp carried into the new one."""
    state = load_resumable(run_dir)
    leftovers = end_leftovers(state.sandbox_tags, Path(run_dir) / CARRIED_TMP)

    def note(sandbox: Sandbox) -> str:
        carried = carry_tmp(leftovers, sandbox)
        drop_staged_tmp(leftovers)
        return resume_note(sandbox, leftovers, carried, ())

    return _drive(resumed_config(state, run_dir, budget_overrides), state, listener, note=note)


def resume_in(
    state: RunState,
    run_dir: Path,
    sandbox: Sandbox,
    note: str,
    listener: EventListener | None = None,
    watchers: Sequence[RunWatcher] = (),
    **budget_overrides: float | None,
) -> RunResult:
    """Continue a stopped run in a sandbox the caller started (and closes), telling the agent `note`."""
    config = resumed_config(state, run_dir, budget_overrides)
    return _drive(config, state, listener, sandbox, note=lambda _: note, watchers=watchers)


def resumed_config(state: RunState, run_dir: Path, budget_overrides: dict[str, float | None]) -> RunConfig:
    updates = {k: v for k, v in budget_overrides.items() if v is not None}
    return state.config.model_copy(
        update={**updates, "runs_root": Path(run_dir).parent, "run_id": Path(run_dir).name}
    )


def _drive(
    config: RunConfig,
    state: RunState | None,
    listener: EventListener | None,
    given: Sandbox | None = None,
    note: ResumeNote | None = None,
    watchers: Sequence[RunWatcher] = (),
) -> RunResult:
    variant = get_variant(config.harness)
    run_dir = run_dir_of(config)
    log = RunLog(run_dir)
    if listener:
        log.subscribe(listener)
    for watcher in watchers:
        log.subscribe(watcher(log))
    log.write_json("config.json", config.model_dump(mode="json"))
    meter = Meter()
    started = time.monotonic() - (state.elapsed_s if state else 0.0)
    sandbox = given or config.make_sandbox(config.workdir or run_dir / "home")
    sandbox.keep_tmp_in(run_dir / CARRIED_TMP)  # a resume after `kill -9` finds it there
    outcome = LoopOutcome("error", "the run did not start", 0)
    loop = None
    recording: ScreenRecording | None = None
    try:
        sandbox.start()
        resume_text = note(sandbox) if state is not None and note is not None else ""
        instruction = (state.instruction if state else "") or config.instruction
        sandbox.reach_host_ports(loopback_ports(instruction))  # the sites on this machine it names
        started_at = state.task_started_at if state else sandbox.clock()
        context = RunContext(
            run_dir,
            instruction,
            sandbox,
            log,
            meter,
            config.models,
            config.max_usd,
            task_started_at=started_at,
        )
        log.emit(
            RunStart(
                instruction=instruction,
                harness=variant.name,
                home=sandbox.home,
                sandbox_tag=sandbox.tag,
                task_started_at=started_at,
                resumed=state is not None,
                display=sandbox.display,
            )
        )
        for warning in sandbox.warnings:
            log.emit(SandboxWarning(message=warning))
        if config.record and sandbox.display:
            recording = _start_recording(sandbox, run_dir, log)
        if state is None:  # a resumed run keeps what its first start prepared (the gate's baseline)
            for role in roles():
                if variant.has_part(role):
                    role.prepare_run(context)
        budget = Budget(
            variant.default_max_turns if config.max_turns is None else config.max_turns,
            context.dollar_budget(),
            config.max_seconds,
        )
        user = make_user(config.user, config.persona, config.models.others().get("user") is not None, context)
        past = state.events if state else ()
        loop = build_main_loop(context, variant, budget, past, task_apps=config.apps, user=user)
        if config.max_seconds is not None:  # as the main loop counts its time: from its start
            context.deadline = time.monotonic() - (state.elapsed_s if state else 0.0) + config.max_seconds
        if state is None:
            outcome = loop.run(instruction)
        else:
            restore_loop(loop, state, context, resume_text)
            outcome = loop.resume()
    except KeyboardInterrupt as exc:
        outcome = LoopOutcome("interrupted", str(exc) or "stopped by the user", loop.turns if loop else 0)
        raise
    except Exception as exc:
        outcome = LoopOutcome("error", f"{type(exc).__name__}: {exc}", loop.turns if loop else 0)
        with suppress(RunFolderFull):
            log.emit(ErrorEvent(error=type(exc).__name__, message=str(exc)))
    finally:
        with shielded():
            result = _close_run(
                config, loop, outcome, meter, started, log, None if given else sandbox, recording
            )
    return result


RECORDING = "recording.mp4"
"""The video of the display in a run folder (OSWorld's name); a resumed run's parts are recording-N.mp4."""


def recording_name(part: int) -> str:
    """The file name of the `part`-th video of a run (1: the run's start, 2 on: each resume)."""
    return RECORDING if part == 1 else f"recording-{part}.mp4"


def recording_files(run_dir: Path) -> list[Path]:
    """The videos of a run folder, in the order they were made."""
    files: list[Path] = []
    while (path := Path(run_dir) / recording_name(len(files) + 1)).is_file():
        files.append(path)
    return files


def _start_recording(sandbox: Sandbox, run_dir: Path, log: RunLog) -> ScreenRecording | None:
    """A video of the display into the run folder (the next part's name when the run is resumed); a
    recorder that cannot start is a warning, not a failed run."""
    path = run_dir / recording_name(len(recording_files(run_dir)) + 1)
    try:
        return record_display(sandbox, path)
    except SandboxError as exc:
        log.emit(SandboxWarning(message=f"the display is not recorded: {exc}"))
        return None


def _close_run(
    config: RunConfig,
    loop: AgentLoop | None,
    outcome: LoopOutcome,
    meter: Meter,
    started: float,
    log: RunLog,
    owned: Sandbox | None,
    recording: ScreenRecording | None,
) -> RunResult:
    """Close the tools, finish the video and close the run's own sandbox, then write result.json and
    the closing event where the disk has room for them (the result is returned all the same)."""
    if loop is not None:
        loop.close_tools()
    if recording is not None and (problem := recording.stop()):
        with suppress(RunFolderFull):
            log.emit(SandboxWarning(message=f"the display's video may be incomplete: {problem}"))
    result = RunResult(
        run_dir=str(run_dir_of(config)),
        status=outcome.status,
        text=outcome.text,
        infeasible=_declared_infeasible(outcome),
        gate_passed=claim.gate_passed if (claim := outcome.ending_as(FinishClaim)) else None,
        turns=outcome.turns,
        usd=round(meter.total_usd, 6),
        seconds=round(time.monotonic() - started, 2),
        spend=meter.summary(),
    )
    if owned is not None:
        owned.close()
    with suppress(RunFolderFull):
        log.write_json("result.json", asdict(result))
        log.emit(RunEnd(status=result.status, usd=result.usd, turns=result.turns))
    log.close()
    return result


def _declared_infeasible(outcome: LoopOutcome) -> bool:
    """The finish tool's `infeasible`, or the pixel agent's top-level `fail` (its way to declare it)."""
    if claim := outcome.ending_as(FinishClaim):
        return claim.infeasible
    pixel = outcome.ending_as(SubagentClaim)
    return pixel is not None and pixel.status == "FAIL"
