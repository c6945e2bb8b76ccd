"""Time the validation of the office suite: every reference solution replayed through the full harness.

    python benchmarks/validate_suite.py [WORKERS]

Prints seconds per domain, then a last line of key=value pairs.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.evals.running.suite import OFFICE_SUITE, discover  # noqa: E402
from stateact.evals.running.validate import validate_suite  # noqa: E402


def main(workers: int) -> None:
    tasks = discover(OFFICE_SUITE)
    with tempfile.TemporaryDirectory(prefix="stateact-validate-") as out:
        started = time.monotonic()
        rows = validate_suite(tasks, Path(out), workers=workers)
        total = time.monotonic() - started
    per_domain: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        per_domain[row.domain].append(row.seconds)
        if not row.valid:
            print(f"INVALID {row.task_id}: {row.error}")
    for domain, seconds in sorted(per_domain.items()):
        print(
            f"{domain:10} {len(seconds):3} tasks  {sum(seconds):6.1f} s  (mean {sum(seconds) / len(seconds):.1f} s)"
        )
    valid = sum(row.valid for row in rows)
    print(
        f"tasks={len(rows)} valid={valid} workers={workers} total_s={total:.1f} mean_task_s={sum(r.seconds for r in rows) / len(rows):.1f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
