"""Which commands plan evidence may run, judged by their effect, through the plan tool's claim path."""

from __future__ import annotations

import pytest

from stateact.gate.review.guard import check_command
from stateact.kernel.evidence import EvidenceChecker
from stateact.kernel.messages import ToolUseBlock
from stateact.kernel.tools.plan import Plan, PlanTool
from tests.support.file_server import served_files
from tests.support.tool_context import run_context

PAGE = b"<html><body>Q3 revenue: 4,210</body></html>"

READ_ONLY = [
    "wmctrl -l",
    "wmctrl -lpG",
    "wmctrl -d",
    "wmctrl -m",
    "xdotool getactivewindow getwindowname",
    "xdotool search --name Calc",
    "xdotool getmouselocation",
    "cat ~/notes.txt",
    "grep -c total ~/notes.txt",
    "ls ~",
    "python3 -c \"import urllib.request as u; print(u.urlopen('{url}').read().decode())\"",
]
"""Commands that only print: run as evidence."""

READ_ONLY_CURL = ["curl -s {url}", "curl -sS {url} | grep revenue"]
"""The gate guard's curl rule (GET to stdout is a read) is changed on another branch; until then refused."""

CHANGING = [
    ("wmctrl -c Calc", "`wmctrl`"),
    ("wmctrl -a Calc", "`wmctrl`"),
    ("wmctrl -r :ACTIVE: -e 0,0,0,800,600", "`wmctrl`"),
    ("wmctrl -i -c 0x01", "`wmctrl`"),
    ("wmctrl -lc Calc", "`wmctrl`"),
    ("xdotool key ctrl+s", "`xdotool key`"),
    ("xdotool type hello", "`xdotool type`"),
    ("xdotool search --name Calc windowactivate", "`xdotool windowactivate`"),
    ("xdotool script.xdo", "`xdotool script.xdo`"),
    ("curl -o ~/page.html {url}", "curl"),
    ("curl -O {url}", "curl"),
    ("curl -d a=1 {url}", "curl"),
    ("curl -X POST {url}", "curl"),
    ("curl -T ~/notes.txt {url}", "curl"),
    ("wget {url}", "wget"),
    ("curl -s {url} > ~/page.html", "write"),
    ("echo done > ~/flag", "redirection"),
    ("rm ~/notes.txt", "`rm`"),
    ("sed -i s/total/sum/ ~/notes.txt", "sed -i"),
    ("python3 -c \"open('/tmp/x', 'w').write('1')\"", "writes"),
]
"""Commands that write files, send data or change windows: refused with their effect."""


@pytest.fixture
def setup(tmp_path):
    with run_context(tmp_path) as ctx, served_files({"/q3": PAGE}) as server:
        (ctx.sandbox.resolve("~/notes.txt")).write_text("total: 4210\n")
        tool = PlanTool(ctx, Plan(), EvidenceChecker(ctx.sandbox, command_guard=check_command))
        tool.invoke(ToolUseBlock(id="s", name="plan", input={"action": "set", "items": ["check"]}))
        yield ctx, tool, server


def claim(tool: PlanTool, command: str) -> str:
    evidence = [{"kind": "command_output", "command": command, "expect": "4"}]
    result = tool.invoke(
        ToolUseBlock(
            id="c", name="plan", input={"action": "claim", "claims": [{"id": 1, "evidence": evidence}]}
        )
    )
    assert not result.is_error, result.text
    return result.text.splitlines()[0]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_commands_run_as_evidence(setup, command):
    _, tool, server = setup
    line = claim(tool, command.format(url=server.url("/q3")))
    assert "was not run" not in line and ("printed" in line or "did not print" in line), line


def test_a_read_only_command_verifies_the_claim(setup):
    _, tool, server = setup
    line = claim(
        tool,
        f"python3 -c \"import urllib.request as u; print(u.urlopen('{server.url('/q3')}').read().decode())\"",
    )
    assert line.startswith("1: verified") and server.requests["/q3"] == 1
    assert "verified by probe" in tool.plan.render()


@pytest.mark.parametrize("command", READ_ONLY_CURL)
def test_curl_printing_a_page_runs_as_evidence(setup, command):
    _, tool, server = setup
    line = claim(tool, command.format(url=server.url("/q3")))
    assert "was not run" not in line and server.requests["/q3"] == 1, line


@pytest.mark.parametrize(("command", "effect"), CHANGING)
def test_changing_commands_are_refused_by_effect_with_advice(setup, command, effect):
    ctx, tool, server = setup
    line = claim(tool, command.format(url=server.url("/q3")))
    assert "was not run" in line and effect in line, line
    assert "Use a command that only prints" in line and "file_contains" in line
    assert "gate" not in line.lower() and "probe" not in line.lower()
    assert tool.plan.get(1).status == "in_progress" and not tool.plan.get(1).verified_by
    assert ctx.sandbox.resolve("~/notes.txt").read_text() == "total: 4210\n"
    assert not ctx.sandbox.exists("~/page.html") and not ctx.sandbox.exists("~/flag")
    assert server.requests["/q3"] == 0
