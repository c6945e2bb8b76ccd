"""BashTool against a real bash (pexpect) in a LocalSandbox."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stateact.kernel import settings
from stateact.kernel.tools.base import ToolResult
from stateact.kernel.tools.bash import OUTPUTS_INSIDE, BashTool
from stateact.sandbox import settings as sandbox_settings
from tests.support.tool_calls import invoke
from tests.support.tool_context import run_context


@pytest.fixture
def bash(tmp_path: Path):
    with run_context(tmp_path) as context:
        tool = BashTool(context)
        try:
            yield tool
        finally:
            tool.close()


def status(result: ToolResult) -> str:
    return result.text.rsplit("\n", 1)[-1]


def test_exit_codes_are_reported_not_errors(bash: BashTool) -> None:
    ok = invoke(bash, command="echo hello")
    assert ok.text.startswith("hello\n")
    assert re.fullmatch(r"\[exit 0 · cwd .+/home\]", status(ok))
    failed = invoke(bash, command="echo oops >&2; (exit 7)")
    assert not failed.is_error
    assert failed.text.startswith("oops\n")
    assert status(failed).startswith("[exit 7 · ")


def test_cwd_and_environment_persist(bash: BashTool, tmp_path: Path) -> None:
    (tmp_path / "home" / "sub dir").mkdir()
    invoke(bash, command="cd 'sub dir' && export GREETING=bonjour && greet() { echo \"$GREETING $1\"; }")
    result = invoke(bash, command="pwd; greet world")
    assert result.text.startswith(f"{tmp_path / 'home' / 'sub dir'}\nbonjour world\n")
    assert status(result).endswith(f"cwd {tmp_path / 'home' / 'sub dir'}]")


@pytest.mark.slow
def test_soft_timeout_then_interrupt(bash: BashTool) -> None:
    started = invoke(bash, command="echo begun; sleep 100", timeout=1)
    assert not started.is_error
    assert started.text.startswith("begun\n")
    assert status(started).startswith("[still running after ")
    assert "interrupt=true" in status(started)

    refused = invoke(bash, command="echo other")
    assert refused.is_error
    assert "still running" in refused.text and "interrupt=true" in refused.text

    waited = invoke(bash, timeout=0.5)
    assert status(waited).startswith("[still running after ")

    stopped = invoke(bash, interrupt=True)
    assert status(stopped).startswith("[interrupted · exit 130 · ")
    assert invoke(bash, command="echo alive").text.startswith("alive\n")


def test_interrupt_with_a_new_command(bash: BashTool) -> None:
    invoke(bash, command="sleep 100", timeout=0.5)
    result = invoke(bash, interrupt=True, command="echo next")
    assert result.text.startswith("next\n")
    assert "[the previous command was stopped (exit 130)]" in result.text
    assert status(result).startswith("[exit 0 · ")


@pytest.mark.slow
def test_command_ignoring_sigint_is_stopped_by_escalation(bash: BashTool) -> None:
    invoke(bash, command="trap '' INT; sleep 100", timeout=0.5)
    stopped = invoke(bash, interrupt=True)
    assert not status(stopped).startswith("[still running")
    assert "still running" not in stopped.text
    assert invoke(bash, command="echo recovered").text.startswith("recovered\n")
    invoke(bash, command="sleep 100", timeout=0.5)
    assert status(invoke(bash, interrupt=True)).startswith("[interrupted · exit 130 · ")


def test_read_answered_with_input(bash: BashTool) -> None:
    asked = invoke(bash, command="read -p 'name? ' name; echo \"hi $name\"", timeout=0.5)
    assert asked.text.startswith("name? ")
    assert status(asked).startswith("[still running after ")
    answered = invoke(bash, input="Ada\n")
    assert answered.text.startswith("hi Ada\n")
    assert status(answered).startswith("[exit 0 · ")


@pytest.mark.slow
def test_interactive_python_driven_with_input(bash: BashTool) -> None:
    opened = invoke(bash, command="python3", timeout=1)
    assert ">>>" in opened.text and status(opened).startswith("[still running after ")
    computed = invoke(bash, input="print(6 * 7)\n", timeout=1)
    assert computed.text.startswith("42\n")
    finished = invoke(bash, input="exit()\n")
    assert status(finished).startswith("[exit 0 · ")


@pytest.mark.parametrize("isolation", ["none", "bwrap"])
@pytest.mark.slow
def test_ten_megabytes_of_output_are_truncated_and_saved_where_the_agent_reads_them(
    tmp_path: Path, isolation: str
) -> None:
    with run_context(tmp_path, isolation) as context:
        bash = BashTool(context)
        try:
            result = invoke(bash, command="seq 1 1500000")
            paged = invoke(bash, command="sed -n '1499999,$p' " + _saved_path(result.text))
        finally:
            bash.close()
    assert len(result.text) < settings.BASH_OUTPUT_CAP_CHARS + 500
    assert result.text.startswith("1\n2\n3\n")
    assert "1499999\n1500000\n[exit 0 · " in result.text
    assert paged.text.startswith("1499999\n1500000\n[exit 0 · "), "the agent pages the full output"
    (saved,) = (tmp_path / "run" / "outputs").iterdir()
    if isolation == "none":
        assert _saved_path(result.text) == str(saved)
    else:  # the run folder is hidden inside: the note names the sandbox's copy
        assert _saved_path(result.text) == f"{OUTPUTS_INSIDE}/{saved.name}"
    expected = "\n".join(str(n) for n in range(1, 1_500_001))
    assert saved.read_text() == expected
    head = result.text.split("[... ")[0]
    tail = result.text.split("...]\n", 1)[1].rsplit("\n[exit", 1)[0]
    assert expected.startswith(head) and expected.endswith(tail)


def _saved_path(text: str) -> str:
    match = re.search(r"\[\.\.\. \d+ characters cut from the middle; full output: (\S+) \(page it", text)
    assert match, text[:2000]
    return match.group(1)


def test_binary_output_is_shown_safely(bash: BashTool) -> None:
    result = invoke(bash, command=r"printf 'abc\xff\xfe\x00\x01\x1b[31mred\x1b[0m\n'")
    assert result.text.startswith("abc\ufffd\ufffdred\n")
    assert "not UTF-8 text" in result.text
    assert status(result).startswith("[exit 0 · ")
    assert status(invoke(bash, command="head -c 4000 /dev/urandom; echo")).startswith("[exit 0 · ")


def test_exit_in_a_command_restarts_the_shell(bash: BashTool, tmp_path: Path) -> None:
    invoke(bash, command="mkdir -p kept && cd kept && export LOST=1")
    result = invoke(bash, command="exit 3")
    assert "the shell exited" in result.text and "restarted" in result.text
    assert status(result) == f"[exit 3 · cwd {tmp_path / 'home' / 'kept'}]"
    after = invoke(bash, command="echo ${LOST:-unset}; pwd")
    assert after.text.startswith(f"unset\n{tmp_path / 'home' / 'kept'}\n")


@pytest.mark.slow
def test_restart(bash: BashTool) -> None:
    fresh = invoke(bash, restart=True)
    assert not fresh.is_error and "new shell" in fresh.text
    invoke(bash, command="export KEPT=no")
    restarted = invoke(bash, restart=True)
    assert "restarted" in restarted.text
    assert invoke(bash, command="echo ${KEPT:-unset}").text.startswith("unset\n")
    invoke(bash, command="sleep 100", timeout=0.5)
    assert invoke(bash, restart=True, command="echo clean").text.startswith("clean\n")


@pytest.mark.slow
def test_misuse_gets_clear_errors(bash: BashTool) -> None:
    nothing = invoke(bash)
    assert nothing.is_error and "Nothing is running" in nothing.text
    no_target = invoke(bash, input="hello\n")
    assert no_target.is_error and "Nothing is running" in no_target.text
    assert "nothing was running" in invoke(bash, interrupt=True).text
    invoke(bash, command="cat", timeout=0.5)
    for combined in ({"command": "ls"}, {"interrupt": True}, {"restart": True}):
        refused = invoke(bash, input="x", **combined)
        assert refused.is_error and "on its own" in refused.text
    assert invoke(bash, input="typed\n", timeout=0.5).text.startswith("typed\n")
    invoke(bash, interrupt=True)
    bad = invoke(bash, command="ls", timeout=0)
    assert bad.is_error and "timeout" in bad.text


def test_endless_output_returns_early_with_bounded_memory(bash: BashTool, monkeypatch) -> None:
    monkeypatch.setattr(sandbox_settings, "BASH_COLLECT_CAP_CHARS", 200_000)
    flooding = invoke(bash, command="yes", timeout=600)
    assert "characters cut from the middle" in flooding.text
    assert status(flooding).startswith("[still running after ")
    stopped = invoke(bash, interrupt=True)
    assert status(stopped).startswith("[interrupted · exit 130 · ")


def test_timeout_above_the_maximum_is_lowered(bash: BashTool) -> None:
    result = invoke(bash, command="echo quick", timeout=settings.BASH_MAX_TIMEOUT_S * 10)
    assert not result.is_error
    assert f"[timeout lowered to the maximum, {settings.BASH_MAX_TIMEOUT_S:.0f}s]" in result.text
    assert status(result).startswith("[exit 0 · ")


def test_prompt_changes_do_not_leak_into_output(bash: BashTool) -> None:
    invoke(bash, command="PS1='(venv) $ '; PS2='> '")
    assert invoke(bash, command="echo clean").text.startswith("clean\n")
    assert invoke(bash, command="for n in 1 2\ndo echo $n\ndone").text.startswith("1\n2\n[exit 0")
