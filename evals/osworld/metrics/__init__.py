"""The metrics task files name in `evaluator.func`, written on openpyxl, pandas, python-docx, python-pptx,
Pillow and numpy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stateact.evals.osworld.bridge import BridgeError, bridged_metric, bridged_names, configured_python
from stateact.evals.osworld.metrics import (
    archives,
    chrome,
    contents,
    desktop,
    docs_format,
    file_equality,
    html_files,
    images,
    mp3_tags,
    pdf,
    python_tests,
    records,
    slides_checks,
    thunderbird,
    vlc,
)
from stateact.evals.osworld.metrics.docs import compare_docx_files
from stateact.evals.osworld.metrics.rules import MetricError, MetricUnsupported
from stateact.evals.osworld.metrics.slides import compare_pptx_files
from stateact.evals.osworld.metrics.table import check_table_options, compare_table
from stateact.evals.osworld.metrics.text import check_include_exclude, compare_csv, diff_text_file, exact_match
from stateact.evals.osworld.task import INFEASIBLE

METRICS: dict[str, Callable[..., float]] = {
    "compare_table": compare_table,
    "compare_docx_files": compare_docx_files,
    "compare_pptx_files": compare_pptx_files,
    "compare_csv": compare_csv,
    "exact_match": exact_match,
    "diff_text_file": diff_text_file,
    "check_include_exclude": check_include_exclude,
    **chrome.METRICS,
    **records.METRICS,
    **contents.METRICS,
    **file_equality.METRICS,
    **python_tests.METRICS,
    **docs_format.METRICS,
    **pdf.METRICS,
    **slides_checks.METRICS,
    **desktop.METRICS,
    **thunderbird.METRICS,
    **archives.METRICS,
    **html_files.METRICS,
    **mp3_tags.METRICS,
    **images.METRICS,
    **vlc.METRICS,
}

OPTION_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "compare_table": check_table_options,
    **records.OPTION_CHECKS,
    **contents.OPTION_CHECKS,
    **archives.OPTION_CHECKS,
}
"""Per metric, a check that raises MetricUnsupported when its options name what is not implemented."""


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
]
