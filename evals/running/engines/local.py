"""The local engine: one thread per pool slot, each taking the next job it may run from a shared queue
(a job waits while a running one on the same network names one of its task's ports).

On Ctrl-C (or SIGTERM) no job starts any more and the running jobs' runs are interrupted on their
threads; their sandboxes close before the interrupt goes on to the caller.

A slot that is retired (SlotRetired from its lease or health check) puts its job
back at the head of the queue for another slot and leaves; jobs still queued when
every slot has left become error rows.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor, as_completed, wait

from stateact.app.signals import interrupt_thread, shielded
from stateact.evals import settings
from stateact.evals.running.engines.port_claims import PortClaims, QueuedJob
from stateact.evals.running.jobs import (
    JobListener,
    JobOutcome,
    RetiredListener,
    SuiteJob,
    SuiteOptions,
    run_job,
    unrun_outcome,
)
from stateact.sandbox.pool import Slot, SlotRetired

NO_SLOT_LEFT = "no sandbox slot left to run it: every slot of the pool was retired"


def run_on_threads(
    options: SuiteOptions,
    jobs: list[SuiteJob],
    slots: list[Slot],
    notify: JobListener,
    on_retired: RetiredListener,
) -> list[JobOutcome]:
    """Every job on the first free slot that may run it (evals/running/engines/port_claims.py); outcomes in job
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
            with changed:
                running_on[threading.get_ident()] = job
            try:
                outcome = run_job(options, job, slot)
            except SlotRetired as exc:
                done(slot, taken, requeue=True)
                on_retired(exc)
                return
            except BaseException:
                done(slot, taken)
                raise
            finally:
                with changed:
                    running_on.pop(threading.get_ident(), None)
            outcomes[index] = outcome
            done(slot, taken)
            notify("end", job, outcome)

    def interrupt_running() -> None:
        """No job starts any more; each running one's run is interrupted (its sandbox closed, its run
        folder left interrupted and resumable, no score)."""
        with changed:
            stop.set()
            changed.notify_all()
            for ident, job in running_on.items():
                notify("stop", job, None)
                interrupt_thread(ident)

    running_on: dict[int, SuiteJob] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, len(slots)), thread_name_prefix="suite")
    try:
        futures = [pool.submit(serve, slot) for slot in slots]
        try:
            for future in as_completed(futures):
                future.result()
        except KeyboardInterrupt:
            with shielded():
                interrupt_running()
                wait(futures, timeout=settings.STOP_GRACE_S)
            raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        for slot in slots:
            slot.close()
    for index, job in queue:
        outcomes[index] = unrun_outcome(options, job, NO_SLOT_LEFT)
        notify("end", job, outcomes[index])
    return [outcome for outcome in outcomes if outcome is not None]
