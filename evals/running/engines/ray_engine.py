"""The Ray engine: one Ray actor per pool slot, each job a Ray task on a free slot that may run it
(evals/running/engines/port_claims.py: local slots count as one machine's network).

Workers share no disk with the driver. The driver sends each actor the suite's
files once; an actor runs a job into a scratch results folder of its own, and
sends back the job's score, error and the files it wrote, as bytes; the driver
writes them into the results tree. Jobs already done (`result.txt`) are skipped
on the driver. A slot whose lease fails is retired and its job goes back to the
queue; an actor whose worker dies is restarted by Ray (up to
RAY_ACTOR_RESTARTS times, then its slot is retired) and its job runs again on
the next free slot. The driver joins the cluster at `options.address`, or starts
a local one (its workers import this checkout); every node of a cluster needs
stateact installed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

from stateact.evals import settings
from stateact.evals.osworld.layout import suite_root
from stateact.evals.running.engines.port_claims import PortClaims
from stateact.evals.running.jobs import (
    JobListener,
    JobOutcome,
    RetiredListener,
    SuiteJob,
    SuiteOptions,
    clear_attempt,
    done_outcome,
    job_result_dir,
    run_job,
    unrun_outcome,
)
from stateact.evals.running.stopped_jobs import RAY_NOT_RESUMED, left_unfinished
from stateact.sandbox.pool import Slot, SlotRetired

NO_SLOT_LEFT = "no sandbox slot left to run it: every slot of the pool was retired"
PROJECT_ROOT = Path(__file__).resolve().parents[3]
"""The checkout the driver runs from; a local cluster's workers import from it."""
SKIPPED_FOLDERS = ("cache", ".sandboxes")
"""Folders of a worker's scratch results that are not the job's results."""


@dataclass
class JobAnswer:
    """What a slot's actor sends back for one job."""

    score: float | None = None
    error: str = ""
    seconds: float = 0.0
    files: dict[str, bytes] = field(default_factory=dict)
    """The job's results, by path relative to the results folder."""
    retired: str = ""
    """Why the slot left the pool (its lease failed); the job did not run."""


def pack_folder(root: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    """Every file under `root` by relative path, except under the top-level folders in `skip`."""
    root = Path(root)
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] not in skip
    }


def unpack_folder(files: dict[str, bytes], root: Path) -> None:
    for name, data in files.items():
        target = Path(root) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


class SlotWorker:
    """A pool slot inside a Ray actor: the suite unpacked once, then one job at a time."""

    def __init__(self, slot: Slot, options: SuiteOptions, suite_files: dict[str, bytes]) -> None:
        from stateact.evals.fixtures.build import build_fixtures

        self.slot = slot
        self.scratch = Path(tempfile.mkdtemp(prefix=f"stateact-{slot.name}-"))
        suite = self.scratch / "suite"
        unpack_folder(suite_files, suite)
        if Path(options.suite).is_file():  # a meta file of OSWorld's layout
            suite = suite / Path(options.suite).name
        cache = Path(options.cache)
        if not cache.is_dir():
            cache = self.scratch / "cache"
            build_fixtures(cache)
        self.options = replace(options, suite=suite, cache=cache)

    def pid(self) -> int:
        return os.getpid()

    def run(self, job: SuiteJob, task_file: str) -> JobAnswer:
        """Run `job` (its task file at `task_file` in the suite) and send back its results."""
        task = replace(job.task, path=suite_root(self.options.suite) / task_file)
        results = self.scratch / f"results-{uuid.uuid4().hex}"
        options = replace(self.options, results=results)
        try:
            outcome = run_job(options, replace(job, task=task), self.slot)
        except SlotRetired as exc:
            return JobAnswer(retired=exc.reason)
        finally:
            files = pack_folder(results, SKIPPED_FOLDERS) if results.is_dir() else {}
            shutil.rmtree(results, ignore_errors=True)
        return JobAnswer(outcome.score, outcome.error, outcome.seconds, files)

    def close(self) -> None:
        self.slot.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def run_on_ray(
    options: SuiteOptions,
    jobs: list[SuiteJob],
    slots: list[Slot],
    notify: JobListener,
    on_retired: RetiredListener,
) -> list[JobOutcome]:
    """Every job on a free slot's actor; outcomes in job order."""
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=options.address, runtime_env=_runtime_env(options.address))
    try:
        return _Driver(ray, options, slots, notify, on_retired).run(jobs)
    finally:
        if started_here:
            ray.shutdown()


def _runtime_env(address: str | None) -> dict | None:
    """A local cluster's workers import this checkout, as the driver does."""
    if address:
        return None
    paths = [str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")]
    return {"env_vars": {"PYTHONPATH": os.pathsep.join(p for p in paths if p)}}


class _Driver:
    """The scheduling loop: free slots take queued jobs; answers are written into the results tree."""

    def __init__(
        self, ray, options: SuiteOptions, slots: list[Slot], notify: JobListener, on_retired: RetiredListener
    ) -> None:
        self.ray = ray
        self.options = options
        self.slots = slots
        self.notify = notify
        self.on_retired = on_retired
        self.outcomes: dict[int, JobOutcome] = {}
        self.deaths: dict[int, int] = {}

    def run(self, jobs: list[SuiteJob]) -> list[JobOutcome]:
        queue: deque[tuple[int, SuiteJob]] = deque()
        for index, job in enumerate(jobs):
            if (done := done_outcome(self.options, job)) is not None:
                self._finish(index, job, done)
            else:
                queue.append((index, job))
        if queue:
            self._schedule(queue)
        for index, job in queue:
            self._finish(index, job, unrun_outcome(self.options, job, NO_SLOT_LEFT))
        return [self.outcomes[index] for index in sorted(self.outcomes)]

    def _schedule(self, queue: deque[tuple[int, SuiteJob]]) -> None:
        ray = self.ray
        worker_class = ray.remote(max_restarts=settings.RAY_ACTOR_RESTARTS, max_task_retries=0)(SlotWorker)
        suite_files = pack_folder(suite_root(self.options.suite))
        actors = {
            slot.name: worker_class.options(num_cpus=settings.RAY_SLOT_CPUS).remote(
                slot, self.options, suite_files
            )
            for slot in self.slots
        }
        slots = {slot.name: slot for slot in self.slots}
        free = list(slots)
        claims = PortClaims()
        running: dict = {}
        """Ray reference -> (slot name, (index, job)), or (slot name, None) for a revived actor's ping."""
        try:
            while queue or running:
                for name in list(free):
                    if (taken := claims.take(queue, slots[name])) is None:
                        continue
                    free.remove(name)
                    self.notify("start", taken[1], None)
                    running[actors[name].run.remote(taken[1], self._task_file(taken[1]))] = (name, taken)
                if not running:
                    return
                [ready], _ = ray.wait(list(running), num_returns=1)
                name, entry = running.pop(ready)
                if entry is not None:
                    claims.release(entry[1], slots[name])
                try:
                    answer = ray.get(ready)
                except ray.exceptions.RayActorError as exc:
                    if entry is None:  # no restart left
                        self.on_retired(SlotRetired(name, f"its Ray worker died for good: {exc}"))
                        continue
                    self._worker_died(queue, *entry, reason=str(exc))
                    ping = actors[name].pid.options(max_task_retries=-1).remote()
                    running[ping] = (name, None)
                    continue
                except ray.exceptions.RayTaskError as exc:  # a fault of the engine itself, on the worker
                    index, job = entry
                    self._finish(index, job, unrun_outcome(self.options, job, str(exc)))
                    free.append(name)
                    continue
                if entry is None:
                    free.append(name)
                elif answer.retired:
                    queue.appendleft(entry)
                    self.on_retired(SlotRetired(name, answer.retired))
                else:
                    self._finish(*entry, self._write(entry[1], answer))
                    free.append(name)
        finally:
            self._close(list(actors.values()))

    def _task_file(self, job: SuiteJob) -> str:
        return Path(job.task.path).resolve().relative_to(suite_root(self.options.suite).resolve()).as_posix()

    def _worker_died(self, queue: deque, index: int, job: SuiteJob, reason: str) -> None:
        self.deaths[index] = self.deaths.get(index, 0) + 1
        if self.deaths[index] < settings.RAY_JOB_ATTEMPTS:
            queue.appendleft((index, job))
            return
        why = f"its Ray worker died {self.deaths[index]} times: {reason}"
        self._finish(index, job, unrun_outcome(self.options, job, why))

    def _write(self, job: SuiteJob, answer: JobAnswer) -> JobOutcome:
        result_dir = job_result_dir(self.options, job)
        earlier = RAY_NOT_RESUMED if left_unfinished(result_dir) else ""
        clear_attempt(result_dir)
        unpack_folder(answer.files, self.options.results)
        return JobOutcome(
            job, result_dir, answer.score, error=answer.error, seconds=answer.seconds, earlier=earlier
        )

    def _finish(self, index: int, job: SuiteJob, outcome: JobOutcome) -> None:
        self.outcomes[index] = outcome
        self.notify("end", job, outcome)

    def _close(self, actors) -> None:
        """Let every actor remove its scratch folder, then end it."""
        closing = [actor.close.remote() for actor in actors]
        with contextlib.suppress(Exception):
            self.ray.wait(closing, num_returns=len(closing), timeout=settings.RAY_CLOSE_TIMEOUT_S)
        for actor in actors:
            self.ray.kill(actor)
