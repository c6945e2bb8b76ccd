"""A qemu slot's guest never outlives the harness process that booted it: a real qemu, booted by the slot's
own code in a child process over a blank image (no guest OS: the firmware finds nothing to boot and
waits), ends within seconds of a `kill -9` of that process, its overlay removed by the next lease; what a
harness whose guard died too left (the qemu and its overlay) is listed and removed by `stateact cleanup`;
and a slot's own close ends its qemu, guard and record."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stateact.sandbox import leftovers
from stateact.sandbox.pool import SlotRetired
from stateact.sandbox.pool_qemu import QemuSlot
from stateact.sandbox.processes import running, tagged_pids
from tests.test_resume import ENV, REPO, cli, kill_hard

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not shutil.which("qemu-system-x86_64"), reason="qemu is not installed"),
]

END_TIMEOUT_S = 5.0
OUTPUT = {"cwd": REPO, "capture_output": True, "text": True, "timeout": 120}

BOOT_AND_WAIT = """
import sys, time
from stateact.sandbox.pool_qemu import QemuSlot

slot = QemuSlot.create("guarded", image=sys.argv[1], memory_mb=32, accel="tcg", state_dir=sys.argv[2])
slot.boot("tcg")
(overlay,) = slot.overlays()
print(slot.pid_file.read_text().strip(), overlay, flush=True)
time.sleep(600)
"""


def blank_image(folder: Path) -> Path:
    image = folder / "blank.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(image), "16M"], check=True)
    return image


def boot_in_child(tmp_path: Path) -> tuple[subprocess.Popen, int, Path]:
    """A child process that booted a qemu slot and waits: (it, qemu's pid, the boot's overlay)."""
    owner = subprocess.Popen(
        [sys.executable, "-c", BOOT_AND_WAIT, str(blank_image(tmp_path)), str(tmp_path / "state")],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp_path)},  # its record in a registry of
    )  # its own: the harnesses of other tests on this machine remove what dead ones left, this test's too
    pid, overlay = owner.stdout.readline().split()
    return owner, int(pid), Path(overlay)


def cleanup(tmp_path: Path, *options: str) -> str:
    """What `stateact cleanup` says, with the registry the child of `boot_in_child` recorded its boot in."""
    env = {**ENV, "TMPDIR": str(tmp_path)}
    done = subprocess.run(cli("cleanup", "--runs-root", str(tmp_path / "runs"), *options), env=env, **OUTPUT)
    assert done.returncode == 0, done.stderr
    return done.stdout


def tag_of(overlay: Path) -> str:
    return overlay.name.removeprefix("overlay-").removesuffix(".qcow2")


def ends(pid: int, timeout_s: float = END_TIMEOUT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not running(pid)


def guard_of(tag: str) -> int:
    """The pid of the guard process watching the boot tagged `tag`."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if tag.encode() in argv and b"-I" in argv:
                return int(entry.name)
    raise AssertionError(f"no guard for {tag}")


def test_kill_9_of_the_harness_that_booted_a_guest_ends_its_qemu(tmp_path, monkeypatch):
    monkeypatch.setattr(leftovers, "REGISTRY", tmp_path / leftovers.REGISTRY.name)  # the child's
    owner, qemu, overlay = boot_in_child(tmp_path)
    try:
        assert running(qemu) and Path(f"/proc/{qemu}/exe").resolve().name.startswith("qemu-system")
        assert tagged_pids(tag_of(overlay)) == [qemu]
    finally:
        kill_hard(owner)
    assert ends(qemu), "the guard ended qemu with the harness"
    (leftover,) = [found for found in leftovers.stale() if found.tag == tag_of(overlay)]
    assert (leftover.kind, leftover.processes, leftover.files) == ("qemu guest", 0, [overlay])
    other = QemuSlot.create("next", image=str(tmp_path / "gone.qcow2"), state_dir=str(tmp_path / "next"))
    with pytest.raises(SlotRetired, match="no VM image"):  # retired, after removing what dead harnesses left
        other.lease(tmp_path)
    assert not overlay.exists() and not (leftovers.REGISTRY / f"{tag_of(overlay)}.json").exists(), (
        "the next lease removed what the dead harness left"
    )


def test_cleanup_lists_then_ends_a_guest_whose_harness_and_guard_both_died(tmp_path):
    owner, qemu, overlay = boot_in_child(tmp_path)
    tag = tag_of(overlay)
    try:
        os.kill(guard_of(tag), signal.SIGKILL)
    finally:
        kill_hard(owner)
    try:
        assert not ends(qemu, 1.0), "with its guard dead too, qemu runs on"
        listed = cleanup(tmp_path)
        assert f"qemu guest {tag} of dead process {owner.pid}: 1 process(es), file {overlay}" in listed
        assert running(qemu) and overlay.exists(), "listing removes nothing"
        assert f"removed qemu guest {tag}" in cleanup(tmp_path, "--remove")
        assert ends(qemu) and not overlay.exists()
        assert "nothing left by dead runs" in cleanup(tmp_path)
    finally:
        if running(qemu):
            os.kill(qemu, signal.SIGKILL)


def test_a_slots_close_ends_its_qemu_guard_and_record(tmp_path):
    slot = QemuSlot.create(
        "closed", image=str(blank_image(tmp_path)), memory_mb=32, accel="tcg", state_dir=str(tmp_path / "s")
    )
    slot.boot("tcg")
    (overlay,) = slot.overlays()
    qemu, guard = int(slot.pid_file.read_text()), guard_of(tag_of(overlay))
    slot.close()
    assert not running(qemu) and ends(guard) and not slot.overlays()
    assert not (leftovers.REGISTRY / f"{tag_of(overlay)}.json").exists()
