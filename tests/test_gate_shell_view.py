"""The gate's shell in the isolated sandbox's read-only view (real bubblewrap): what would write fails, so
a read-only check is judged by what it does, and no command changes the deliverable."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from stateact.gate.review.tools import ReadOnlyShell, ReadOnlyViewShell, gate_shell
from stateact.sandbox.isolation import bwrap_problem
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.runtime import runtime_ready

pytest_plugins = ["tests.support.gate_fixtures"]

needs_bwrap = pytest.mark.skipif(
    bool(bwrap_problem()) or not runtime_ready(), reason="bubblewrap or the sandbox Python is not available"
)
ATTACKS = [
    "rm -f report.txt",
    "echo changed > report.txt",
    "mv report.txt moved.txt",
    "ln -s /etc/passwd link",
    "chmod 000 report.txt",
    "touch -d 2001-01-01 report.txt",
    "echo x > /tmp/left.txt",
    "python3 -c \"import pathlib; getattr(pathlib.Path('report.txt'), 'write_' + 'text')('changed')\"",
    "mount -o remount,rw /home/user && echo changed > report.txt",
    "unshare -rm sh -c 'mount -o remount,rw /home/user && echo changed > report.txt'",
]


@pytest.fixture
def box(tmp_path):
    with LocalSandbox(tmp_path / "home", isolation="bwrap") as sandbox:
        assert sandbox.run("echo 'total 42' > report.txt", 10).returncode == 0  # the sandbox's user owns it
        yield sandbox


def call(shell: ReadOnlyShell, command: str) -> str:
    return shell.run(shell.Input(command=command)).text


def home_state(box: LocalSandbox) -> dict[str, str]:
    return {
        str(p.relative_to(box.host_home)): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file()
        else "dir"
        for p in sorted(Path(box.host_home).rglob("*"))
    }


@pytest.mark.slow
@needs_bwrap
def test_writes_fail_in_the_view_and_a_getattr_check_runs(box):
    shell = gate_shell(box)
    before, tmp_before = home_state(box), box.run("ls -A /tmp", 10).stdout

    attacks = [box.run_read_only(command, 30) for command in ATTACKS]  # the view alone, no guard
    write = call(shell, ATTACKS[-3])
    check = call(
        shell, "python3 -c \"import pathlib; print(getattr(pathlib.Path('report.txt'), 'read_text')())\""
    )

    assert isinstance(shell, ReadOnlyViewShell)
    assert "`$(...)`" in shell.description and "`<(...)`" in shell.description
    assert all(result.returncode != 0 for result in attacks), attacks
    assert "Read-only file system" in attacks[1].stderr and "Read-only file system" in write
    assert check.startswith("total 42\n") and "[exit code 0]" in check
    assert home_state(box) == before and box.run("ls -A /tmp", 10).stdout == tmp_before
    agent_write = box.run("echo agent > report.txt && cat report.txt", 10)  # the sandbox itself still writes
    assert agent_write.stdout == "agent\n"


def test_a_sandbox_without_the_view_gets_the_guarded_shell(sandbox):
    shell = gate_shell(sandbox)
    assert type(shell) is ReadOnlyShell
    assert "Refused" in call(shell, "rm -f x") and "`$(...)`" in shell.description
