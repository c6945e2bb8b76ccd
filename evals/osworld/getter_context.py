"""What a getter works with: the sandbox it reads, the download cache and a host folder for fetched files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stateact.evals.osworld.cache import FileCache
from stateact.sandbox.base import Sandbox


@dataclass
class GetterContext:
    """The sandbox a getter reads, the cache it downloads through, and where it writes."""

    sandbox: Sandbox
    cache: FileCache
    work_dir: Path
    """A host folder where fetched files are written for the metrics."""
