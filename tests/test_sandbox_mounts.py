"""The mounts of an isolated sandbox (real bubblewrap, real mounts): disk caps on its home and /tmp, a
private /dev/shm, no host path in its mountinfo, an X display no other sandbox reaches, and the work
folder holding the run's files after a close or a `kill -9` of the harness."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from stateact.app.survival import carry_tmp, end_leftovers
from stateact.sandbox.caps import DiskCaps, parse_size
from stateact.sandbox.isolation import CHECKOUT, bwrap_problem
from stateact.sandbox.leftovers import REGISTRY, home_folder, image_folder, remove, stale, tmp_folder
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.mounts import mount_problem
from stateact.sandbox.processes import tagged_pids
from stateact.sandbox.runtime import runtime_ready

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(bwrap_problem()) or not runtime_ready() or bool(mount_problem()),
        reason="bubblewrap, the sandbox Python or mounts (root, loop devices) are not available",
    ),
]

SMALL = DiskCaps(home=parse_size("48M"), tmp=parse_size("16M"))
REPO = Path(__file__).resolve().parents[1]
KEEP_A_SANDBOX_OPEN = """
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from stateact.sandbox.caps import parse_size, DiskCaps
from stateact.sandbox.local import LocalSandbox

sandbox = LocalSandbox(Path(sys.argv[1]), isolation="bwrap", disk=DiskCaps(parse_size("48M"), parse_size("16M")))
if len(sys.argv) > 2:
    sandbox.keep_tmp_in(Path(sys.argv[2]))  # as a run does: its run folder's place for the resume
sandbox.start()
done = sandbox.run("echo made > ~/made.txt; rm ~/gone.txt; echo kept > /tmp/note.txt")
print(sandbox.tag if done.ok else done.output, flush=True)
sys.stdin.read()
"""


@pytest.fixture
def box(tmp_path):
    with LocalSandbox(tmp_path / "home", isolation="bwrap", disk=SMALL) as sandbox:
        yield sandbox


def fill(box: LocalSandbox, path: str) -> str:
    """What `dd` says when it writes 64 MB (more than either small cap) to `path` inside."""
    done = box.run(f"dd if=/dev/zero of={path} bs=1M count=64 2>&1; echo exit=$?", timeout=60)
    return done.output


def test_a_tmp_fill_stops_at_its_cap_off_the_host_disk(box):
    said = fill(box, "/tmp/fill")
    assert "No space left on device" in said and "exit=1" in said, said
    host = os.statvfs(box.resolve("/tmp"))
    assert host.f_blocks * host.f_frsize == SMALL.tmp, "the sandbox's /tmp is a filesystem of its cap's size"
    assert os.stat(box.resolve("/tmp/fill")).st_size <= SMALL.tmp


def test_a_home_fill_stops_at_its_cap_and_the_work_folder_keeps_the_files(tmp_path):
    workdir = tmp_path / "home"
    (workdir / "sub").mkdir(parents=True)
    (workdir / "gone.txt").write_text("old")
    (workdir / "sub" / "changed.txt").write_text("before")
    os.symlink("/etc/shadow", workdir / "link")
    with LocalSandbox(workdir, isolation="bwrap", disk=SMALL) as box:
        said = fill(box, "~/fill")
        assert "No space left on device" in said and "exit=1" in said, said
        done = box.run(
            "rm ~/fill ~/gone.txt; echo after > ~/sub/changed.txt; mkfifo ~/pipe; echo n > ~/new.txt"
        )
        assert done.ok, done.output
        assert (workdir / "new.txt").read_text() == "n\n", "the host reads the home at the work folder's path"
    assert not os.path.ismount(workdir)
    assert not (workdir / "gone.txt").exists() and not (workdir / "fill").exists()
    assert (workdir / "sub" / "changed.txt").read_text() == "after\n"
    assert (workdir / "new.txt").read_text() == "n\n" and (workdir / "pipe").is_fifo()
    assert os.readlink(workdir / "link") == "/etc/shadow"


def test_a_work_folder_larger_than_the_home_cap_is_refused_clearly(tmp_path):
    workdir = tmp_path / "home"
    workdir.mkdir()
    (workdir / "big").write_bytes(b"x" * parse_size("60M"))
    box = LocalSandbox(workdir, isolation="bwrap", disk=SMALL)
    with pytest.raises(Exception, match="do not fit in the home's disk cap of 48M"):
        box.start()
    assert not os.path.ismount(workdir) and (workdir / "big").stat().st_size == parse_size("60M")
    assert not home_folder(box.tag).exists() and not tmp_folder(box.tag).exists()


def test_no_host_path_in_the_mountinfo_nor_in_the_loop_devices(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    with LocalSandbox(tmp_path / "home", isolation="bwrap", hidden=[runs], display=True) as box:
        seen = box.run(
            "cat /proc/self/mountinfo /proc/1/mountinfo /proc/self/mounts; "
            "cat /sys/block/loop*/loop/backing_file /sys/class/block/*/loop/backing_file 2>/dev/null; true"
        )
        assert seen.ok and "/home/user" in seen.stdout, seen.output
        needles = [CHECKOUT, Path(sys.prefix), tmp_path, Path(box.host_home), runs]
        needles += [tmp_folder(box.tag), image_folder(box.tag), home_folder(box.tag)]
        for line in seen.stdout.splitlines():
            for needle in needles:
                assert str(needle) not in line, f"{needle} in {line}"


def test_multiprocessing_works_inside(box):
    code = (
        "import multiprocessing as mp\n"
        "queue = mp.Queue(); queue.put('through'); print(queue.get())\n"
        "with mp.Pool(2) as pool: print(sum(pool.map(abs, [-1, -2, -3])))\n"
    )
    done = box.run_python(code, timeout=60)
    assert done.ok and done.stdout.split() == ["through", "6"], done.output
    assert box.run("stat -c %a /dev/shm").stdout.strip() == "1777"


@pytest.mark.apps
def test_a_sandbox_with_the_host_network_reaches_its_own_display_only(tmp_path):
    with (
        LocalSandbox(tmp_path / "a", isolation="bwrap", network="host", display=True) as a,
        LocalSandbox(tmp_path / "b", isolation="bwrap", network="host", display=True) as b,
    ):
        own = a.run(f"xdpyinfo -display {a.display} | head -1")
        assert own.ok and "name of display" in own.stdout, own.output
        xlib = f"import Xlib.display; Xlib.display.Display('{b.display}')"
        other = a.run(f'xdpyinfo -display {b.display}; echo xdpyinfo=$?; python3 -c "{xlib}"; echo xlib=$?')
        assert "xdpyinfo=1" in other.stdout and "xlib=1" in other.stdout, other.output
        assert b.screenshot().startswith(b"\x89PNG"), "the harness still reaches each display"


def killed_owner(workdir: Path, keep_tmp: Path | None = None) -> str:
    """The tag of a sandbox on `workdir` (with a `gone.txt`) whose harness made `~/made.txt`, removed
    `~/gone.txt`, put `/tmp/note.txt` and was then killed with `kill -9`; `keep_tmp`: its run's place
    for its /tmp."""
    workdir.mkdir()
    (workdir / "gone.txt").write_text("old")
    owner = subprocess.Popen(
        [sys.executable, "-c", KEEP_A_SANDBOX_OPEN, str(workdir), *([str(keep_tmp)] if keep_tmp else [])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    tag = owner.stdout.readline().strip()
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    deadline = time.monotonic() + 20  # the dead harness's guard ends the sandbox's processes, soon after
    while tagged_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (workdir / "made.txt").read_text() == "made\n", tag
    return tag


def assert_mirrored_and_unmounted(workdir: Path, tag: str) -> None:
    assert not os.path.ismount(workdir) and not home_folder(tag).exists() and not image_folder(tag).exists()
    assert (workdir / "made.txt").read_text() == "made\n" and not (workdir / "gone.txt").exists()


def test_a_killed_harness_leaves_the_files_in_the_work_folder_and_its_tmp_for_the_resume(tmp_path):
    workdir = tmp_path / "home"
    tag = killed_owner(workdir)
    staging = tmp_path / "carried"
    left = end_leftovers([tag], staging)
    assert (staging / "note.txt").read_text() == "kept\n" and not tmp_folder(tag).exists()

    (leftover,) = [found for found in stale() if found.tag == tag]
    with ThreadPoolExecutor(4) as starts:  # the sandboxes of an eval run each remove what dead owners left
        list(starts.map(remove, [leftover] * 4))
    assert_mirrored_and_unmounted(workdir, tag)
    with LocalSandbox(workdir, isolation="bwrap", disk=SMALL) as resumed:
        assert carry_tmp(left, resumed) == ["note.txt"]
        assert resumed.run("cat /tmp/note.txt ~/made.txt").stdout == "kept\nmade\n"


def test_a_clean_up_before_the_resume_moves_the_tmp_to_the_run_folder_instead_of_deleting_it(tmp_path):
    workdir, staging = tmp_path / "home", tmp_path / "run" / "carried-tmp"
    staging.parent.mkdir()
    tag = killed_owner(workdir, keep_tmp=staging)
    with LocalSandbox(tmp_path / "another", isolation="none"):  # another run's start cleans up first
        assert (staging / "note.txt").read_text() == "kept\n" and not tmp_folder(tag).exists()
    assert_mirrored_and_unmounted(workdir, tag)
    left = end_leftovers([tag], staging)  # the resume finds it staged
    with LocalSandbox(workdir, isolation="bwrap", disk=SMALL) as resumed:
        assert carry_tmp(left, resumed) == ["note.txt"]
        assert resumed.run("cat /tmp/note.txt").stdout == "kept\n"


def test_a_record_never_has_the_clean_up_move_a_tmp_where_its_writer_may_not_write(tmp_path):
    workdir, foreign = tmp_path / "home", tmp_path / "not-theirs"
    foreign.mkdir()
    (foreign / "precious.txt").write_text("keep me")
    tag = killed_owner(workdir)
    record = REGISTRY / f"{tag}.json"
    forged = json.loads(record.read_text()) | {"keep_tmp": str(foreign)}  # a folder another user owns
    record.write_text(json.dumps(forged))
    os.chown(foreign, 65534, 65534)
    (leftover,) = [found for found in stale() if found.tag == tag]
    assert leftover.keep_tmp is None
    remove(leftover)
    assert (foreign / "precious.txt").read_text() == "keep me" and not tmp_folder(tag).exists()


def test_a_killed_sandbox_whose_record_is_gone_is_still_found_and_mirrored_back(tmp_path):
    workdir = tmp_path / "home"
    tag = killed_owner(workdir)
    (REGISTRY / f"{tag}.json").unlink()  # as a cleaner of old files in /tmp would
    (leftover,) = [found for found in stale() if found.tag == tag]
    assert leftover.owner == 0 and home_folder(tag) in leftover.folders
    remove(leftover)
    assert_mirrored_and_unmounted(workdir, tag)
    assert not tmp_folder(tag).exists()


def test_a_home_cap_beyond_the_free_disk_is_warned_of(tmp_path):
    caps = DiskCaps(home=parse_size("1T") * 8, tmp=SMALL.tmp)
    with LocalSandbox(tmp_path / "home", isolation="bwrap", disk=caps) as box:
        assert box.warnings == [
            "the home's disk cap (8T) is more than /var/tmp has free: the agent filling its home would fill "
            "this machine's disk first (give a smaller --disk-home)"
        ]
