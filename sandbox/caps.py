"""The disk caps of a local sandbox's home and /tmp, and the size text (`10G`, `512M`) that names them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from stateact.sandbox.settings import DISK_HOME_BYTES, DISK_TMP_BYTES

UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
SIZE_PATTERN = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes of a size such as `10G`, `512M`, `1.5G` or `4096` (binary units); `0` means no cap.
    ValueError naming the forms for anything else."""
    match = SIZE_PATTERN.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a size: {text!r} (use a number with K, M, G or T, e.g. 10G; 0 for no cap)")
    return int(float(match[1]) * UNITS[match[2].upper()])


def size_text(size: int) -> str:
    """`size` bytes as `parse_size` reads it back, in the largest unit that divides it."""
    for unit in ("T", "G", "M", "K"):
        if size and size % UNITS[unit] == 0:
            return f"{size // UNITS[unit]}{unit}"
    return str(size)


@dataclass(frozen=True)
class DiskCaps:
    """The most an isolated sandbox's home and /tmp may hold, in bytes (0: no cap)."""

    home: int = DISK_HOME_BYTES
    tmp: int = DISK_TMP_BYTES


DEFAULT_CAPS = DiskCaps()
DISK_HOME_HELP = (
    "Most the agent's home may hold in an isolated sandbox (e.g. 10G, 512M; 0: no cap). Its files are in "
    "the work folder when the run ends."
)
DISK_TMP_HELP = "Most the sandbox's /tmp may hold, in memory (e.g. 2G; 0: no cap, on this machine's disk)."


def disk_caps(home: str, tmp: str) -> DiskCaps:
    """The caps that the texts of `--disk-home` and `--disk-tmp` give; ValueError naming a bad one."""
    try:
        return DiskCaps(parse_size(home), parse_size(tmp))
    except ValueError as exc:
        raise ValueError(f"--disk-home/--disk-tmp: {exc}") from None
