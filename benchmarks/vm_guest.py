"""The qemu slot on the test guest against a local sandbox: boot to ready, revert, and per-command latency.

    python benchmarks/vm_guest.py [repeats]   # needs root, qemu and debootstrap (scripts/setup.sh)

Builds the test guest unless cached (scripts/build_vm_guest.sh; build_s is 0-ish then), leases it from a
QemuSlot twice (boot_to_ready_s: from the start of a lease to a checked fresh session; revert_s: a second
lease, i.e. kill, drop the overlay, make a new one, boot; overlay_ms: the overlay work alone), then times
one-shot commands and relay-shell commands on the guest and the same on a local sandbox (isolated by
bubblewrap). Prints name=value lines; accel says whether KVM or TCG ran the guest (and why).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.osworld_shell import median_ms  # noqa: E402
from stateact.sandbox.base import Sandbox  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402
from stateact.sandbox.pool_qemu import kvm_verdict  # noqa: E402
from tests.support.vm_guest import guest_image, guest_slot  # noqa: E402


def _latencies(sandbox: Sandbox, scratch: Path, repeats: int) -> tuple[float, float]:
    """Median ms of a one-shot `true` and of `true` in a shell of `sandbox`."""
    shell = sandbox.open_shell(scratch)
    try:
        return median_ms(lambda: sandbox.run("true"), repeats), median_ms(lambda: shell.run("true"), repeats)
    finally:
        shell.close()


def main(repeats: int = 10) -> None:
    started = time.perf_counter()
    folder = guest_image()
    figures = {"build_s": time.perf_counter() - started}
    with tempfile.TemporaryDirectory() as work:
        slot = guest_slot(folder, "bench", Path(work) / "qemu")
        try:
            started = time.perf_counter()
            guest = slot.lease(Path(work))
            figures["boot_to_ready_s"] = time.perf_counter() - started
            slot.give_back(guest)
            started = time.perf_counter()
            guest = slot.lease(Path(work))
            figures["revert_s"] = time.perf_counter() - started
            figures["guest_run_ms"], figures["guest_shell_ms"] = _latencies(guest, Path(work), repeats)
            slot.give_back(guest)
            started = time.perf_counter()
            slot.close()
            slot.boot("tcg")  # the overlay work and qemu's start, timed apart from the guest's boot
            figures["overlay_and_qemu_start_ms"] = (time.perf_counter() - started) * 1000
        finally:
            slot.close()
        local = LocalSandbox(Path(work) / "home", isolation="bwrap")
        local.start()
        try:
            figures["local_run_ms"], figures["local_shell_ms"] = _latencies(local, Path(work), repeats)
        finally:
            local.close()
    verdict = kvm_verdict() or {"accel": "tcg", "note": "no usable /dev/kvm"}
    print(f"accel={verdict['accel']}")
    if verdict.get("note"):
        print(f"accel_note={' '.join(verdict['note'].split())}")
    for name, value in figures.items():
        print(f"{name}={value:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
