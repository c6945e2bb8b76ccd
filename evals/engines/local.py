"""The local engine: one thread per pool slot, each taking the next job it may run from a shared queue
(a job waits while a running one on the same network names one of its task's ports).

A slot that is retired (SlotRetired from its lease or health check) puts its job
back at the head of the queue for another slot and leaves; jobs still queued when
every slot has left become error rows.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor, as_completed

from evals.engines.port_claims import PortClaims, QueuedJob
from evals.suite_runner import (
    JobListener,
    JobOutcome,
    RetiredListener,
    SuiteJob,
    SuiteOptions,
    run_job,
    unrun_outcome,
)
from sandbox.pool import Slot, SlotRetired

NO_SLOT_LEFT = "no sandbox slot left to run it: every slot of the pool was retired"


def run_on_threads(
    options: SuiteOptions,
    jobs: list[SuiteJob],
    slots: list[Slot],
    notify: JobListener,
    on_retired: RetiredListener,
) -> list[JobOutcome]:
    """Every job on the first free slot that may run it (evals/engines/port_claims.py); outcomes in job
    order."""
    queue: deque[QueuedJob] = deque(enumerate(jobs))
    outcomes: list[JobOutcome | None] = [None] * len(jobs)
    changed = threading.Condition()
    claims = PortClaims()
    running = 0
    """Jobs on a slot now: one of them may come back to the queue when its slot is retired, and each holds
    its task's ports."""
    stop = threading.Event()

    def take(slot: Slot) -> QueuedJob | None:
        nonlocal running
        with changed:
            while not stop.is_set():
                if (taken := claims.take(queue, slot)) is not None:
                    running += 1
                    return taken
                if not running:
                    return None
                changed.wait()
            return None

    def done(slot: Slot, taken: QueuedJob, requeue: bool = False) -> None:
        nonlocal running
        with changed:
            claims.release(taken[1], slot)
            if requeue:
                queue.appendleft(taken)
            running -= 1
            changed.notify_all()

    def serve(slot: Slot) -> None:
        while (taken := take(slot)) is not None:
            index, job = taken
            notify("start", job, None)
            try:
                outcome = run_job(options, job, slot)
            except SlotRetired as exc:
                done(slot, taken, requeue=True)
                on_retired(exc)
                return
            except BaseException:
                done(slot, taken)
                raise
            outcomes[index] = outcome
            done(slot, taken)
            notify("end", job, outcome)

    try:
        with ThreadPoolExecutor(max_workers=max(1, len(slots)), thread_name_prefix="suite") as pool:
            futures = [pool.submit(serve, slot) for slot in slots]
            try:
                for future in as_completed(futures):
                    future.result()
            except KeyboardInterrupt:
                stop.set()
                with changed:
                    changed.notify_all()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    finally:  # after the running jobs ended
        for slot in slots:
            slot.close()
    for index, job in queue:
        outcomes[index] = unrun_outcome(options, job, NO_SLOT_LEFT)
        notify("end", job, outcomes[index])
    return [outcome for outcome in outcomes if outcome is not None]
