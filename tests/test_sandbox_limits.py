"""One sandbox cannot starve another: each local sandbox's processes are in a cgroup of its own that caps
their number and their memory (real bubblewrap sandboxes, real cgroups, real fork bombs and hogs)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from stateact.sandbox import cgroups
from stateact.sandbox.cgroups import Place, SandboxGroup, tagged_groups
from stateact.sandbox.isolation import bwrap_problem
from stateact.sandbox.leftovers import remove_stale, stale
from stateact.sandbox.limits import SandboxLimits, format_size, parse_size
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.runtime import runtime_ready

CHECKOUT = Path(__file__).resolve().parents[1]
MIB = 2**20
isolated = pytest.mark.skipif(
    bool(bwrap_problem()) or not runtime_ready(), reason="bubblewrap or the sandbox Python is not available"
)
with_cgroups = pytest.mark.skipif(bool(cgroups.problem()), reason=f"no cgroups here: {cgroups.problem()}")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a harness as another user")


def wait_until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def host_pids(cmdline: str) -> set[int]:
    """Host processes whose command line is `cmdline` (words joined by spaces)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes().split(b"\0")[:-1] == [
                word.encode() for word in cmdline.split()
            ]:
                found.add(int(entry.name))
        except OSError:
            continue
    return found


def in_pid_namespace(namespace: str) -> set[int]:
    """Host processes in the PID namespace `namespace` (as `readlink /proc/self/ns/pid` names it)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "ns" / "pid") == namespace:
                found.add(int(entry.name))
        except OSError:
            continue
    return found


def oom_kills(group: SandboxGroup) -> int:
    """How many processes the kernel killed for going past the group's memory limit."""
    for folder in group.folders:
        for name in ("memory.events", "memory.oom_control"):  # v2, v1
            if (folder / name).exists():
                lines = dict(line.split() for line in (folder / name).read_text().splitlines())
                return int(lines["oom_kill"])
    raise AssertionError("the group has no memory controller")


def swap_allowed(group: SandboxGroup) -> int:
    """Swap the group may use beyond its memory limit (0 also when swap is not accounted: there is none)."""
    for folder in group.folders:
        if (folder / "memory.swap.max").exists():  # v2
            return int((folder / "memory.swap.max").read_text())
        if (folder / "memory.memsw.limit_in_bytes").exists():  # v1: memory and swap together
            both = int((folder / "memory.memsw.limit_in_bytes").read_text())
            return both - int((folder / "memory.limit_in_bytes").read_text())
    return 0


def test_sizes_are_read_as_binary_multiples_and_bad_ones_refused():
    assert (
        parse_size("4G") == 4 * 2**30
        and parse_size("512m") == 512 * MIB
        and parse_size("1.5GiB") == 3 * 2**29
    )
    assert parse_size("1048576") == MIB and format_size(4 * 2**30) == "4G" and format_size(1000) == "1000"
    for bad in ("", "lots", "4X", "-1G"):
        with pytest.raises(ValueError, match="not a size"):
            parse_size(bad)
    with pytest.raises(ValueError, match="--max-processes must be at least"):
        SandboxLimits(processes=2)
    with pytest.raises(ValueError, match="--max-memory must be at least"):
        SandboxLimits(memory_bytes=MIB)


def test_the_limits_reach_the_sandboxes_of_runs_and_suites(tmp_path):
    from stateact.app.config import RunConfig
    from stateact.evals.running.jobs import SuiteOptions, local_slot
    from stateact.kernel.runtime import RoleModels

    limits = SandboxLimits(100, 512 * MIB)
    config = RunConfig(instruction="x", models=RoleModels(main="scripted:x"), limits=limits)
    assert RunConfig.model_validate_json(config.model_dump_json()).make_sandbox(tmp_path).limits == limits
    suite = SuiteOptions(suite=tmp_path, harnesses=("full",), model="x", results=tmp_path, cache=tmp_path)
    assert local_slot(suite, "w").lease(tmp_path).limits == SandboxLimits()
    suite = SuiteOptions(tmp_path, ("full",), "x", tmp_path, tmp_path, limits=limits)
    assert local_slot(suite, "w").lease(tmp_path).limits == limits


@pytest.mark.slow
@isolated
@with_cgroups
def test_a_fork_bomb_in_one_sandbox_leaves_another_its_processes(tmp_path):
    with (
        LocalSandbox(tmp_path / "bomb", isolation="bwrap", limits=SandboxLimits(processes=64)) as bomb,
        LocalSandbox(tmp_path / "other", isolation="bwrap") as other,
    ):
        group = tagged_groups()[bomb.tag]
        bomb.launch(":(){ :|:& };:")
        wait_until(lambda: len(group.pids()) >= 60)  # the bomb is at its cap
        shell = other.open_shell(tmp_path / "scratch")
        started = (
            "for i in $(seq 300); do sleep 5 & done; jobs -rp > /tmp/jobs; echo sleeping $(wc -l < /tmp/jobs)"
        )
        out = shell.run(f"({started}; wait; echo done) 2>&1", timeout=60).output
        assert out.split()[-3:] == ["sleeping", "300", "done"], out[-500:]
        assert other.run("echo fine").stdout == "fine\n"
        assert len(group.pids()) <= 64


@pytest.mark.slow
@isolated
@with_cgroups
def test_a_memory_hog_is_killed_at_the_cap_and_the_sandbox_goes_on(tmp_path):
    with LocalSandbox(
        tmp_path / "home", isolation="bwrap", limits=SandboxLimits(memory_bytes=256 * MIB)
    ) as box:
        hog = box.run_python("data = b'x' * (1 << 30); print('held', len(data))", timeout=60)
        assert hog.returncode == -signal.SIGKILL and "held" not in hog.stdout, hog.output
        group = tagged_groups()[box.tag]
        assert oom_kills(group) >= 1  # the kernel's kill, inside the sandbox's group
        assert swap_allowed(group) == 0
        assert box.run("echo alive").stdout == "alive\n"


@pytest.mark.slow
@isolated
@with_cgroups
@pytest.mark.parametrize("isolation", ["bwrap", "none"])
def test_every_process_of_the_sandbox_is_in_its_group(tmp_path, isolation):
    with LocalSandbox(tmp_path / "home", isolation=isolation) as box:
        group = tagged_groups()[box.tag]
        name = f"stateact-{box.tag}"
        shell = box.open_shell(tmp_path / "scratch")
        shell.run("sleep 301.5 &", timeout=10)
        box.launch("sleep 302.5")
        box.spawn(["sleep", "303.5"])  # how the web subagent starts its Chromium
        reports = [
            shell.run("cat /proc/self/cgroup", timeout=10).output,
            box.run("cat /proc/self/cgroup").stdout,
            box.run_python("print(open('/proc/self/cgroup').read())").stdout,
        ]
        for report in reports:  # one line per hierarchy in /proc/self/cgroup
            assert report.count(f"/{name}\n") == len(group.folders), report
        sleeps = set().union(*(host_pids(f"sleep {s}") for s in ("301.5", "302.5", "303.5")))
        assert len(sleeps) == 3 and sleeps <= group.pids()
        if isolation == "bwrap":  # every process in its PID namespace, the holder's too
            namespace = box.run("readlink /proc/self/ns/pid").stdout.strip()
            assert in_pid_namespace(namespace) <= group.pids()
    assert not any(folder.exists() for folder in group.folders)
    assert not any(host_pids(f"sleep {s}") for s in ("301.5", "302.5", "303.5"))


DEAD_HARNESS = """
import sys, time
from pathlib import Path
from stateact.sandbox.local import LocalSandbox
box = LocalSandbox(Path(sys.argv[1]), isolation="none")
box.start()
box.launch("sleep 304.5")
print(box.tag, flush=True)
time.sleep(300)
"""


@pytest.mark.slow
@with_cgroups
def test_the_group_of_a_harness_killed_with_kill_9_is_removed_at_the_next_start(tmp_path):
    harness = subprocess.Popen(
        [sys.executable, "-c", DEAD_HARNESS, str(tmp_path / "home")],
        cwd=CHECKOUT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        tag = harness.stdout.readline().strip()
    finally:
        harness.kill()
        harness.wait()
    (leftover,) = [found for found in stale() if found.tag == tag]
    assert leftover.groups and all(folder.exists() for folder in leftover.groups)
    assert host_pids("sleep 304.5") <= SandboxGroup(leftover.groups).pids()
    with LocalSandbox(tmp_path / "next", isolation="none"):  # its start removes what dead harnesses left
        assert not any(folder.exists() for folder in leftover.groups)
        assert not host_pids("sleep 304.5")


@pytest.mark.slow
@with_cgroups
def test_a_group_with_no_record_and_no_owner_is_a_leftover():
    group = SandboxGroup.create("0123456789abcdef", SandboxLimits())
    sleeper = subprocess.Popen(["sleep", "305.5"], preexec_fn=group.join)
    try:
        (leftover,) = [found for found in stale() if found.tag == "0123456789abcdef"]
        assert leftover.processes == 1 and leftover.groups == group.folders
        remove_stale()
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
        assert not any(folder.exists() for folder in group.folders)
    finally:
        sleeper.kill()
        group.remove()


STARTS_ANOTHER_SANDBOX = """
import sys, tempfile
from pathlib import Path
from stateact.sandbox.local import LocalSandbox
with LocalSandbox(Path(tempfile.mkdtemp()) / "home", isolation="none") as sandbox:  # its start cleans up
    print(sandbox.run("echo started").stdout.strip())
"""


@pytest.mark.slow
@with_cgroups
@pytest.mark.parametrize("isolation", ["bwrap", "none"])
def test_a_harness_with_another_tmpdir_leaves_a_live_sandbox_alone(tmp_path, isolation):
    if isolation == "bwrap" and (bwrap_problem() or not runtime_ready()):
        pytest.skip("bubblewrap or the sandbox Python is not available")
    elsewhere = Path(tempfile.mkdtemp(prefix="tmpdir-"))  # another user's or tool's TMPDIR: another registry
    try:
        with LocalSandbox(tmp_path / "home", isolation=isolation) as live:
            live.launch("sleep 306.5")
            wait_until(lambda: bool(host_pids("sleep 306.5")))
            other = subprocess.run(
                [sys.executable, "-c", STARTS_ANOTHER_SANDBOX],
                cwd=CHECKOUT,
                env={**os.environ, "TMPDIR": str(elsewhere)},
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert other.returncode == 0 and other.stdout.strip() == "started", other.stderr
            assert host_pids("sleep 306.5"), "the other harness's clean-up killed a live sandbox's program"
            assert all(folder.exists() for folder in live._group.folders)
            assert live.run("echo still here").stdout.strip() == "still here"
    finally:
        shutil.rmtree(elsewhere)


def _writable_cgroup2() -> Path | None:
    mounts = [line.split() for line in Path("/proc/self/mounts").read_text().splitlines()]
    found = next((Path(m[1]) for m in mounts if m[2] == "cgroup2"), None)
    return found if found and os.access(found / "cgroup.procs", os.W_OK) else None


@pytest.mark.slow
@pytest.mark.skipif(_writable_cgroup2() is None, reason="no writable cgroup v2 mount")
def test_a_cgroup_v2_group_takes_children_and_is_killed_whole():
    """The v2 path where this machine's pids and memory controllers are in v1: membership, cgroup.kill."""
    root = _writable_cgroup2()
    controllers = tuple(
        c for c in cgroups.CONTROLLERS if c in (root / "cgroup.controllers").read_text().split()
    )
    group = SandboxGroup.create("fedcba9876543210", SandboxLimits(), [Place(2, controllers, root)])
    family = subprocess.Popen(["sh", "-c", "sleep 306.5 & sleep 307.5"], preexec_fn=group.join)
    try:
        wait_until(lambda: len(group.pids()) == 3)
        assert host_pids("sleep 306.5") | host_pids("sleep 307.5") | {family.pid} == group.pids()
        assert group.remove(timeout=10)
        assert family.wait(timeout=10) == -signal.SIGKILL
        assert not host_pids("sleep 306.5") and not group.folders[0].exists()
    finally:
        family.kill()
        group.remove()


@pytest.mark.slow
@as_root
@pytest.mark.skipif(_writable_cgroup2() is None, reason="no writable cgroup v2 mount")
def test_a_cgroup_v2_parent_is_the_nearest_group_that_can_hand_controllers_to_children():
    """v2 lets no group but the root both hold processes and enable controllers for its children: the
    sandbox's parent is found above a harness that sits in a leaf (any controller of the mount will do)."""
    root = _writable_cgroup2()
    controller = (root / "cgroup.controllers").read_text().split()[:1]
    if not controller:
        pytest.skip("the cgroup v2 mount has no controller to enable")
    was_enabled = controller[0] in (root / "cgroup.subtree_control").read_text().split()
    above, leaf = root / "stateact-test-above", root / "stateact-test-above" / "harness"
    leaf.mkdir(parents=True)
    harness = subprocess.Popen(["sleep", "308.5"], preexec_fn=SandboxGroup([leaf]).join)
    try:
        assert (
            cgroups._delegating_parent(leaf, root, controller) == root
        )  # `above` has it not: the root enables it
        assert (
            cgroups._delegating_parent(leaf, root, controller) == above
        )  # given now: the nearest group wins
        assert controller[0] in (above / "cgroup.subtree_control").read_text().split()
    finally:
        SandboxGroup([leaf, above]).remove()
        harness.wait()
        if not was_enabled:
            (root / "cgroup.subtree_control").write_text(f"-{controller[0]}")


AS_USER = """
import tempfile
from pathlib import Path
from stateact.sandbox.local import LocalSandbox
from stateact.app.doctor import CHECKS
print(next(c for c in CHECKS if c.name == "sandbox limits (processes, memory)").run())
with LocalSandbox(Path(tempfile.gettempdir()) / "home", isolation="none") as box:
    print(box.warnings)
"""


@pytest.mark.slow
@as_root
@with_cgroups
def test_without_a_cgroup_it_may_use_the_run_warns_and_doctor_says_so():
    from stateact.app.doctor import CHECKS

    ok, detail = next(c for c in CHECKS if c.name == "sandbox limits (processes, memory)").run()
    assert ok and "pids" in detail and "memory" in detail, detail
    scratch = Path(tempfile.mkdtemp())  # the user's own temp folder: its sandbox registry is there
    os.chown(scratch, 1000, 1000)
    try:
        done = subprocess.run(
            ["setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", sys.executable, "-c", AS_USER],
            cwd=CHECKOUT,
            env={"PATH": os.environ["PATH"], "HOME": str(scratch), "TMPDIR": str(scratch)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        shutil.rmtree(scratch)
    assert done.returncode == 0, done.stderr
    doctor, warnings = done.stdout.splitlines()
    assert doctor.startswith("(False, 'no per-sandbox limits on processes and memory"), (
        done.stdout + done.stderr
    )
    assert warnings.count("no per-sandbox limits") == 1, warnings
