"""Run as a script by evals/osworld/metrics/python_tests.py: import a test file from the current folder,
call one of its functions, and write the score as JSON to a file.

    python -I python_tests_child.py TEST_FILE FUNCTION_NAME SCORE_FILE

A bool scores 1 or 0, a number is clamped to [0, 1], any other value scores as its truth. When
the module cannot be loaded, the function is missing or raises, nothing is written (score 0).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any


def normalized(value: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return max(0.0, min(1.0, float(value)))
    return float(bool(value))


def main(test_file: str, function_name: str, score_file: str) -> None:
    sys.path.insert(0, os.getcwd())  # the test imports the files beside it, as in OSWorld
    spec = importlib.util.spec_from_file_location("scored_test_suite", Path(test_file).resolve())
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    function = getattr(module, function_name, None)
    if callable(function):
        score = normalized(function())
        Path(score_file).write_text(json.dumps(score))


if __name__ == "__main__":
    main(*sys.argv[1:4])
