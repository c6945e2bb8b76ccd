"""Small suites written on the fly for the pool and engine tests: bash-only tasks with their solutions."""

from __future__ import annotations

import json
from pathlib import Path


def write_task(suite: Path, domain: str, task_id: str, commands: list[str], evaluator: dict) -> Path:
    """A task whose reference solution runs `commands` in bash, then finishes."""
    folder = suite / domain
    folder.mkdir(parents=True, exist_ok=True)
    task = {
        "id": task_id,
        "snapshot": domain,
        "instruction": f"Task {task_id} of the pool tests.",
        "source": "stateact tests",
        "config": [],
        "related_apps": ["os"],
        "evaluator": evaluator,
    }
    turns = [{"text": "Run.", "tool_calls": [{"name": "bash", "input": {"command": c}}]} for c in commands]
    turns.append({"text": "Done.", "tool_calls": [{"name": "finish", "input": {"summary": "done"}}]})
    (folder / f"{task_id}.json").write_text(json.dumps(task), encoding="utf-8")
    (folder / f"{task_id}.solution.json").write_text(json.dumps(turns), encoding="utf-8")
    return folder / f"{task_id}.json"


def file_check(path: str, include: list[str], exclude: list[str] = ()) -> dict:
    """An evaluator: the file's text includes every `include` string and no `exclude` string."""
    return {
        "func": "check_include_exclude",
        "result": {"type": "vm_command_line", "command": f"cat {path}", "shell": True},
        "expected": {"type": "rule", "rules": {"include": include, "exclude": list(exclude)}},
    }


def marker_suite(suite: Path, count: int) -> list[str]:
    """`count` tasks that each list the home folder, then leave a marker file there; a task scores 1 only
    when it saw no other task's marker."""
    ids = [f"marker-{i}" for i in range(1, count + 1)]
    for task_id in ids:
        commands = ["ls -a /home/user > /home/user/seen.txt", f"touch /home/user/left-by-{task_id}"]
        write_task(
            suite, "os", task_id, commands, file_check("/home/user/seen.txt", ["seen.txt"], ["left-by-"])
        )
    return ids
