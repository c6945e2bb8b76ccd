"""VM pools: two test-double VM servers whose reset command restores their home folder."""

from __future__ import annotations

import shlex
import shutil
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from stateact.evals.running.jobs import SuiteOptions
from stateact.evals.running.suite_runner import run_suite
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.pool import SlotRetired, VMSlot
from stateact.sandbox.pool_file import PoolError, load_pool, pool_from_options
from tests.support.docker_stand_in import StandInDocker, free_port
from tests.support.osworld_vm_server import VMServer
from tests.support.pool_suites import marker_suite
from tests.test_eval_runner import run_cli

APP_FIXTURES = frozenset({"vms"})

READY_TIMEOUT_S = 1.0
"""The pool's wait for a VM server after a reset (the test doubles answer at once, or never)."""


@dataclass
class VMDouble:
    local: LocalSandbox
    server: VMServer
    snapshot: Path

    @property
    def restore(self) -> str:
        home, snapshot = shlex.quote(self.local.home), shlex.quote(str(self.snapshot))
        return f"rm -rf {home} && cp -a {snapshot} {home}"


@pytest.fixture
def vms(tmp_path):
    """Two VM servers over two local sandboxes, each home saved as its snapshot."""
    made: list[VMDouble] = []
    try:
        for name in ("vm1", "vm2"):
            local = LocalSandbox(tmp_path / name / "home", display=True)
            local.start()
            snapshot = tmp_path / name / "snapshot"
            shutil.copytree(local.home, snapshot, symlinks=True)
            made.append(VMDouble(local, VMServer(local).start(), snapshot))
        yield made
    finally:
        for vm in made:
            vm.server.stop()
            vm.local.close()


def pool_file(tmp_path: Path, vms: list[VMDouble], resets: list[str]) -> Path:
    entries = "".join(
        f'[[vm]]\nname = "vm{i}"\nurl = "osworld://127.0.0.1:{vm.server.port}"\nreset = {reset!r}\n\n'.replace(
            "'", "'''"
        )
        for i, (vm, reset) in enumerate(zip(vms, resets, strict=True), 1)
    )
    path = tmp_path / "pool.toml"
    path.write_text(f"ready_timeout_s = {READY_TIMEOUT_S}\n\n{entries}", encoding="utf-8")
    return path


def run_marker_suite(tmp_path: Path, slots, count: int, listener=None):
    suite = tmp_path / "suite"
    marker_suite(suite, count)
    options = SuiteOptions(
        suite, ("bash-only",), "reference", tmp_path / "results", tmp_path / "cache", pool=tuple(slots)
    )
    retired: list[SlotRetired] = []
    outcomes = run_suite(options, listener, retired.append)
    return outcomes, retired


def test_a_task_never_sees_the_marker_another_task_left(vms, tmp_path):
    slots = load_pool(pool_file(tmp_path, vms, [vm.restore for vm in vms]))
    outcomes, retired = run_marker_suite(tmp_path, slots, 4)
    assert [(o.score, o.error) for o in outcomes] == [(1.0, "")] * 4
    assert retired == []
    left = sorted(p.name for vm in vms for p in Path(vm.local.home).glob("left-by-*"))
    assert len(left) == 2  # each VM kept only the marker of the last task it ran


def test_a_vm_whose_reset_restores_nothing_is_retired_and_its_jobs_are_errors(vms, tmp_path):
    slots = load_pool(pool_file(tmp_path, vms, ["true", "true"]))
    outcomes, retired = run_marker_suite(tmp_path, slots, 4)
    assert sorted(r.slot for r in retired) == ["vm1", "vm2"]
    assert all("still there after the reset" in r.reason for r in retired)
    assert [o.score for o in outcomes if not o.error] == [1.0, 1.0]  # the first lease of each VM
    unrun = [o for o in outcomes if o.error]
    assert len(unrun) == 2 and all("every slot of the pool was retired" in o.error for o in unrun)
    assert all((o.result_dir / "error.json").is_file() for o in unrun)


def test_a_vm_that_stops_answering_is_retired_and_its_job_finishes_elsewhere(vms, tmp_path):
    slots = load_pool(pool_file(tmp_path, vms, [vm.restore for vm in vms]))
    stopped = threading.Event()

    def stop_vm2_after_the_first_job(event, job, outcome) -> None:
        if event == "end" and not stopped.is_set():
            stopped.set()
            vms[1].server.stop()

    outcomes, retired = run_marker_suite(tmp_path, slots, 4, stop_vm2_after_the_first_job)
    assert [(o.score, o.error) for o in outcomes] == [(1.0, "")] * 4
    assert [r.slot for r in retired] == ["vm2"]


def test_pool_options_are_checked(tmp_path):
    with pytest.raises(PoolError, match="needs --reset-command"):
        pool_from_options(None, ["osworld://127.0.0.1:5000"], None)
    with pytest.raises(PoolError, match="not both"):
        pool_from_options(tmp_path / "pool.toml", ["osworld://h:1"], "true")
    [slot] = pool_from_options(
        None, ["osworld://10.0.0.5:5001"], "virsh snapshot-revert $STATEACT_SLOT clean"
    )
    assert (slot.name, slot.url) == ("vm1", "http://10.0.0.5:5001")
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[[vm]]\nurl = "osworld://h:1"\n[[vm]]\nurl = "osworld://h:2"\nreset = "true"\ncolour = 1\n'
    )
    with pytest.raises(PoolError, match="VM 1 has no `reset`"):
        load_pool(bad)
    bad.write_text('[[vm]]\nurl = "osworld://h:2"\nreset = "true"\ncolour = 1\n')
    with pytest.raises(PoolError, match=r"bad.toml: VM 1: unknown key\(s\) colour"):
        load_pool(bad)
    bad.write_text("[[vm]\n")
    with pytest.raises(PoolError, match="is not TOML"):
        load_pool(bad)


def test_qemu_pool_entries_are_checked_and_read_their_files_from_the_pool_folder(tmp_path):
    pool = tmp_path / "pool.toml"
    pool.write_text(
        'ready_timeout_s = 90\n[[qemu]]\nimage = "guest.qcow2"\nmemory_mb = 1024\n'
        '[[qemu]]\nname = "big"\nimage = "/vms/u.qcow2"\naccel = "tcg"\nport = 15000\n'
    )
    first, second = load_pool(pool)
    assert (first.name, first.image, first.memory_mb, first.ready_timeout_s) == (
        "qemu1",
        str(tmp_path / "guest.qcow2"),
        1024,
        90,
    )
    assert (second.name, second.url, second.accel) == ("big", "http://127.0.0.1:15000", "tcg")
    assert first.port not in (0, 15000) and first.cdp_port not in (0, first.port)
    assert (first.folder.name, second.folder.name) == (f"qemu1-{first.port}", "big-15000")
    with pytest.raises(SlotRetired, match=f"no VM image at {tmp_path / 'guest.qcow2'}"):
        first.lease(tmp_path)
    for entry, message in [
        ("memory_mb = 1", "qemu 1 needs `image`"),
        ('image = "a"\ncolour = 1', r"qemu 1: unknown key\(s\) colour"),
        ('image = "a"\naccel = "hvf"', "qemu 1: accel must be one of auto, kvm, tcg"),
    ]:
        pool.write_text(f"[[qemu]]\n{entry}\n")
        with pytest.raises(PoolError, match=message):
            load_pool(pool)


def test_a_failing_reset_command_retires_the_slot(tmp_path):
    slot = VMSlot("vm9", "http://127.0.0.1:9", reset="echo no such snapshot >&2; exit 3")
    with pytest.raises(SlotRetired, match="slot vm9 retired: the reset command exited 3: no such snapshot"):
        slot.lease(tmp_path)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--engine", "spark"], "unknown engine 'spark': use one of local, ray"),
        (["--address", "auto"], "--address is for --engine ray"),
        (["--vm", "osworld://127.0.0.1:5000"], "--vm needs --reset-command"),
        (["--vm", "127.0.0.1:5000", "--reset-command", "true"], "not an OSWorld sandbox spec"),
    ],
)
def test_eval_run_rejects_bad_engine_and_pool_options(tmp_path, flags, message):
    code, output = run_cli("eval", "run", str(tmp_path), "--results", str(tmp_path / "r"), *flags)
    assert (code, message in output) == (2, True), output


@pytest.mark.apps
def test_a_docker_pool_recreates_each_container_before_every_job(tmp_path):
    stand_in = StandInDocker(tmp_path / "containers")
    vm_image = tmp_path / "Ubuntu.qcow2"
    vm_image.write_bytes(b"QFI\xfb")
    path = tmp_path / "pool.toml"
    path.write_text(
        "".join(f'[[docker]]\nvm_image = "{vm_image}"\nport = {free_port()}\n\n' for _ in range(2)),
        encoding="utf-8",
    )
    slots = [replace(slot, client_factory=lambda: stand_in) for slot in load_pool(path)]
    try:
        outcomes, retired = run_marker_suite(tmp_path, slots, 4)
    finally:
        stand_in.remove_all()
    assert [(o.score, o.error) for o in outcomes] == [(1.0, "")] * 4
    assert (retired, stand_in.live) == ([], {})  # every container removed when the suite ended
    assert sorted(run["name"] for run in stand_in.runs) == ["stateact-docker1"] * 2 + ["stateact-docker2"] * 2
    run = stand_in.runs[0]
    assert (run["image"], run["devices"], run["cap_add"]) == (
        "happysixd/osworld-docker",
        ["/dev/kvm"],
        ["NET_ADMIN"],
    )
    assert run["volumes"] == {str(vm_image): {"bind": "/System.qcow2", "mode": "ro"}}
