"""The metrics task files name in `evaluator.func`, written on openpyxl, pandas, python-docx, python-pptx,
Pillow and numpy.

Each module here is a family: its functions, a `METRICS` table naming the ones task files call and,
for some, an `OPTION_CHECKS` table. Every module of the package is imported and its tables gathered
(`register_metric`), so a new metric is its function and its line in its family's table, and a new
family is its module; nothing else names them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

from stateact.evals.osworld.bridge import BridgeError, bridged_metric, bridged_names, configured_python
from stateact.evals.osworld.metrics.rules import MetricError, MetricUnsupported
from stateact.evals.osworld.task import INFEASIBLE

Metric = Callable[..., float]
OptionCheck = Callable[[dict[str, Any]], None]

METRICS: dict[str, Metric] = {}
"""Every metric by the name task files give it, gathered from the family modules' `METRICS` tables."""
OPTION_CHECKS: dict[str, OptionCheck] = {}
"""Per metric, a check that raises MetricUnsupported when its options name what is not implemented
(from the family modules' `OPTION_CHECKS` tables)."""


def register_metric(name: str, metric: Metric, option_check: OptionCheck | None = None) -> Metric:
    """Make `metric` the one task files name `name`; ValueError when another metric has that name."""
    if METRICS.setdefault(name, metric) is not metric:
        raise ValueError(f"metric {name!r} is {METRICS[name].__module__}.{METRICS[name].__name__}'s already")
    if option_check is not None:
        OPTION_CHECKS[name] = option_check
    return metric


def gather_families() -> None:
    """Import every module of this package and register the metrics of its tables."""
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        checks = getattr(module, "OPTION_CHECKS", {})
        for name, metric in getattr(module, "METRICS", {}).items():
            register_metric(name, metric, checks.get(name))


gather_families()


def find_metric(name: str) -> Callable[..., float] | None:
    """Our implementation of metric `name`; else OSWorld's own, run in the user's OSWorld environment
    when one is named (evals/osworld/bridge.py); else None."""
    if name in METRICS:
        return METRICS[name]
    python = configured_python()
    if python and name in bridged_names(python):
        return bridged_metric(python, name)
    return None


def check_metric_options(name: str, options: dict[str, Any] | None) -> None:
    """Raise MetricUnsupported when metric `name`'s options use a rule or option not implemented here."""
    check = OPTION_CHECKS.get(name)
    if check is not None:
        check(options or {})


__all__ = [
    "INFEASIBLE",
    "METRICS",
    "BridgeError",
    "MetricError",
    "MetricUnsupported",
    "check_metric_options",
    "find_metric",
    "register_metric",
]
