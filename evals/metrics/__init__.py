"""The metrics task files name in `evaluator.func`, written on openpyxl, pandas, python-docx and python-pptx."""

from __future__ import annotations

from collections.abc import Callable

from evals.metrics.docs import compare_docx_files
from evals.metrics.rules import MetricError, MetricUnsupported
from evals.metrics.slides import compare_pptx_files
from evals.metrics.table import compare_table
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
}

__all__ = ["INFEASIBLE", "METRICS", "MetricError", "MetricUnsupported"]
