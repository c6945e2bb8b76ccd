"""What one local sandbox may use of the machine: processes at once and memory (sandbox/cgroups.py).

SandboxLimits(processes=256, memory_bytes=parse_size("2G"))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stateact.sandbox.settings import LIMIT_MEMORY_BYTES, LIMIT_PROCESSES, MIN_MEMORY_BYTES, MIN_PROCESSES

SIZE_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
"""Binary multiples, as `free -h` and cgroup files use them."""
SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes of a size written as `4G`, `512M`, `1.5GiB` or a plain number of bytes; ValueError otherwise."""
    match = SIZE.fullmatch(text)
    if not match:
        raise ValueError(f"not a size: {text!r} (write e.g. 4G, 512M or a number of bytes)")
    return int(float(match[1]) * SIZE_UNITS[match[2].upper()])


def format_size(size: int) -> str:
    """`size` bytes in the largest unit that writes it whole (4294967296 -> `4G`)."""
    unit = next(u for u in reversed(SIZE_UNITS) if size % SIZE_UNITS[u] == 0)
    return f"{size // SIZE_UNITS[unit]}{unit}"


@dataclass(frozen=True)
class SandboxLimits:
    """Processes one sandbox may have at once, and memory its processes may use together (RAM and swap)."""

    processes: int = LIMIT_PROCESSES
    memory_bytes: int = LIMIT_MEMORY_BYTES

    def __post_init__(self) -> None:
        if self.processes < MIN_PROCESSES:
            raise ValueError(f"--max-processes must be at least {MIN_PROCESSES} (got {self.processes})")
        if self.memory_bytes < MIN_MEMORY_BYTES:
            raise ValueError(
                f"--max-memory must be at least {format_size(MIN_MEMORY_BYTES)} (got {format_size(self.memory_bytes)})"
            )

    @classmethod
    def from_options(cls, max_processes: int, max_memory: str) -> SandboxLimits:
        """The limits the command-line options `--max-processes` and `--max-memory` give; ValueError."""
        return cls(max_processes, parse_size(max_memory))


DEFAULT_LIMITS = SandboxLimits()
DEFAULT_MEMORY_TEXT = format_size(LIMIT_MEMORY_BYTES)
LIMITS_HELP = (
    "Processes one local sandbox may have at once (its cgroup's pids limit): a fork bomb inside starves no other run.",
    "Memory one local sandbox's processes may use together, e.g. 4G or 512M (its cgroup's limit, swap included): "
    "past it the kernel kills the largest process inside, not the machine's.",
)
"""The help of `--max-processes` and `--max-memory`, the same on every command that starts sandboxes."""
