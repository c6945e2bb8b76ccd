"""A rich progress bar for a suite run, fed by the runner's job events from worker threads."""

from __future__ import annotations

import threading

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from evals.running.jobs import JobOutcome, SuiteJob


class SuiteProgress:
    """`with SuiteProgress(console, total) as p: run_suite(options, p.on_job)`."""

    def __init__(self, console: Console, total: int) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]suite"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=console,
        )
        self.bar = self.progress.add_task("", total=total)
        self.running: set[str] = set()
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
                    self.progress.console.print(self._line(outcome))
            self.progress.update(self.bar, description=escape(", ".join(sorted(self.running))))

    @staticmethod
    def _line(outcome: JobOutcome) -> str:
        label = escape(outcome.job.label)
        if outcome.error:
            return f"[red]error[/red] {label}: {escape(outcome.error)}"
        if outcome.skipped:
            return f"[dim]done earlier[/dim] {label}: {outcome.score:.2f}"
        colour = "green" if outcome.score == 1.0 else "yellow"
        return f"[{colour}]{outcome.score:.2f}[/{colour}] {label} ({outcome.seconds:.1f}s)"
