"""OSWorld's results layout, derived from a run folder.

`results/<harness>/<model>/<domain>/<task_id>/` holds `traj.jsonl` (one line
per tool call of the main agent and of the subagents it delegated to, in the order the run made them:
step_num, action_timestamp, action, response, reward, done, info (with the loop's `scope`),
screenshot_file; a question to the user is an `ASK_USER` action with its `question` and `user_response`;
a change the task's schedule made to the machine is an `ENV_CHANGE` line, with no step_num of its own:
its `change` id, `after_step` (the steps ended before it) and what its steps did in `info`),
`<model>` is the main model, with a `+roles-HASH` suffix when other roles have their own models or
settings (`model_key`). `step_<n>_<timestamp>.png` for steps whose result carried a screenshot,
`recording.mp4` (the video of the display during the agent's run, when it was recorded; a resumed run's
later parts are `recording-N.mp4`), `result.txt` (one float) and
`score.json` (how each metric scored), and `artifacts/`: a copy of every file
the scoring fetched (the agent's `vm_file` deliverables and the expected files),
as scored, under their `dest` names. `args.json` sits at the model level. A
task folder with `result.txt` is done and is skipped on a re-run. A task that
failed for a reason that is not the agent's (evals/running/failures.py) has `error.json`
instead of `result.txt`: it is not done, and runs again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

from stateact.app.run import recording_files
from stateact.evals.running.failures import TaskFailure
from stateact.evals.running.midrun_events import ScheduledChangeMade
from stateact.kernel.events import MessageEvent, ToolCall, ToolResultEvent, UserAnswer, read_events
from stateact.kernel.messages import ImageBlock, Message
from stateact.kernel.roles import MAIN
from stateact.kernel.runtime import RoleModels
from stateact.kernel.tools.ask_user import AskUserTool

RELAY = "relay"
RESULT_FILE = "result.txt"
ERROR_FILE = "error.json"
SCORE_FILE = "score.json"
ARTIFACTS_DIR = "artifacts"
RUN_FOLDER = "run"
"""A suite job's run folder, inside its task's results folder."""
RUN_DIR_KEY = "run_dir"
"""The key of `score.json` and `error.json` naming the harness's run folder (a suite's is the task's
`run/`; `stateact run --task` leaves it under its runs root)."""
_UNSAFE = re.compile(r"[^\w.\-@+=]+")


def safe_name(value: str) -> str:
    """A folder name for a model spec or task id (`anthropic:claude/x` -> `anthropic_claude_x`)."""
    return _UNSAFE.sub("_", value).strip("_") or "unnamed"


ROLES_KEY_CHARS = 8
"""Hex digits of the hash that tells apart runs whose other roles differ."""


def spec_key(spec: str) -> str:
    """A model spec as the results name it: a relay (`relay:DIR`) is `relay` whatever its folder (the
    run's config.json keeps the folder), any other spec is itself."""
    return RELAY if spec.split(":", 1)[0] == RELAY else spec


def model_key(main: str, models: RoleModels) -> str:
    """The run identity of a set of role models: `main` (`spec_key`), plus a short hash of the other
    roles' specs and every role's settings when any is set, so changing any role's model makes a new
    results folder."""
    main = spec_key(main)
    others = {role: spec_key(spec) for role, spec in models.others().items() if spec}
    settings = {
        role: values
        for role, options in models.settings.items()
        if (values := options.model_dump(exclude_defaults=True))
    }
    if not others and not settings:
        return main
    canonical = json.dumps({"roles": others, "settings": settings}, sort_keys=True)
    return f"{main}+roles-{hashlib.sha256(canonical.encode()).hexdigest()[:ROLES_KEY_CHARS]}"


def task_result_dir(results_root: Path, harness: str, model: str, domain: str, task_id: str) -> Path:
    return Path(results_root) / safe_name(harness) / safe_name(model) / safe_name(domain) / safe_name(task_id)


def is_done(task_dir: Path) -> bool:
    """Scored: `result.txt` is there (a folder with only `error.json` is not done)."""
    return (Path(task_dir) / RESULT_FILE).is_file()


def read_score(task_dir: Path) -> float:
    return float((Path(task_dir) / RESULT_FILE).read_text().strip())


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object from a file another version or a crash may have written; {} when it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def linked_run_dir(task_dir: Path, record: dict[str, Any]) -> Path:
    """A task's run folder: its `run/`, else the one its score or error record names (if it is there)."""
    own = Path(task_dir) / RUN_FOLDER
    named = record.get(RUN_DIR_KEY)
    if own.is_dir() or not isinstance(named, str) or not Path(named).is_dir():
        return own
    return Path(named)


def read_score_parts(task_dir: Path) -> list[dict[str, Any]]:
    """The checkpoints of a task's score.json (`parts`); [] when there is none or it is torn."""
    parts = read_json_object(Path(task_dir) / SCORE_FILE).get("parts")
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def fresh_artifacts_dir(task_dir: Path) -> Path:
    """An empty `artifacts/` folder in `task_dir` (an earlier attempt's files go) for the files scored."""
    folder = Path(task_dir) / ARTIFACTS_DIR
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def _stamp(epoch: float) -> str:
    return time.strftime("%Y%m%d@%H%M%S", time.localtime(epoch))


ASK_USER = "ASK_USER"
"""The `action` of a traj.jsonl line where the agent asked the user (OSWorld 2.0's): the line has the
`question` and, once answered, the `user_response` (None: no one answered)."""
ENV_CHANGE = "ENV_CHANGE"
"""The `action` of a traj.jsonl line where the harness made a scheduled change to the task's machine."""
WITHIN_STEP = "within_step"
"""The `info` key of a subagent's traj.jsonl line: the step_num of the main call it ran inside."""


def _tool_result_images(message: Message) -> dict[str, list[str]]:
    """Image paths of each tool_result block of a message, by tool_use id."""
    return {
        block.tool_use_id: [b.path for b in block.content if isinstance(b, ImageBlock) and b.path]
        for block in message.tool_results()
    }


def trajectory_steps(run_dir: Path) -> list[dict[str, Any]]:
    """One step per tool call of the run, of the main agent and of every subagent, with the model's
    words that came with it, in the order the calls ended (as OSWorld writes a line once its action is
    done; a call that never ended comes last).

    OSWorld's trajectory viewers show one line per action with its screenshot, so a GUI or web
    subagent's calls are lines of their own: `info.scope` names the loop (`main`, `gui#N`, `web#N`,
    `gate#N`) and `info.within_step` the main call they ran inside (a delegation, or finish with its
    gate), whose own line follows theirs. Tool calls are matched to their results by (scope, id): each
    loop's model numbers its ids on its own.
    """
    events_path = Path(run_dir) / "events.jsonl"
    if not events_path.exists():
        return []
    started: list[dict[str, Any]] = []
    ended: list[dict[str, Any]] = []
    numbers: dict[int, int] = {}
    """step_num by id() of a step: the order the calls ended in."""
    by_call: dict[tuple[str, str], dict[str, Any]] = {}
    within: dict[int, dict[str, Any]] = {}
    last_words: dict[str, str] = {}
    main_call: dict[str, Any] | None = None
    changes: list[tuple[int, dict[str, Any]]] = []
    """Each scheduled change, after the steps that had ended when it was made."""
    for event in read_events(events_path):
        scope = event.scope
        if isinstance(event, ScheduledChangeMade):
            changes.append((len(ended), _change_line(event)))
        elif isinstance(event, MessageEvent):
            if event.message.role == "assistant":
                last_words[scope] = event.message.text()
            for call_id, images in _tool_result_images(event.message).items():
                if (scope, call_id) in by_call:
                    by_call[(scope, call_id)]["_images"] = images
        elif isinstance(event, ToolCall):
            step = {
                "action_timestamp": _stamp(event.t),
                "action": {"tool": event.name, "input": event.input},
                "response": last_words.get(scope, ""),
                "reward": 0,
                "done": False,
                "info": {"scope": scope},
                "screenshot_file": None,
            }
            if scope == MAIN and event.name == AskUserTool.name:
                step.update(action=ASK_USER, question=event.input.get("question", ""))
            if scope == MAIN:
                main_call = step
            elif main_call is not None:
                within[id(step)] = main_call
            started.append(step)
            by_call[(scope, event.id)] = step
        elif isinstance(event, UserAnswer) and main_call is not None and main_call["action"] == ASK_USER:
            main_call["user_response"] = event.answer
        elif isinstance(event, ToolResultEvent) and (scope, event.id) in by_call:
            step = by_call[(scope, event.id)]
            step["info"].update(is_error=event.is_error, result=event.text)
            step["done"] = scope == MAIN and event.terminal
            if id(step) not in numbers:
                numbers[id(step)] = len(numbers) + 1
                ended.append(step)
    unended = [step for step in started if id(step) not in numbers]
    numbers.update((id(step), len(ended) + k) for k, step in enumerate(unended, 1))
    for step in started:
        if id(step) in within:
            step["info"][WITHIN_STEP] = numbers[id(within[id(step)])]
    lines = [{"step_num": numbers[id(step)], **step} for step in ended + unended]
    for position, line in reversed(changes):
        lines.insert(position, line)
    return lines


def _change_line(event: ScheduledChangeMade) -> dict[str, Any]:
    """The traj.jsonl line of a scheduled change."""
    return {
        "action_timestamp": _stamp(event.t),
        "action": ENV_CHANGE,
        "change": event.id,
        "after_step": event.at_step,
        "response": "",
        "reward": 0,
        "done": False,
        "info": {
            "scope": event.scope,
            "trigger": event.trigger,
            "steps": event.steps,
            "failed": event.failed,
        },
        "screenshot_file": None,
    }


def write_results(
    task_dir: Path,
    run_dir: Path | None,
    score: float,
    details: dict[str, Any],
    final_screenshot: bytes | None = None,
) -> Path:
    """Write traj.jsonl, step screenshots, score.json and (last) result.txt into `task_dir`; an earlier
    attempt's error.json goes."""
    task_dir = Path(task_dir)
    task_dir.mkdir(parents=True, exist_ok=True)
    lines = trajectory_steps(run_dir) if run_dir is not None else []
    steps = [line for line in lines if "step_num" in line]
    for step in steps:
        images = step.pop("_images", [])
        if images and (Path(run_dir) / images[-1]).is_file():
            name = f"step_{step['step_num']}_{step['action_timestamp']}.png"
            shutil.copyfile(Path(run_dir) / images[-1], task_dir / name)
            step["screenshot_file"] = name
    if final_screenshot and steps and steps[-1]["screenshot_file"] is None:
        name = f"step_{steps[-1]['step_num']}_{steps[-1]['action_timestamp']}.png"
        (task_dir / name).write_bytes(final_screenshot)
        steps[-1]["screenshot_file"] = name
    if steps:
        steps[-1]["reward"] = score
    for video in recording_files(run_dir) if run_dir is not None else []:
        _link_or_copy(video, task_dir / video.name)
    with (task_dir / "traj.jsonl").open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
    (task_dir / SCORE_FILE).write_text(json.dumps(details, indent=2, default=str), encoding="utf-8")
    (task_dir / ERROR_FILE).unlink(missing_ok=True)
    (task_dir / RESULT_FILE).write_text(f"{score}\n", encoding="utf-8")
    return task_dir


def _link_or_copy(source: Path, target: Path) -> None:
    """`target` becomes the file `source` (a hard link: a video is not stored twice), or a copy of it."""
    if target.resolve() == source.resolve():
        return
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def write_error(task_dir: Path, failure: TaskFailure, details: dict[str, Any]) -> Path:
    """Write `error.json`: the failure, with `details` such as the task id and the run folder."""
    task_dir = Path(task_dir)
    task_dir.mkdir(parents=True, exist_ok=True)
    path = task_dir / ERROR_FILE
    path.write_text(json.dumps({**details, **failure.as_dict()}, indent=2, default=str), encoding="utf-8")
    return path


def write_args(model_dir: Path, args: dict[str, Any]) -> None:
    """`args.json` one level above the domains, as OSWorld's runner writes it."""
    Path(model_dir).mkdir(parents=True, exist_ok=True)
    (Path(model_dir) / "args.json").write_text(json.dumps(args, indent=2, default=str), encoding="utf-8")
