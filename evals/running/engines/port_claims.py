"""Which queued job a free slot may take: none whose task names a port that a running job's task names
on the same network (evals/running/task_ports.py). Slots whose sandboxes each have a network of their own (VMs)
take jobs in queue order."""

from __future__ import annotations

from collections import Counter, deque

from stateact.evals.running.jobs import SuiteJob
from stateact.sandbox.pool import Slot

QueuedJob = tuple[int, SuiteJob]
"""A job and its place in the suite's job list."""


class PortClaims:
    """The ports the running jobs' tasks name, per network. Not thread-safe: callers hold their lock."""

    def __init__(self) -> None:
        self._held: dict[str, Counter[int]] = {}

    def take(self, queue: deque[QueuedJob], slot: Slot) -> QueuedJob | None:
        """Remove and return the first job of `queue` that `slot` may run now, claiming its ports; None
        when every queued job waits for a port (or the queue is empty)."""
        held = self._held.setdefault(slot.network, Counter()) if slot.network else None
        for position, entry in enumerate(queue):
            ports = entry[1].task.ports
            if held is None or held.keys().isdisjoint(ports):
                del queue[position]
                if held is not None:
                    held.update(ports)
                return entry
        return None

    def release(self, job: SuiteJob, slot: Slot) -> None:
        """The job left `slot` (done, or back to the queue): its ports are free on that network again."""
        if slot.network:
            held = self._held[slot.network]
            held.subtract(job.task.ports)
            self._held[slot.network] = +held
