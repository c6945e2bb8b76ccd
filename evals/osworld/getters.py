"""Getters: where a metric's `result` and `expected` inputs come from.

- `vm_file` (`path`, `dest`): the file is copied out of the sandbox to the
  scoring folder; the metric gets the local path, or None when the file does not
  exist (as in OSWorld). `multi: true` takes lists of paths and dests, and
  `gives` picks which ones are returned (one index gives a single path).
- `cloud_file` (`path` is a URL, `dest`): the file comes from the cache, which downloads it on
  a miss (evals/osworld/cache.py); one that cannot be had raises CacheMiss.
- `rule`: the `rules` object itself.
- `vm_command_line` (`command`, `shell`): the command's standard output.

The desktop and application getters are in evals/osworld/getters_vm.py, the date rules in evals/osworld/getters_time.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from stateact.evals import settings
from stateact.evals.osworld import chrome
from stateact.evals.osworld.getter_context import GetterContext
from stateact.evals.osworld.getters_time import TIME_GETTERS
from stateact.evals.osworld.getters_vm import VM_GETTERS, fetch_vm_file
from stateact.evals.osworld.setup import step_command
from stateact.evals.osworld.task import Getter, TaskError


def fetch(getter: Getter | None, context: GetterContext) -> Any:
    if getter is None:
        return None
    handler = GETTERS.get(getter.type)
    if handler is None:
        raise TaskError(f"unsupported getter type {getter.type!r}; supported: {', '.join(sorted(GETTERS))}")
    return handler(getter.params(), context)


def _files(params: dict, fetch_one: Callable[[str, Path], str | None]) -> Any:
    """Shared `path`/`dest`/`multi`/`gives` handling of the file getters."""
    if not params.get("multi"):
        return fetch_one(params["path"], Path(params.get("dest") or Path(params["path"]).name))
    paths, dests = list(params["path"]), list(params["dest"])
    fetched = [fetch_one(path, Path(dest)) for path, dest in zip(paths, dests, strict=True)]
    gives = params.get("gives", list(range(len(fetched))))
    picked = [fetched[index] for index in gives]
    return picked[0] if len(picked) == 1 else picked


def _vm_file(params: dict, context: GetterContext) -> Any:
    return _files(params, lambda path, dest: fetch_vm_file(context, path, dest))


def _cloud_file(params: dict, context: GetterContext) -> Any:
    def fetch_one(url: str, dest: Path) -> str:
        target = context.work_dir / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(context.cache.read(url, dest.name))
        return str(target)

    return _files(params, fetch_one)


def _rule(params: dict, context: GetterContext) -> Any:
    return params.get("rules")


def _vm_command_line(params: dict, context: GetterContext) -> str:
    command = step_command(params, context.sandbox)
    return context.sandbox.run(command, timeout=settings.GETTER_COMMAND_TIMEOUT_S).stdout


GETTERS: dict[str, Callable[[dict, GetterContext], Any]] = {
    "vm_file": _vm_file,
    "cloud_file": _cloud_file,
    "rule": _rule,
    "vm_command_line": _vm_command_line,
    **chrome.GETTERS,
    **VM_GETTERS,
    **TIME_GETTERS,
}
