"""Running one task end to end: run folder, sandbox, main loop, result."""

from __future__ import annotations

import secrets
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from sandbox.base import Sandbox
from sandbox.local import LocalSandbox
from stateact.config import RunConfig
from stateact.harness import build_main_loop
from stateact.loop import Budget, LoopOutcome
from stateact.meter import Meter
from stateact.runlog import EventListener, RunLog
from stateact.runtime import RunContext
from stateact.variants import get_variant


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


def make_sandbox(config: RunConfig, run_dir: Path) -> Sandbox:
    """The sandbox a config names: `local` (a work folder, optional display) or `osworld://HOST:PORT`."""
    if config.sandbox == "local":
        return LocalSandbox(config.workdir or run_dir / "home", display=config.display)
    raise ValueError(f"unknown sandbox {config.sandbox!r}: use `local`")


def execute(config: RunConfig, listener: EventListener | None = None) -> RunResult:
    """Run one task; the run folder is complete (config, events, result) whatever happens."""
    config = config.model_copy(update={"run_id": config.run_id or new_run_id()})
    variant = get_variant(config.harness)
    run_dir = Path(config.runs_root) / config.run_id
    log = RunLog(run_dir)
    if listener:
        log.subscribe(listener)
    log.write_json("config.json", config.model_dump(mode="json"))
    meter = Meter()
    started = time.monotonic()
    sandbox = make_sandbox(config, run_dir)
    outcome = LoopOutcome("error", "the run did not start", 0)
    loop = None
    try:
        sandbox.start()
        context = RunContext(run_dir, config.instruction, sandbox, log, meter, config.models)
        log.emit("run_start", instruction=config.instruction, harness=variant.name, home=sandbox.home)
        budget = Budget(config.max_turns, config.max_usd, config.max_seconds)
        loop = build_main_loop(context, variant, budget)
        outcome = loop.run(config.instruction)
    except KeyboardInterrupt:
        outcome = LoopOutcome("interrupted", "stopped by the user", loop.turns if loop else 0)
        raise
    except Exception as exc:
        log.emit("error", error=type(exc).__name__, message=str(exc))
        outcome = LoopOutcome("error", f"{type(exc).__name__}: {exc}", loop.turns if loop else 0)
    finally:
        if loop is not None:
            loop.close_tools()
        sandbox.close()
        result = RunResult(
            run_dir=str(run_dir),
            status=outcome.status,
            text=outcome.text,
            infeasible=bool(outcome.data.get("infeasible", False)),
            gate_passed=outcome.data.get("gate_passed"),
            turns=outcome.turns,
            usd=round(meter.total_usd, 6),
            seconds=round(time.monotonic() - started, 2),
            spend=meter.summary(),
        )
        log.write_json("result.json", asdict(result))
        log.emit("run_end", status=result.status, usd=result.usd, turns=result.turns)
        log.close()
    return result
