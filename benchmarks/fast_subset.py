"""Wall time of the quick test subset, the README's "under 3 minutes on 2 cores".

Runs `pytest -m "not apps and not slow"` from the checkout (the README's command) and prints
`fast_subset_seconds`, `fast_subset_tests` and `fast_subset_passed` as key=value. Measure on a quiet
machine: another process on the two cores stretches it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "not apps and not slow", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - started
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|failed|error)", done.stdout)}
    tests = sum(counts.values())
    print(
        f"fast_subset_seconds={seconds:.0f} fast_subset_tests={tests} "
        f"fast_subset_passed={int(done.returncode == 0)}"
    )


if __name__ == "__main__":
    main()
