"""One metric call, confined: a metric reads files the agent wrote, so it runs in a child process with
limits on wall time, CPU time and memory (stateact/kernel/confined.py; settings.METRIC_*), and a metric
that passes one, or crashes, is a MetricFailed (a scoring error), never a score.

The child runs `run_metric`: the metric by name, ours or OSWorld's own through the user's OSWorld
environment (evals/osworld/bridge.py, whose interpreter the limits hold too), called inside `collect()`;
it answers the score and the metric's notes (evals/osworld/metrics/explain.py). Every metric module is
imported once, by the worker that forks the children, so a call costs a fork
(benchmarks/confined_metrics.py); a metric sees the worker's modules as they were imported (what the
call needs from the harness's state, such as the OSWorld interpreter, is passed with the call). A
metric family registered after the worker started (`metrics.gather_families()` again) is loaded by the
child from the file the harness found it in.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from typing import Any

from stateact.evals import settings
from stateact.evals.osworld import metrics
from stateact.evals.osworld.bridge import bridged_metric, configured_python
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
    ours = metrics.METRICS.get(name)  # as registered now (a family may have come since the worker started)
    python = None if ours else configured_python()
    source = _source(ours) if ours else None
    return confined(
        run_metric,
        name,
        python,
        source,
        args,
        options,
        error=MetricFailed,
        what="its inputs",
        caps=metric_caps(),
        preload=PRELOAD,
    )


Source = tuple[str, str, str]
"""A metric function's module name, file and name in its module."""


def _source(metric: Any) -> Source:
    """Where our metric `metric` is defined."""
    return metric.__module__, inspect.getfile(metric), metric.__name__


def run_metric(
    name: str,
    python: str | None,
    source: Source | None,
    args: tuple[Any, ...],
    options: dict[str, Any],
) -> tuple[float, Notes]:
    """In the child: our metric `name` (from `source`, its module and file, when the worker has not
    imported it), or OSWorld's in `python`, on `args` and `options`; any exception it raises is a
    MetricFailed naming it."""
    if python:
        metric = bridged_metric(python, name)
    elif name in metrics.METRICS or source is None:
        metric = metrics.METRICS[name]
    else:
        module, file, function = source
        metric = getattr(_imported(module, file), function)
    with collect() as notes:
        try:
            value = metric(*args, **options)
        except Exception as exc:  # a checker that crashed has not judged the work: not a 0
            raise MetricFailed(f"{type(exc).__name__}: {exc}") from exc
    return float(value), notes


def _imported(module: str, file: str) -> Any:
    """Module `module` as the worker has it, else loaded from `file` (a family added since it started)."""
    if module in sys.modules:
        return sys.modules[module]
    spec = importlib.util.spec_from_file_location(module, file)
    if spec is None or spec.loader is None:
        raise MetricFailed(f"the metric's module {module} cannot be loaded from {file}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)
    return loaded
