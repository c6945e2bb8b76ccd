"""What a task needs of a whole machine: a sandbox that is not one (a local sandbox shares the host's
installed system, read-only) refuses such a task before its setup runs, naming the need.

    problem = missing_needs(task, sandbox)   # "" when the sandbox can run the task
"""

from __future__ import annotations

import re

from stateact.evals.osworld.setup import command_text
from stateact.evals.osworld.task import Task
from stateact.sandbox.base import Sandbox

SYSTEM_CHANGES = re.compile(
    r"\bsudo\b[^|;&]*?\b(apt-get|apt|aptitude|dpkg|snap|systemctl|service|loginctl|chsh|usermod|useradd)\b"
)
"""A setup command that changes the installed system as root."""
PACKAGE_RECORDS = re.compile(r"\b(dpkg(-query)?\s+-[lsLW]|apt\s+list|apt-cache\s+policy|snap\s+list)\b")
"""A checker that reads which packages are installed."""
ACCESSIBILITY_GETTERS = {"accessibility_tree", "vm_terminal_output"}
"""Getters that read the desktop's AT-SPI tree, which only a VM's desktop session serves."""


def task_commands(task: Task) -> tuple[list[str], list[str]]:
    """The shell commands of the task's setup (config and postconfig steps) and of its checkers."""
    steps = [*task.config, *task.evaluator.postconfig]
    setup = [command_text(s.parameters.get("command", "")) for s in steps if s.type in ("execute", "command")]
    checks = [
        command_text(g.params().get("command", ""))
        for g in task.evaluator.getters()
        if g.type == "vm_command_line"
    ]
    return setup, checks


def missing_needs(task: Task, sandbox: Sandbox) -> str:
    """Why `sandbox` cannot run `task` as OSWorld's VM would ("needs a VM: ..."), or ""."""
    return "" if sandbox.full_system else vm_need(task)


def vm_need(task: Task) -> str:
    """Why only a whole machine of its own can run `task` ("needs a VM: ..."), or ""."""
    setup, checks = task_commands(task)
    for command in setup:
        found = SYSTEM_CHANGES.search(command)
        if found:
            return f"needs a VM: the setup runs `sudo {found.group(1)}` ({command!r}), which changes the installed system"
    tree_getters = sorted({g.type for g in task.evaluator.getters()} & ACCESSIBILITY_GETTERS)
    if tree_getters:
        return (
            f"needs a VM: the checker reads the desktop's accessibility tree (`{tree_getters[0]}`), "
            "which this sandbox has no AT-SPI bus for"
        )
    for command in checks:
        if PACKAGE_RECORDS.search(command):
            return f"needs a VM: the checker reads the installed packages ({command!r}), which this sandbox shares with its host"
    return ""
