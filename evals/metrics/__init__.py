"""The metrics task files name in `evaluator.func`, written on openpyxl, pandas, python-docx, python-pptx,
Pillow and numpy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.metrics import images, vlc
from evals.metrics.docs import compare_docx_files
from evals.metrics.rules import MetricError, MetricUnsupported
from evals.metrics.slides import check_pptx_options, compare_pptx_files
from evals.metrics.table import check_table_options, compare_table
from evals.metrics.text import check_include_exclude, compare_csv, diff_text_file, exact_match

INFEASIBLE = "infeasible"
"""Not a function: the task scores 1 only when the agent declared it infeasible (see evals/scoring.py)."""

METRICS: dict[str, Callable[..., float]] = {
    "compare_table": compare_table,
    "compare_docx_files": compare_docx_files,
    "compare_pptx_files": compare_pptx_files,
    "compare_csv": compare_csv,
    "exact_match": exact_match,
    "diff_text_file": diff_text_file,
    "check_include_exclude": check_include_exclude,
    **images.METRICS,
    **vlc.METRICS,
}

OPTION_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "compare_table": check_table_options,
    "compare_pptx_files": check_pptx_options,
}
"""Per metric, a check that raises MetricUnsupported when its options name what is not implemented."""


def check_metric_options(name: str, options: dict[str, Any] | None) -> None:
    """Raise MetricUnsupported when metric `name`'s options use a rule or option not implemented here."""
    check = OPTION_CHECKS.get(name)
    if check is not None:
        check(options or {})


__all__ = ["INFEASIBLE", "METRICS", "MetricError", "MetricUnsupported", "check_metric_options"]
