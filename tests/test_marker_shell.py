"""The shells' shared parts: the prompt marker, and one contract from the pexpect and the relay shell."""

import pytest

from stateact.sandbox.bash_session import BashSession
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.marker_shell import PromptMarker
from stateact.sandbox.relay_shell import RelayShell


def test_marker_split_across_reads_is_not_returned_as_output():
    marker = PromptMarker()
    marker.feed("line one\r\n" + marker.marker[:5])
    assert marker.finished() is None
    assert marker.partial() == "line one\n"
    marker.feed(marker.marker[5:] + "7__/srv/data__END\r\nnext")
    done = marker.finished()
    assert (done.output, done.exit_code, done.cwd) == ("", 7, "/srv/data")
    assert marker.drain() == "next"


def test_text_that_only_looks_like_a_marker_is_output():
    marker = PromptMarker()
    marker.feed("__SA_not_ours__0__/__END\n__S")
    assert marker.finished() is None
    assert marker.partial() == "__SA_not_ours__0__/__END"  # "\n__S" may start a marker
    assert marker.drain() == "\n__S"
    assert "PROMPT_COMMAND=" in marker.prompt_command and marker.marker in marker.prompt_command


def test_marker_found_after_much_output_fed_in_pieces_on_either_newline_style():
    marker = PromptMarker()
    for _ in range(1000):
        marker.feed("x" * 99 + "\n")
        assert marker.finished() is None
    marker.feed("last\r\n" + marker.marker[:9])
    assert marker.finished() is None
    marker.feed(marker.marker[9:] + "0__/tmp__END\r\n")
    done = marker.finished()
    assert (done.output, done.exit_code, done.cwd) == (("x" * 99 + "\n") * 1000 + "last", 0, "/tmp")
    assert marker.pending == "" and "PS1= PS2=" in marker.prompt_command


@pytest.fixture(params=["pexpect", "relay"])
def shell(request, tmp_path):
    """The same contract from both persistent shells: BashSession and RelayShell (over a LocalSandbox)."""
    sandbox = LocalSandbox(tmp_path / "home")
    sandbox.start()
    try:
        if request.param == "pexpect":
            shell = BashSession(tmp_path / "scratch", cwd=sandbox.home, env=sandbox.env)
        else:
            shell = RelayShell(sandbox, cwd=sandbox.home)
        try:
            yield shell
        finally:
            shell.close()
    finally:
        sandbox.close()


def test_both_shells_keep_state_and_report_exit_codes(shell):
    first = shell.run("export ANSWER=42; mkdir -p sub && cd sub")
    assert first.exit_code == 0 and first.cwd.endswith("/home/sub")
    second = shell.run("echo $ANSWER; (exit 5)")
    assert (second.output, second.exit_code) == ("42\n", 5)


@pytest.mark.slow
def test_both_shells_time_out_softly_take_input_and_interrupt(shell):
    assert shell.run("sleep 1; echo late", timeout=0.2).running and shell.busy
    assert shell.wait(30).output == "late\n" and not shell.busy
    assert shell.run("read -r word; echo got $word", timeout=0.2).running
    assert shell.send_input("it\n", timeout=10).output == "got it\n"
    assert shell.run("trap '' INT QUIT; sleep 60", timeout=0.2).running
    assert shell.interrupt().note == "interrupted"
    assert shell.run("sleep 60", timeout=0.2).running  # the trap died with its command
    assert shell.interrupt().exit_code in (130, 131)  # Ctrl-C; Ctrl-\\ when a busy machine is slow to answer
    died = shell.run("exit 1")
    assert died.note.startswith("the shell exited") and shell.run("echo up").output == "up\n"


def test_sigpipe_is_default_in_shell_commands(shell):
    """`yes | head -1` ends quietly: `yes` dies of SIGPIPE (141) instead of failing on a write."""
    assert shell.run("yes | head -1; echo ${PIPESTATUS[@]}").output == "y\n141 0\n"
