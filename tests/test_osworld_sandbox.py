"""Conformance of OSWorldSandbox: against a local test double of the VM server (real commands, files, Xvfb,
pyautogui), or a real server when OSWORLD_SERVER_URL is set, then against the test guest, a Debian VM booted
by qemu that serves the double (marker `vm`; tests that need the double's internals skip)."""

from __future__ import annotations

import socket
from xml.etree import ElementTree

import pytest

from stateact.sandbox.backends import parse_spec
from stateact.sandbox.base import SandboxError
from stateact.sandbox.osworld import OSWorldSandbox, parse_osworld_spec
from stateact.sandbox.relay_shell import UNDECODABLE_NOTE
from tests.support.osworld_vm_server import VMServer, png_size
from tests.support.vm_guest import VM_KINDS, vm_of_kind

APP_FIXTURES = frozenset({"vm"})


@pytest.fixture(scope="module", params=VM_KINDS)
def vm(request, tmp_path_factory):
    with vm_of_kind(request, tmp_path_factory.mktemp("vm")) as parts:
        yield parts


def _double(vm) -> VMServer:
    """The test double's server (its request log, injected failures); a real server skips the test."""
    if vm[1] is None:
        pytest.skip("needs the test double's internals")
    return vm[1]


@pytest.fixture
def shell(vm, tmp_path):
    sandbox = vm[0]
    shell = sandbox.open_shell(tmp_path)
    try:
        yield shell
    finally:
        shell.close()


def test_spec_parsing():
    assert parse_osworld_spec("osworld://10.0.0.5:5001") == "http://10.0.0.5:5001"
    assert parse_osworld_spec("osworld://vmhost") == "http://vmhost:5000"
    with pytest.raises(SandboxError, match="expected osworld://HOST:PORT"):
        parse_osworld_spec("osworld://host:abc")
    with pytest.raises(SandboxError, match="unknown sandbox"):
        parse_spec("docker://x")


def test_home_is_queried_from_the_vm(vm):
    sandbox = vm[0]
    assert sandbox.home == sandbox.run('printf %s "$HOME"').stdout


def test_one_shot_commands_report_output_and_exit_codes(vm):
    sandbox = vm[0]
    result = sandbox.run("echo out; echo err >&2; exit 3")
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert sandbox.run("pwd").stdout.strip() == sandbox.home
    timed = sandbox.run("sleep 5; echo never", timeout=1)
    assert timed.returncode == 124 and "never" not in timed.stdout


def test_files_round_trip_and_missing_files_raise(vm):
    sandbox = vm[0]
    payload = bytes(range(256)) * 64
    sandbox.write_file("~/deep/new/dir/blob.bin", payload)
    assert sandbox.read_file(f"{sandbox.home}/deep/new/dir/blob.bin") == payload
    assert sandbox.exists("~/deep/new/dir/blob.bin")
    with pytest.raises(FileNotFoundError):
        sandbox.read_file("~/no/such/file")


def test_screenshot_screen_size_and_accessibility(vm):
    sandbox = vm[0]
    png = sandbox.screenshot()
    assert png.startswith(b"\x89PNG") and png_size(png) == sandbox.screen_size()
    tree = ElementTree.fromstring(sandbox.accessibility_tree())  # namespaced attributes parse
    assert tree.tag == "desktop-frame"


def test_gui_actions_run_as_pyautogui_code(vm):
    sandbox = vm[0]
    result = sandbox.run_python(
        "import pyautogui; pyautogui.FAILSAFE = False; pyautogui.moveTo(123, 77); print(*pyautogui.position())"
    )
    assert result.ok, result.stderr
    assert result.stdout.splitlines()[-1].split() == ["123", "77"]


def test_launch_starts_a_process_without_waiting(vm):
    sandbox = vm[0]
    sandbox.run("rm -f ~/launched.txt")  # a real server's home outlives a test run
    sandbox.launch("sleep 0.5; echo launched > ~/launched.txt")
    assert not sandbox.exists("~/launched.txt")
    assert (
        sandbox.run(
            "for i in $(seq 50); do [ -e ~/launched.txt ] && break; sleep 0.1; done; cat ~/launched.txt"
        ).stdout
        == "launched\n"
    )


def test_shell_keeps_cwd_and_env_across_calls(vm, shell):
    first = shell.run("export GREETING=hello; mkdir -p ~/proj && cd ~/proj && echo ready")
    assert (first.output, first.exit_code, first.cwd) == ("ready\n", 0, f"{vm[0].home}/proj")
    second = shell.run("echo $GREETING from $(pwd); false")
    assert second.output == f"hello from {vm[0].home}/proj\n" and second.exit_code == 1


def test_shell_soft_timeout_wait_input_and_interrupt(shell):
    slow = shell.run("sleep 2; echo finished", timeout=0.5)
    assert slow.running and shell.busy
    with pytest.raises(RuntimeError):
        shell.run("echo no")
    assert shell.wait(30).output == "finished\n"
    asked = shell.run("read -r name; echo hi $name", timeout=0.5)
    assert asked.running
    assert shell.send_input("ada\n", timeout=10).output == "hi ada\n"
    stuck = shell.run("trap '' INT QUIT; sleep 60", timeout=0.5)
    assert stuck.running
    stopped = shell.interrupt()
    assert not stopped.running and stopped.note == "interrupted"
    assert shell.run("echo still here").output == "still here\n"


def test_shell_heredoc_and_large_output(shell):
    result = shell.run("cat <<'EOF'\nquotes ' \" $HOME stay\nEOF\nseq 1 50000 | tail -n 1")
    assert result.output == "quotes ' \" $HOME stay\n50000\n"
    big = shell.run("python3 -c 'print(\"y\" * 200000)'")
    assert big.output == "y" * 200000 + "\n"


def test_shell_exit_restarts_in_last_cwd(shell):
    shell.run("cd /tmp")
    died = shell.run("exit 4")
    assert "restarted" in died.note and died.cwd == "/tmp"
    assert shell.run("pwd").output == "/tmp\n"


def test_unreachable_vm_gives_a_clear_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sandbox = OSWorldSandbox(f"http://127.0.0.1:{port}", retries=2, backoff_s=0.05)
    with pytest.raises(SandboxError, match=f"127.0.0.1:{port} is unreachable"):
        sandbox.start()


def test_a_server_error_with_a_body_is_an_answer_not_an_outage(vm):
    sandbox, server = vm[0], _double(vm)
    sandbox.run("mkdir -p ~/folder")
    before = len(server.requests)
    with pytest.raises(IsADirectoryError):
        sandbox.read_file("~/folder")
    assert server.requests[before:].count("POST /file") == 1  # answered once, not retried


def test_reads_are_retried_and_failed_commands_are_not_rerun(vm):
    sandbox, server = vm[0], _double(vm)
    server.fail_next["/screenshot"] = 1
    before = len(server.requests)
    assert sandbox.screenshot().startswith(b"\x89PNG")
    assert server.requests[before:] == ["GET /screenshot", "GET /screenshot"]
    server.fail_next["/execute"] = 1
    before = len(server.requests)
    failed = sandbox.run("echo run >> ~/runs.log")
    assert failed.returncode == 124 and "injected failure" in failed.stderr
    assert server.requests[before:] == ["POST /execute"]
    assert not sandbox.exists("~/runs.log")


def test_a_failed_walk_of_the_desktop_is_asked_again_then_reported(vm):
    sandbox, server = vm[0], _double(vm)
    server.failure_status = 500  # the walk raised: an application left the desktop meanwhile
    try:
        server.fail_next["/terminal"] = 1
        assert sandbox.terminal_output() is None
        server.fail_next["/accessibility"] = sandbox.retries
        with pytest.raises(SandboxError, match="no accessibility tree \\(HTTP 500\\): injected failure"):
            sandbox.accessibility_tree()
    finally:
        server.failure_status = 503
    assert server.requests[-sandbox.retries :] == ["GET /accessibility"] * sandbox.retries


def test_a_shell_command_takes_one_request(vm, shell):
    server = _double(vm)
    before = len(server.requests)
    assert shell.run("echo one; cd /tmp").output == "one\n"
    assert server.requests[before:] == ["POST /execute"]
    long = shell.run("x=" + "a" * 40_000 + "; echo ${#x}")  # too long for one command line: uploaded first
    assert long.output == "40000\n" and long.cwd == "/tmp"


def test_shell_output_past_the_inline_size_and_a_slow_command_in_several_requests(shell):
    assert shell.run("head -c 100000 /dev/zero | tr '\\0' z").output == "z" * 100000
    slow = shell.run("echo begun; sleep 1; echo ended", timeout=0.2)
    assert slow.running and "begun" in slow.output
    assert shell.wait(30).output.strip() == "ended"


def test_shell_undecodable_output_and_background_children(shell):
    odd = shell.run("printf 'a\\377\\376b\\n'")
    assert (odd.output, odd.exit_code, odd.note) == ("a\ufffd\ufffdb\n", 0, UNDECODABLE_NOTE)
    started = shell.run("sleep 30 & echo started", timeout=20)
    assert (started.output, started.exit_code, started.running) == ("started\n", 0, False)
    assert shell.run("kill %1; echo ok").output.endswith("ok\n")


def test_one_shot_undecodable_output_background_children_and_stdin(vm):
    sandbox = vm[0]
    odd = sandbox.run("printf 'a\\377\\376b'; printf '\\377' >&2")
    assert (odd.returncode, odd.stdout) == (0, "a\ufffd\ufffdb")
    assert odd.stderr == f"\ufffd\n[{UNDECODABLE_NOTE}]"
    started = sandbox.run("sleep 30 & echo $!", timeout=20)
    assert started.returncode == 0 and started.stdout.strip().isdigit()
    sandbox.run(f"kill {started.stdout.strip()}")
    assert sandbox.run("cat; echo end", timeout=20).stdout == "end\n"  # stdin is empty, not the server's
