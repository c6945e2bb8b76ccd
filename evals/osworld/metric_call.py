"""One metric call, confined: a metric reads files the agent wrote, so it runs in a child process with
limits on wall time, CPU time and memory (stateact/kernel/confined.py; settings.METRIC_*), and a metric
that passes one, or crashes, is a MetricFailed (a scoring error), never a score.

The child runs `run_metric`: the metric by name, ours or OSWorld's own through the user's OSWorld
environment (evals/osworld/bridge.py, whose interpreter the limits hold too), called inside `collect()`;
it answers the score and the metric's notes (evals/osworld/metrics/explain.py). Every metric module is
imported once, by the worker that forks the children, so a call costs a fork
(benchmarks/confined_metrics.py); a metric sees the worker's modules as they were imported (what the
call needs from the harness's state, such as the OSWorld interpreter, is passed with the call).
"""

from __future__ import annotations

from typing import Any

from stateact.evals import settings
from stateact.evals.osworld.bridge import bridged_metric, configured_python
from stateact.evals.osworld.metrics import METRICS
from stateact.evals.osworld.metrics.explain import collect
from stateact.kernel.confined import Caps, confined

PRELOAD = (__name__,)
"""The worker imports this module, and with it every metric family."""

Notes = list[dict[str, Any]]


class MetricFailed(ValueError):
    """The metric raised, stopped or passed a limit: the message says which."""


def metric_caps() -> Caps:
    """The limits of one metric call (settings.METRIC_*)."""
    return Caps(settings.METRIC_WALL_S, settings.METRIC_CPU_S, settings.METRIC_MEMORY_MB)


def call_metric(name: str, args: tuple[Any, ...], options: dict[str, Any]) -> tuple[float, Notes]:
    """Metric `name`'s score of `args` and `options`, and its notes, computed in a limited child;
    MetricFailed when it raises or passes a limit."""
    python = None if name in METRICS else configured_python()
    return confined(
        run_metric,
        name,
        python,
        args,
        options,
        error=MetricFailed,
        what="its inputs",
        caps=metric_caps(),
        preload=PRELOAD,
    )


def run_metric(
    name: str, python: str | None, args: tuple[Any, ...], options: dict[str, Any]
) -> tuple[float, Notes]:
    """In the child: our metric `name`, or OSWorld's in `python`, on `args` and `options`; any exception
    it raises is a MetricFailed naming it."""
    metric = bridged_metric(python, name) if python else METRICS[name]
    with collect() as notes:
        try:
            value = metric(*args, **options)
        except Exception as exc:  # a checker that crashed has not judged the work: not a 0
            raise MetricFailed(f"{type(exc).__name__}: {exc}") from exc
    return float(value), notes
