"""The harness's own hands stay inside the sandbox: a hostile scripted model probes the file editor and
the other ways the harness touches files for it, through a real bubblewrap sandbox."""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path

import pytest

from stateact.app.config import RunConfig
from stateact.app.run import execute
from stateact.kernel.runtime import RoleModels
from stateact.kernel.tools.edit import EditTool
from stateact.sandbox import file_access
from stateact.sandbox import settings as sandbox_settings
from stateact.sandbox.base import SandboxError
from stateact.sandbox.file_access import NotRegularFile
from stateact.sandbox.isolation import bwrap_problem
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.runtime import runtime_ready
from tests.support.tool_calls import invoke
from tests.support.tool_context import run_context

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(bwrap_problem()) or not runtime_ready() or os.geteuid() != 0,
        reason="needs bubblewrap, the sandbox Python and root (the harness's rights are the attack)",
    ),
]

EDITOR = "str_replace_based_edit_tool"


def edit(command: str, path: str, **arguments) -> dict:
    """One editor call of a scripted turn."""
    return {"name": EDITOR, "input": {"command": command, "path": path, **arguments}}


def bash(command: str) -> dict:
    return {"name": "bash", "input": {"command": command}}


def refused(*texts: str) -> dict:
    """The expectation of an error result that says each of `texts`."""
    return {"is_error": True, "contains": list(texts)}


def script(steps: list[tuple[dict, dict]]) -> list[dict]:
    """Turns making each step's call, each turn stating what the previous call's result shows (a turn's
    `expect` speaks of the results of the turn before it), then `finish`."""
    turns, expected = [], None
    for call, outcome in [*steps, ({"name": "finish", "input": {"summary": "probed"}}, {})]:
        turns.append({"tool_calls": [call], **({"expect": expected} if expected else {})})
        expected = outcome
    return turns


@pytest.fixture
def host_secrets(tmp_path: Path) -> dict[str, Path]:
    """Root-only files and a folder on the host, outside anything the sandbox shows."""
    folder = tmp_path / "host"
    folder.mkdir(mode=0o700)
    secret = folder / "secret.txt"
    secret.write_text("HOST SECRET\n")
    secret.chmod(0o600)
    owned = folder / "owned.txt"
    owned.write_text("HOST FILE\n")
    owned.chmod(0o644)
    target = folder / "planted-dir"
    target.mkdir(mode=0o755)
    return {"secret": secret, "owned": owned, "dir": target}


def run_script(tmp_path: Path, turns: list[dict]):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"roles": {"main": turns}}))
    config = RunConfig(
        instruction="Probe the editor.",
        models=RoleModels(main=f"scripted:{script}"),
        harness="no-verify",
        workdir=tmp_path / "home",
        display=False,
        isolation="bwrap",
        runs_root=tmp_path / "runs",
    )
    return execute(config)


def test_a_hostile_model_cannot_read_or_write_the_host_through_the_editor(tmp_path, host_secrets):
    token = secrets.token_hex(6)
    system_targets = [
        f"/etc/planted-{token}.txt",
        f"/usr/planted-{token}.txt",
        f"/var/cache/planted-{token}.txt",
    ]
    secret, owned, host_dir = host_secrets["secret"], host_secrets["owned"], host_secrets["dir"]
    gone, read_only, unwritable = refused("does not exist"), refused("Read-only"), refused("Could not write")
    steps = [
        (bash(f"ln -s {secret} ~/s.txt; ln -s {owned} ~/o.txt; ln -s {host_dir} ~/d; ln -s /etc ~/etc"), {}),
        (edit("view", "/home/user/s.txt"), gone),
        (edit("view", f"/home/user/../..{secret}"), gone),
        (edit("view", str(secret.parent)), gone),
        (edit("view", "/etc/shadow"), refused("Permission denied")),
        (edit("str_replace", "/home/user/o.txt", old_str="HOST", new_str="MINE"), gone),
        (edit("insert", "/home/user/o.txt", insert_line=0, new_str="x"), gone),
        (edit("create", "/home/user/d/planted.txt", file_text="x"), unwritable),
        *[(edit("create", path, file_text="x"), read_only) for path in system_targets],
        (edit("create", f"/home/user/etc/planted-{token}.txt", file_text="x"), read_only),
        (edit("str_replace", "/etc/hostname", old_str="sandbox", new_str="x"), unwritable),
        (edit("insert", "/etc/hostname", insert_line=0, new_str="x"), unwritable),
        (edit("create", "/home/user/a.txt", file_text="mine\n"), {"contains": "Created"}),
        (bash(f"rm ~/a.txt && ln -s {owned} ~/a.txt"), {}),
        (edit("undo_edit", "/home/user/a.txt"), {"contains": "removed"}),
        (edit("create", "/home/user/b.txt", file_text="one\n"), {"contains": "Created"}),
        (edit("str_replace", "/home/user/b.txt", old_str="one", new_str="two"), {"contains": "Edited"}),
        (bash(f"rm ~/b.txt && ln -s {owned} ~/b.txt"), {}),
        (edit("undo_edit", "/home/user/b.txt"), unwritable),
    ]
    turns = script(steps)
    result = run_script(tmp_path, turns)

    assert result.status == "finished", result.text
    assert secret.read_text() == "HOST SECRET\n" and owned.read_text() == "HOST FILE\n"
    assert list(host_dir.iterdir()) == []
    for path in system_targets:
        assert not Path(path).exists(), path


@pytest.fixture
def box(tmp_path: Path):
    with LocalSandbox(tmp_path / "home", isolation="bwrap") as sandbox:
        yield sandbox


def test_special_files_are_refused_at_once(box):
    assert box.run(
        "mkfifo ~/pipe && python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('sock')\""
    ).ok
    for path, kind in (("~/pipe", "FIFO"), ("~/sock", "socket"), ("/dev/zero", "character device")):
        started = time.monotonic()
        with pytest.raises(NotRegularFile, match=kind):
            box.read_file(path)
        with pytest.raises(NotRegularFile, match=kind):
            box.write_file(path, b"x")
        assert time.monotonic() - started < 5
    assert box.path_kind("~/pipe") == "a FIFO (named pipe)"


def test_files_written_for_the_agent_are_the_sandbox_users(box):
    box.write_file("~/made/deep/file.txt", b"data")
    owners = box.run("stat -c %U ~/made ~/made/deep ~/made/deep/file.txt").stdout.split()
    assert owners == ["user", "user", "user"]
    assert box.read_file("/home/user/made/deep/file.txt") == b"data"


def test_a_helper_the_agent_kills_or_stops_is_replaced(box, monkeypatch):
    box.write_file("~/x.txt", b"one")
    assert box.run("pkill -KILL -x stateact-files").ok
    assert box.read_file("~/x.txt") == b"one"
    monkeypatch.setattr(file_access, "FILE_OP_TIMEOUT_S", 1.0)
    assert box.run("pkill -STOP -x stateact-files").ok
    with pytest.raises(SandboxError, match="did not finish within 1s"):
        box.read_file("~/x.txt")
    assert box.read_file("~/x.txt") == b"one"


def test_resume_carries_tmp_as_the_sandbox_user_and_never_through_links(box, tmp_path, host_secrets):
    staged = tmp_path / "staged"
    (staged / "folder").mkdir(parents=True)
    (staged / "folder" / "kept.txt").write_text("kept")
    (staged / "link").symlink_to(host_secrets["dir"])
    assert box.run("mkdir /tmp/folder && ln -s /etc /tmp/etc").ok
    box.copy_in(staged, ["folder", "link"], "/tmp")
    assert box.read_file("/tmp/folder/kept.txt") == b"kept"
    assert box.run("stat -c %U /tmp/folder/kept.txt").stdout.split() == ["user"]
    assert box.run("readlink /tmp/link").stdout.strip() == str(host_secrets["dir"])
    (staged / "etc").mkdir()
    (staged / "etc" / "planted.txt").write_text("x")
    box.copy_in(staged, ["etc"], "/tmp")  # tar replaces the planted link to /etc with the folder
    assert box.read_file("/tmp/etc/planted.txt") == b"x"
    assert not Path("/etc/planted.txt").exists()


def test_the_shells_terminal_is_the_sandbox_users(box, tmp_path):
    shell = box.open_shell(tmp_path / "scratch")
    out = shell.run(
        "echo out > /dev/stdout; echo err > /dev/stderr; stat -L -c %U /proc/self/fd/0", timeout=10
    )
    assert out.output.split() == ["out", "err", "user"], out.output
    assert shell.run("cd /tmp && mkfifo p && cd p", timeout=10).exit_code != 0
    assert shell.run("pwd", timeout=10).output.strip() == "/tmp"


def test_var_tmp_fills_up_to_its_cap_and_the_sandbox_goes_on(box):
    filled = box.run("dd if=/dev/zero of=/var/tmp/fill bs=1M count=2000 2>&1; df -B1 --output=size /var/tmp")
    assert "No space left on device" in filled.stdout, filled.output
    assert int(filled.stdout.split()[-1]) <= sandbox_settings.VAR_TMP_BYTES
    assert box.run("rm /var/tmp/fill && echo alive").stdout.split() == ["alive"]


def test_the_editor_answers_with_an_error_when_the_sandbox_cannot_look(tmp_path, monkeypatch):
    with run_context(tmp_path, isolation="bwrap") as context:
        editor = EditTool(context)
        invoke(editor, command="create", path="/home/user/a.txt", file_text="x\nx\n")
        twice = invoke(editor, command="str_replace", path="/home/user/a.txt", old_str="x", new_str="y")
        assert "starting at lines 1, 2" in twice.text
        monkeypatch.setattr(file_access, "FILE_OP_TIMEOUT_S", 1.0)
        assert context.sandbox.run("pkill -STOP -x stateact-files").ok
        stuck = invoke(editor, command="create", path="/home/user/b.txt", file_text="x")
        assert stuck.is_error and "did not finish within 1s" in stuck.text, stuck.text
        assert not invoke(editor, command="create", path="/home/user/b.txt", file_text="x").is_error


def test_the_toolkits_pkill_with_a_full_pattern_ends_the_target_not_itself(box):
    """`pkill -f PATTERN` through the toolkit's wrapper: its own command line holds PATTERN too (the
    pattern is built at run time, so the calling shell's own command line does not hold it)."""
    done = box.run('p="sleep 32"; p="${p}1"; $p & sleep 0.2; pkill -f "$p"; echo rc=$?; wait')
    assert "rc=0" in done.stdout, done.output
