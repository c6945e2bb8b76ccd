"""Cost of the gate's read-only enforcement: fingerprint, snapshot, change check and restore.

    PYTHONPATH=. python benchmarks/gate_snapshot.py [files] [kilobytes_each]

Builds a home folder of small files plus one deliverable, then times one round of
Snapshot.take -> check_and_restore on a LocalSandbox. Last line: key=value pairs.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from stateact.gate.inspect.snapshot import Snapshot
from stateact.sandbox.local import LocalSandbox


def main(count: int = 500, kilobytes: int = 20) -> None:
    with tempfile.TemporaryDirectory() as root:
        home = Path(root) / "home"
        for index in range(count):
            folder = home / f"dir{index % 20}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"file{index}.bin").write_bytes(os.urandom(kilobytes * 1024))
        deliverable = home / "Documents" / "report.xlsx"
        deliverable.parent.mkdir(parents=True)
        deliverable.write_bytes(os.urandom(2 * 1024 * 1024))
        with LocalSandbox(home) as sandbox:
            started = time.perf_counter()
            snapshot = Snapshot.take(sandbox, [str(deliverable)])
            took = time.perf_counter() - started
            deliverable.write_bytes(b"changed")
            started = time.perf_counter()
            check = snapshot.check_and_restore()
            restored = time.perf_counter() - started
        total_mb = (count * kilobytes * 1024 + 2 * 1024 * 1024) / 1e6
        print(f"home: {count + 1} files, {total_mb:.1f} MB")
        print(f"snapshot (fingerprint + copies): {took:.2f}s, {snapshot.summary}")
        print(
            f"check and restore: {restored:.2f}s, violations: {check.violations()}, restored: {check.restored}"
        )
        print(
            f"files={count + 1} megabytes={total_mb:.1f} snapshot_s={took:.2f} check_restore_s={restored:.2f}"
        )


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
