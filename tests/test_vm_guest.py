"""The qemu slot on a real guest (the test guest, scripts/build_vm_guest.sh, booted with TCG here): revert is
complete and never writes the base image, sudo and package installs work inside, a task a local sandbox
refuses as needing a VM runs and is scored on the guest, and a guest whose qemu is killed mid-task retires
its slot while the job runs again on another. The revert and sudo tests use the run's shared guest (the
`vm_guest` fixture: one boot, reverted by the slot's own revert); the other two boot slots of their own."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import httpx

from stateact.evals.running.jobs import SuiteOptions
from stateact.evals.running.suite_runner import run_suite
from stateact.sandbox.pool import LocalSlot, SlotRetired
from stateact.sandbox.pool_file import load_pool
from stateact.sandbox.pool_qemu import QemuSlot
from tests.support.pool_suites import file_check, write_task
from tests.support.vm_guest import ON_GUEST, guest_slot

pytestmark = list(ON_GUEST)

SUDO = "echo password | sudo -S"
"""How OSWorld's tasks run a command as root on its image (the user's password is `password`)."""
OFFLINE_PACKAGE = "/opt/debs/hello.deb"
"""A package the test guest holds, installable without a network."""
KILL_WATCH_TIMEOUT_S = 600
WAIT_FOR_GO = "for i in $(seq 50); do [ -e ~/go ] && break; sleep 0.5; done"
"""The killed task's pause: 25 s (under the bash tool's soft timeout) for the watcher to see it began, cut
short by ~/go, which the watcher writes on the slot that runs it again."""


def test_revert_drops_what_a_lease_wrote_and_never_writes_the_base_image(vm_guest_image, vm_guest):
    base = vm_guest_image / "guest.qcow2"
    before = base.stat()
    written = vm_guest.session.run(f"echo kept > ~/from-lease-1 && {SUDO} touch /etc/from-lease-1 && sync")
    assert written.ok, written.output
    [first_overlay] = vm_guest.slot.overlays()
    left = vm_guest.revert().run("ls ~/from-lease-1 /etc/from-lease-1 2>&1; true").stdout
    assert "No such file" in left and "kept" not in left
    assert left.count("No such file") == 2
    after = base.stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)
    assert first_overlay not in vm_guest.slot.overlays() and len(vm_guest.slot.overlays()) == 1


def test_sudo_and_package_installs_work_in_the_guest(vm_guest):
    guest = vm_guest.session
    assert guest.run(f"{SUDO} id -u").stdout.strip() == "0"
    installed = guest.run(f"{SUDO} apt-get install -y {OFFLINE_PACKAGE}", timeout=110)
    assert installed.ok, installed.output
    assert guest.run("hello").stdout.strip() == "Hello, world!"
    assert "install ok installed" in guest.run("dpkg-query -W -f='${Status}' hello").stdout


def _package_task(suite: Path) -> Path:
    """A task whose setup installs a package as root and whose checker reads the installed packages."""
    path = write_task(
        suite,
        "os",
        "greeting",
        ["hello > ~/greeting.txt"],
        file_check("~/greeting.txt; dpkg -l hello", ["Hello, world!", "ii  hello"]),
    )
    task = json.loads(path.read_text())
    task["config"] = [
        {
            "type": "execute",
            "parameters": {"command": f"{SUDO} apt-get install -y {OFFLINE_PACKAGE}", "shell": True},
        }
    ]
    path.write_text(json.dumps(task))
    return path


def _run(tmp_path: Path, slots: list, name: str, listener=None):
    options = SuiteOptions(
        tmp_path / "suite",
        ("bash-only",),
        "reference",
        tmp_path / name,
        tmp_path / "cache",
        pool=tuple(slots),
    )
    retired: list[SlotRetired] = []
    return run_suite(options, listener, retired.append), retired


def test_a_task_a_local_sandbox_refuses_as_needing_a_vm_runs_and_is_scored_on_the_guest(
    vm_guest_image, tmp_path
):
    _package_task(tmp_path / "suite")
    [local], _ = _run(tmp_path, [LocalSlot("local", display=False)], "local")
    assert local.score is None and "needs a VM" in local.error
    slot = guest_slot(vm_guest_image, "task", tmp_path / "qemu")
    [played], retired = _run(tmp_path, [slot], "guest")
    assert (played.score, played.error, retired) == (1.0, "", [])


def test_a_guest_killed_mid_task_retires_its_slot_and_the_job_runs_on_another(vm_guest_image, tmp_path):
    write_task(
        tmp_path / "suite",
        "os",
        "slow-note",
        [f"touch ~/began && {WAIT_FOR_GO} && echo done > ~/note.txt"],
        file_check("~/note.txt", ["done"]),
    )
    pool = tmp_path / "pool.toml"
    entries = "".join(
        f'[[qemu]]\nname = "{name}"\nimage = "{vm_guest_image}/guest.qcow2"\nkernel = "{vm_guest_image}/vmlinuz"\n'
        f'initrd = "{vm_guest_image}/initrd.img"\nstate_dir = "{tmp_path}/qemu/{name}"\nmemory_mb = 1024\n\n'
        for name in ("first", "second")
    )
    pool.write_text(entries)
    slots = load_pool(pool)
    assert all(isinstance(slot, QemuSlot) for slot in slots)
    killed: list[str] = []
    watcher = threading.Thread(target=_kill_once_the_task_began, args=(slots, killed), daemon=True)
    watcher.start()
    try:
        [outcome], retired = _run(tmp_path, slots, "results")
    finally:
        for slot in slots:
            slot.close()
    watcher.join(timeout=5)
    assert not any(slot.overlays() for slot in slots)  # closing a slot drops its overlay
    assert len(killed) == 1
    assert [r.slot for r in retired] == killed
    assert "stopped answering" in retired[0].reason
    assert (outcome.score, outcome.error) == (1.0, "")


def _kill_once_the_task_began(slots: list[QemuSlot], killed: list[str]) -> None:
    """SIGKILL the qemu of the first slot whose guest has ~/began (the task's first command ran); then write
    ~/go on the next slot where it began (the job run again), so that run goes on at once."""
    deadline = time.monotonic() + KILL_WATCH_TIMEOUT_S
    while time.monotonic() < deadline:
        time.sleep(0.5)
        for slot in slots:
            if slot.name in killed or not _guest_command(slot, "test -e /home/user/began"):
                continue
            if killed:
                _guest_command(slot, "touch /home/user/go")
                return
            os.kill(int(slot.pid_file.read_text()), signal.SIGKILL)
            killed.append(slot.name)


def _guest_command(slot: QemuSlot, command: str) -> bool:
    """Whether `command` ran with exit code 0 on the slot's guest (False when its server does not answer)."""
    try:
        answer = httpx.post(f"{slot.url}/execute", json={"command": command, "shell": True}, timeout=5)
    except httpx.HTTPError:
        return False
    return answer.status_code == 200 and answer.json().get("returncode") == 0
