"""The local engine: one thread per pool slot, each taking the next job from a shared queue.

A slot that is retired (SlotRetired from its lease or health check) puts its job
back at the head of the queue for another slot and leaves; jobs still queued when
every slot has left become error rows.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor, as_completed

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
    """Every job on the first free slot; outcomes in job order."""
    queue: deque[tuple[int, SuiteJob]] = deque(enumerate(jobs))
    outcomes: list[JobOutcome | None] = [None] * len(jobs)
    lock = threading.Lock()
    stop = threading.Event()

    def serve(slot: Slot) -> None:
        while not stop.is_set():
            with lock:
                if not queue:
                    return
                index, job = queue.popleft()
            notify("start", job, None)
            try:
                outcome = run_job(options, job, slot)
            except SlotRetired as exc:
                with lock:
                    queue.appendleft((index, job))
                on_retired(exc)
                return
            outcomes[index] = outcome
            notify("end", job, outcome)

    with ThreadPoolExecutor(max_workers=max(1, len(slots)), thread_name_prefix="suite") as pool:
        futures = [pool.submit(serve, slot) for slot in slots]
        try:
            for future in as_completed(futures):
                future.result()
        except KeyboardInterrupt:
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    for index, job in queue:
        outcomes[index] = unrun_outcome(options, job, NO_SLOT_LEFT)
        notify("end", job, outcomes[index])
    return [outcome for outcome in outcomes if outcome is not None]
