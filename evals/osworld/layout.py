"""OSWorld's own task layout: an `evaluation_examples` folder with meta files and `examples/<domain>/<id>.json`.

    evaluation_examples/test_all.json        {"chrome": ["bb5e4c0d-...", ...], "os": [...], ...}
    evaluation_examples/examples/os/<id>.json

`stateact eval run evaluation_examples` runs the tasks `test_all.json` lists;
`stateact eval run evaluation_examples/test_small.json` the ones another meta
file lists. `meta_task_files` resolves them (a listed task without its file is
an error naming both).
"""

from __future__ import annotations

import json
from pathlib import Path

from stateact.evals.osworld.task import TaskError

EXAMPLES_FOLDER = "examples"
DEFAULT_META = "test_all.json"


def is_osworld_layout(suite: Path) -> bool:
    """A meta file beside an `examples` folder, or a folder holding both."""
    suite = Path(suite)
    if suite.is_file():
        return (suite.parent / EXAMPLES_FOLDER).is_dir()
    return (suite / EXAMPLES_FOLDER).is_dir() and (suite / DEFAULT_META).is_file()


def suite_root(suite: Path) -> Path:
    """The folder that holds a suite's files (a meta file's folder)."""
    suite = Path(suite)
    return suite.parent if suite.is_file() else suite


def meta_task_files(suite: Path) -> list[Path]:
    """The task files a meta file lists, in its order (domain by domain)."""
    suite = Path(suite)
    meta = suite if suite.is_file() else suite / DEFAULT_META
    try:
        listing = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TaskError(f"cannot read the OSWorld meta file {meta}: {exc}") from exc
    if not isinstance(listing, dict) or not all(isinstance(ids, list) for ids in listing.values()):
        raise TaskError(f"{meta} is not an OSWorld meta file ({{domain: [task ids]}})")
    examples = meta.parent / EXAMPLES_FOLDER
    files = [examples / domain / f"{task_id}.json" for domain, ids in listing.items() for task_id in ids]
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        raise TaskError(f"{meta} lists {len(missing)} task(s) without a file, e.g. {missing[0]}")
    return files
