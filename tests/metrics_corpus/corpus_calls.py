"""What the corpus modules share: file names made paths in the built folder, and a case run through a
metric table. Imported without our package too (osworld_scores.py puts this folder on sys.path)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Case = dict[str, Any]


def in_folder(value: Any, folder: Path) -> Any:
    """`value` with every file name (a string, also inside lists) made its absolute path in `folder`."""
    if isinstance(value, list):
        return [in_folder(item, folder) for item in value]
    return str(folder / value) if isinstance(value, str) else value


def with_paths(case: Case, folder: Path) -> Case:
    """`case` with its result's and (when it has one) its expected value's file names made paths."""
    resolved = {**case, "result": in_folder(case["result"], folder)}
    if "expected" in case:
        resolved["expected"] = in_folder(case["expected"], folder)
    return resolved


def call_case(metrics: dict[str, Callable[..., float]], case: Case) -> float:
    """Run one resolved case through `metrics` (a name -> function table): the result, the expected
    value when the case has one, then the options as keywords."""
    function = metrics[case["func"]]
    if "expected" not in case:
        return function(case["result"], **case["options"])
    return function(case["result"], case["expected"], **case["options"])
