"""A rich progress bar for a suite run, fed by the runner's job events from worker threads.

The bar shows done/total, elapsed time and the time left (rich's estimate from the jobs done so far),
the dollars spent by the finished jobs and their mean partial score; each finished job prints a line
(saying whether it resumed a run an earlier attempt left unfinished, or started it over and why), and a
job below 1 the checkpoints it failed with what differed (score.json's explanations).
"""

from __future__ import annotations

import threading

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from stateact.evals.osworld.metrics.explain import failed_checkpoints
from stateact.evals.running.jobs import JobOutcome, SuiteJob
from stateact.evals.running.results import RUN_FOLDER, SCORE_FILE, read_json_object, read_score_parts

FAILED_LINES = 3
"""Failed checkpoints printed under a job's line (score.json has them all)."""


class SuiteProgress:
    """`with SuiteProgress(console, total) as p: run_suite(options, p.on_job)`."""

    def __init__(self, console: Console, total: int) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]suite"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[so_far]}"),
            TextColumn("{task.description}"),
            console=console,
        )
        self.bar = self.progress.add_task("", total=total, so_far="")
        self.running: set[str] = set()
        self.usd = 0.0
        self.partials: list[float] = []
        self._lock = threading.Lock()

    def __enter__(self) -> SuiteProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()

    def on_job(self, event: str, job: SuiteJob, outcome: JobOutcome | None) -> None:
        with self._lock:
            if event == "start":
                self.running.add(job.label)
            elif event == "stop":
                self.progress.console.print(
                    f"[yellow]stopping[/yellow] {escape(job.label)}: its run is interrupted and its sandbox closed"
                )
            else:
                self.running.discard(job.label)
                self.progress.advance(self.bar)
                if outcome is not None:
                    self._count(outcome)
                    for line in self._lines(outcome):
                        self.progress.console.print(line, soft_wrap=True)
            self.progress.update(
                self.bar, description=escape(", ".join(sorted(self.running))), so_far=self.so_far()
            )

    def so_far(self) -> str:
        """`$0.0123 spent, mean partial 67%` over the jobs finished so far."""
        if not self.partials and not self.usd:
            return ""
        partial = (
            f", mean partial {100 * sum(self.partials) / len(self.partials):.0f}%" if self.partials else ""
        )
        return f"${self.usd:.4f} spent{partial}"

    def _count(self, outcome: JobOutcome) -> None:
        details = read_json_object(outcome.result_dir / SCORE_FILE)
        usd = read_json_object(outcome.result_dir / RUN_FOLDER / "result.json").get("usd")
        self.usd += float(usd) if isinstance(usd, int | float) and not outcome.skipped else 0.0
        partial = details.get("partial", outcome.score)
        if isinstance(partial, int | float) and outcome.score is not None:
            self.partials.append(float(partial))

    @staticmethod
    def _lines(outcome: JobOutcome) -> list[str]:
        label = escape(outcome.job.label)
        earlier = f" [cyan]{escape(outcome.earlier)}[/cyan]" if outcome.earlier else ""
        if outcome.error:
            return [f"[red]error[/red] {label}: {escape(outcome.error)}{earlier}"]
        if outcome.skipped:
            return [f"[dim]done earlier[/dim] {label}: {outcome.score:.2f}"]
        colour = "green" if outcome.score == 1.0 else "yellow"
        lines = [f"[{colour}]{outcome.score:.2f}[/{colour}] {label} ({outcome.seconds:.1f}s wall){earlier}"]
        failed = failed_checkpoints(read_score_parts(outcome.result_dir))
        lines += [f"  [red]failed[/red] {escape(line)}" for line in failed[:FAILED_LINES]]
        if len(failed) > FAILED_LINES:
            lines.append(f"  … and {len(failed) - FAILED_LINES} more failed checkpoints")
        return lines
