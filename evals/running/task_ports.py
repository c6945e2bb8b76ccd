"""The loopback ports a task's setup serves on, a check that they are free before its setup, and the
ports of the sites on this machine that a task names.

Sandboxes with a network of their own (sandbox/netns.py) each have a loopback of their own, and any
number of runs of one task serve on its ports side by side. Sandboxes that share this machine's
loopback (sandbox.base.Sandbox.shares_host_network: `--isolation none`, `--network host`) do not: two
runs of a task whose setup starts a server on a fixed port cannot run side by side there. The second
server cannot take the port, and the second run's setup, agent and checks would reach the first run's
server instead. The suite engines therefore never run two jobs that name one port at once on such a
shared network (evals/running/engines/port_claims.py), and a task whose port is taken before its setup fails its
setup with an error that says so (never a score).

The ports are read from the task's `launch` steps, the processes its setup starts and leaves running:
`localhost:N`, `127.0.0.1:N`, `--port N`, `--some-port=N` and `tcp-listen:N`. Ports named elsewhere
(a download's or an expected file's URL on a local mirror, the instruction) are servers outside the
task, which any number of runs may share.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from typing import Any

from stateact.evals.osworld.task import Task
from stateact.sandbox.netns import loopback_ports

PORT_PATTERN = re.compile(
    r"""(?:localhost|127\.0\.0\.1|0\.0\.0\.0)["']?\s*[:,]\s*(\d{2,5})\b"""
    r"""|--(?:[\w-]*-)?port[= ](\d{2,5})\b"""
    r"""|tcp-listen:(\d{2,5})\b""",
    re.IGNORECASE,
)
PROBE_TIMEOUT_S = 0.5
"""How long a connection to a port may take to tell that something serves on it."""


LAUNCH = "launch"
"""The setup step that starts a process and leaves it running."""


def task_ports(task: Task) -> frozenset[int]:
    """Every loopback port the task's `launch` steps name (its setup's and its scheduled changes')."""
    steps = [*task.config, *(step for change in task.schedule for step in change.steps)]
    texts = [
        " ".join(_strings(step.parameters)) for step in steps if step.type == LAUNCH
    ]  # a list's words joined
    return frozenset().union(*map(command_ports, texts))


def command_ports(text: str) -> frozenset[int]:
    """The loopback ports a command line names."""
    return frozenset(
        port
        for match in PORT_PATTERN.finditer(text)
        if 0 < (port := int(next(group for group in match.groups() if group))) < 65536
    )


def named_host_ports(task: Task) -> set[int]:
    """The loopback ports of the sites on this machine that the task names: URLs on 127.0.0.1 or
    localhost in its instruction and its setup steps, less the ports its own setup serves on. The
    evaluator's URLs are not among them, so a sandbox with a network of its own cannot reach them."""
    texts = [task.instruction, *(text for step in task.config for text in _strings(step.parameters))]
    return set().union(*map(loopback_ports, texts)) - task_ports(task)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def taken_ports(ports: frozenset[int]) -> list[int]:
    """The ones of `ports` that something on this machine's loopback already accepts connections on."""
    return [port for port in sorted(ports) if _answers(port)]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=PROBE_TIMEOUT_S):
            return True
    except OSError:
        return False


def check_ports_free(task: Task) -> None:
    """Raise PortTaken when a port the task's setup serves on is served already on this machine's loopback."""
    taken = taken_ports(task_ports(task))
    if taken:
        raise PortTaken(
            f"port {', '.join(map(str, taken))} of this task is in use on this machine already (another "
            "run of the same task, or another program): its setup would reach that server instead of "
            "its own. Wait for the other run to end, or run side by side on separate VMs (--pool)."
        )


class PortTaken(RuntimeError):
    """A port a task serves on is in use before its setup, on a sandbox that shares this machine's network."""

    what = "the task's ports"
    """The failing part, as a task failure names it (evals/running/failures.py)."""
