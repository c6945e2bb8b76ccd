"""Runs inside the user's OSWorld environment (an interpreter with `desktop-env`), never ours.

It imports nothing of stateact, only the standard library and OSWorld's package:

    python bridge_runner.py list OUT            # OUT: JSON list of OSWorld's metric function names
    python bridge_runner.py call IN OUT         # IN: {"name", "args", "kwargs"}; OUT: {"score"} or {"raises"}

The metric functions print freely on stdout; the answer is written to OUT only.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import pkgutil
import sys
import traceback
import types
from pathlib import Path

PACKAGE = "desktop_env.evaluators.metrics"


def _package() -> types.ModuleType:
    """OSWorld's metrics package without its `__init__` (which imports every domain), so that each
    module is imported on its own and only when needed."""
    spec = importlib.util.find_spec("desktop_env")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("desktop_env is not installed in this interpreter")
    package = types.ModuleType(PACKAGE)
    package.__path__ = [str(Path(spec.origin).parent / "evaluators" / "metrics")]
    sys.modules[PACKAGE] = package
    return package


def _public_functions(module: types.ModuleType) -> dict:
    return {
        name: value
        for name, value in vars(module).items()
        if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_")
    }


def _list() -> list[str]:
    """Every metric function name whose module imports in this environment."""
    names: set[str] = set()
    for info in pkgutil.iter_modules(_package().__path__):
        try:
            names |= set(_public_functions(importlib.import_module(f"{PACKAGE}.{info.name}")))
        except Exception:  # noqa: BLE001 - a module whose imports this environment lacks offers nothing
            continue
    return sorted(names)


def _function(name: str):
    """The metric function `name`, importing only the module that defines it."""
    folder = Path(_package().__path__[0])
    for source in sorted(folder.glob("*.py")):
        if f"def {name}(" in source.read_text(encoding="utf-8"):
            function = _public_functions(importlib.import_module(f"{PACKAGE}.{source.stem}")).get(name)
            if function is not None:
                return function
    raise LookupError(f"OSWorld has no metric function {name!r}")


def main(argv: list[str]) -> int:
    mode = argv[1]
    if mode == "list":
        with open(argv[2], "w", encoding="utf-8") as out:
            json.dump(_list(), out)
        return 0
    with open(argv[2], encoding="utf-8") as source:
        request = json.load(source)
    try:
        value = _function(request["name"])(*request["args"], **request["kwargs"])
        answer = {"score": float(value)}
    except Exception as exc:  # noqa: BLE001 - the caller records OSWorld's exception as its runner would
        answer = {
            "raises": type(exc).__name__,
            "message": str(exc)[:500],
            "trace": traceback.format_exc()[-2000:],
        }
    with open(argv[3], "w", encoding="utf-8") as out:
        json.dump(answer, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
