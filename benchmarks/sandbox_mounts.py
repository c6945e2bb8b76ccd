"""What the disk caps cost an isolated sandbox at start and close (sandbox/mounts.py), against no caps.

With caps the home is an ext4 image the work folder's files are copied into at start and mirrored back
from at close; without (`--disk-home 0 --disk-tmp 0`) the work folder is bound as it is. Measured for a
fresh home and for a home of `FILES` files of `FILE_KB` KB, the agent changing one file before the
close. Medians of `ROUNDS` rounds; the last line prints key=value figures.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.sandbox.caps import DEFAULT_CAPS, DiskCaps  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402

ROUNDS = 5
FILES = 1000
FILE_KB = 100
NO_CAPS = DiskCaps(home=0, tmp=0)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def measure(caps: DiskCaps, files: int) -> tuple[float, float]:
    """Median start and close of a sandbox whose work folder holds `files` files, in ms."""
    starts, closes = [], []
    for _ in range(ROUNDS):
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            (home / "data").mkdir(parents=True)
            for k in range(files):
                (home / "data" / f"f{k}.bin").write_bytes(bytes(FILE_KB * 1024))
            box = LocalSandbox(home, isolation="bwrap", disk=caps)
            started = time.perf_counter()
            box.start()
            starts.append(_ms(started))
            box.run("echo changed > ~/changed.txt")
            started = time.perf_counter()
            box.close()
            closes.append(_ms(started))
    return statistics.median(starts), statistics.median(closes)


def main() -> None:
    figures = {}
    for name, files in (("fresh", 0), (f"{FILES}x{FILE_KB}k", FILES)):
        for caps_name, caps in (("caps", DEFAULT_CAPS), ("nocaps", NO_CAPS)):
            start, close = measure(caps, files)
            figures[f"start_ms_{name}_{caps_name}"] = start
            figures[f"close_ms_{name}_{caps_name}"] = close
    print(" ".join(f"{key}={value:.0f}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
