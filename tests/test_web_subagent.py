"""The web subagent end to end: scripted policies drive real Chromium on a local site via delegate_web."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from stateact.kernel.events import read_events
from stateact.kernel.loop import AgentLoop, LoopSpec
from stateact.kernel.messages import ToolUseBlock
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.sandbox.base import SandboxError
from stateact.sandbox.isolation import CHECKOUT
from stateact.sandbox.local import LocalSandbox
from stateact.subagents import settings
from stateact.subagents.browser import BrowserSession
from stateact.subagents.dom_markdown import OBSERVATION_MARK
from stateact.subagents.nudge import SUBAGENT_TEXT_REPLY_NUDGE
from stateact.subagents.web import DelegateWebTool
from stateact.subagents.web_tools import BATCH_PAGE_NOTE, web_tools
from tests.support.tool_calls import call, invoker
from tests.support.tool_context import run_context as tool_run_context
from tests.support.web_site import REPORT_CSV, ShopHandler, browser_session, serve_site

pytestmark = pytest.mark.apps


class SlowShopHandler(ShopHandler):
    """The shop, plus /slow.html that answers only after three seconds."""

    def do_GET(self) -> None:
        if self.path == "/slow.html":
            time.sleep(3)
        super().do_GET()


@pytest.fixture(scope="module")
def site():
    with serve_site(SlowShopHandler) as base:
        yield base


@pytest.fixture
def run_context(tmp_path, request, site):
    """A run on a local sandbox without display (isolated as the test's parameter says; default none),
    whose models play `script.json`, on a task that names the shop's site."""
    script = tmp_path / "script.json"
    with tool_run_context(tmp_path, getattr(request, "param", "none"), task=f"Shop at {site}/") as context:
        context.models = RoleModels(main=f"scripted:{script}")
        yield context, script


def requests_text(context: RunContext, role: str) -> list[str]:
    """The text of the latest user message of each request a role's model received."""
    out = []
    for request in context.provider(role).requests:
        last = request.messages[-1]
        out.append("\n".join([last.text(), *(result.text() for result in last.tool_results())]))
    return out


@pytest.mark.parametrize("run_context", ["none", "bwrap"], indirect=True)
def test_main_agent_delegates_a_multi_step_web_subgoal(run_context, site):
    context, script = run_context
    delegate_1 = call(
        "delegate_web",
        subgoal="Sign in to the shop, page through the stock table and list the items out of stock.",
        context=f"Shop: {site}/login.html, user alice, password secret.",
    )
    delegate_2 = call(
        "delegate_web",
        subgoal="On the Tools page choose Express shipping and the colour Blue, save, read the support "
        "code in the help center, and download the stock report.",
    )
    web = [
        {"tool_calls": [call("navigate", url=f"{site}/login.html")]},
        {
            "tool_calls": [
                call("fill", index=1, text="alice"),
                call("fill", index=2, text="secret"),
                call("click", index=4),
            ]
        },
        {"tool_calls": [call("click", index=6)]},
        {"tool_calls": [call("click", index=9)]},
        {
            "tool_calls": [
                call(
                    "done",
                    summary="Signed in and read the three pages of the stock table.",
                    facts=["Out of stock: Bucket (3.20), Easel (45.10), Hammer (9.99)"],
                )
            ]
        },
        # second delegation: same browser, still signed in
        {"tool_calls": [call("navigate", url=f"{site}/widgets.html")]},
        {"tool_calls": [call("select", index=13, option="Express"), call("click", index=14)]},
        {"tool_calls": [call("click", index=19), call("click", index=15)]},
        {"tool_calls": [call("click", index=12)]},
        {"tool_calls": [call("switch_tab", tab=1), call("download", index=16)]},
        {
            "tool_calls": [
                call("done", summary="Preferences saved; report downloaded.", facts=["Support code: HELP-42"])
            ]
        },
    ]
    main = [
        {"tool_calls": [delegate_1]},
        {"tool_calls": [delegate_2]},
        {"text": "All done."},
    ]
    script.write_text(json.dumps({"roles": {"main": main, "web": web}}))
    tool = DelegateWebTool(context)
    loop = AgentLoop(
        LoopSpec(scope="main", tools=[tool], system_prompt="main"),
        model=context.provider("main"),
        log=context.log,
        meter=context.meter,
    )
    try:
        outcome = loop.run("Find the out-of-stock items and fetch the stock report.")
        results = [block.text() for message in loop.messages for block in message.tool_results()]
        seen = requests_text(context, "web")
    finally:
        loop.close_tools()
    assert outcome.status == "replied" and outcome.text == "All done."
    assert not tool.session.started

    first, second = results
    assert first.startswith("Web subagent (web#1): DONE after 5 of 30 steps.")
    assert "- Out of stock: Bucket (3.20), Easel (45.10), Hammer (9.99)" in first
    assert f"Final URL: {site}/table-3.html" in first and "Downloaded files" not in first
    # the facts the script reports were on the pages the model was shown
    for row in ("| Bucket | 3.20 | 0 |", "| Easel | 45.10 | 0 |", "| Hammer | 9.99 | 0 |"):
        assert any(row in text for text in seen[:5])

    report_path = Path(context.sandbox.home) / "Downloads" / "stock-report.csv"
    assert second.startswith("Web subagent (web#2): DONE after 6 of 30 steps.")
    assert "- Support code: HELP-42" in second
    assert f"Final URL: {site}/widgets.html" in second
    assert f"Downloaded files:\n- {report_path}" in second
    assert context.sandbox.read_file(str(report_path)) == REPORT_CSV

    # what the model saw during the second delegation
    assert "The browser now shows:\n=== page: Stock, page 3 of 3" in seen[5]
    assert "*[17]<div> Red\n\n*[18]<div> Green\n\n*[19]<div> Blue" in seen[7]
    assert "A JavaScript alert said 'Preferences saved'; it was accepted." in seen[8]
    assert "Colour: Blue" in seen[8] and 'selected="Express"' in seen[8] and "Saved." in seen[8]
    assert "A new tab opened (tab 2:" in seen[9] and "Support code: HELP-42" in seen[9]
    assert f"Downloaded {site}/report.csv to {report_path}." in seen[10]

    events = list(read_events(context.log.events_path))
    reports = [e for e in events if e.kind == "web_report"]
    assert [(e.scope, e.status) for e in reports] == [("web#1", "DONE"), ("web#2", "DONE")]
    assert {e.scope for e in events if e.kind == "tool_call"} == {"main", "web#1", "web#2"}
    assert context.meter.by_role["web"].turns == 11


def test_wrong_password_fails_truthfully_and_budget_gives_incomplete(run_context, site):
    context, script = run_context
    web = [
        {"tool_calls": [call("navigate", url=f"{site}/login.html")]},
        {
            "tool_calls": [
                call("fill", index=1, text="alice"),
                call("fill", index=2, text="wrong", press_enter=True),
            ]
        },
        {"tool_calls": [call("fail", reason="The shop refused the password.", facts=[])]},
        {"tool_calls": [call("navigate", url=f"{site}/table-1.html")]},
        {"tool_calls": [call("navigate", url=f"{site}/help.html")]},
        {
            "text": "The tools page has the shipping select.",
            "tool_calls": [call("navigate", url=f"{site}/widgets.html")],
        },
    ]
    script.write_text(json.dumps({"roles": {"web": web}}))
    tool = DelegateWebTool(context, max_steps=3)
    try:
        failed = tool.invoke(ToolUseBlock(id="a", name="delegate_web", input={"subgoal": "sign in"}))
        stopped = tool.invoke(ToolUseBlock(id="b", name="delegate_web", input={"subgoal": "read the table"}))
        seen = requests_text(context, "web")
    finally:
        tool.close()
    assert "Wrong user name or password." in seen[2]
    assert failed.text == (
        f"Web subagent (web#1): FAIL after 3 of 3 steps.\nThe shop refused the password.\n"
        f"Final URL: {site}/login.html?error=1"
    )
    assert not failed.is_error
    assert f"Opened {site}/login.html." in seen[4]  # not signed in: the table redirects to the login page
    assert stopped.text.startswith("Web subagent (web#2): INCOMPLETE after 3 of 3 steps.\n")
    assert "ran out of budget: turn budget spent (3 of 3)" in stopped.text
    assert f"Final URL: {site}/widgets.html" in stopped.text
    assert "Its last note: The tools page has the shipping select." in stopped.text


def test_bad_calls_and_timeouts_are_error_results_with_a_fresh_page(tmp_path, site, monkeypatch):
    monkeypatch.setattr(settings, "WEB_NAVIGATION_TIMEOUT_MS", 1_000)
    monkeypatch.setattr(settings, "WEB_ACTION_TIMEOUT_MS", 1_000)
    with browser_session(tmp_path) as session:
        act = invoker(web_tools(session))

        act("navigate", url=f"{site}/widgets.html")
        slow = act("navigate", url=f"{site}/slow.html")
        assert slow.is_error and "did not finish loading within 1 s" in slow.text
        assert "=== page:" in slow.text

        act("navigate", url=f"{site}/widgets.html")
        stale = act("click", index=1)
        assert stale.is_error and "[1] is no longer on this page" in stale.text
        assert "[6] [Open the help center](/help.html)" in stale.text

        not_select = act("select", index=8, option="Blue")
        assert not_select.is_error and "is a <div>, not a <select>" in not_select.text
        bad_option = act("select", index=7, option="Overnight")
        assert bad_option.is_error and 'Its options: "Standard", "Express", "Pick-up"' in bad_option.text
        missing = act("click")
        assert missing.is_error and "index: Field required" in missing.text
        no_download = act("download", index=7)
        assert no_download.is_error and "started no download" in no_download.text
        script_error = act("run_js", script="() => { throw new Error('boom') }")
        assert script_error.is_error and "boom" in script_error.text
        data = act(
            "run_js", script="() => [...document.querySelectorAll('h1, p')].map(e => e.innerText).slice(0, 2)"
        )
        assert data.text == 'Result: ["Tools", "Open the help center"]'
        unreachable = act("navigate", url="http://127.0.0.1:9/")
        assert unreachable.is_error and "Could not open http://127.0.0.1:9/" in unreachable.text

        second_tab = act("navigate", url=f"{site}/help.html", new_tab=True)
        assert "Tabs: tab 1: 127.0.0.1 · tab 2 (active): Help center" in second_tab.text
        act("navigate", url=f"{site}/widgets.html")
        assert act("back").text.startswith(f"Went back to {site}/help.html.")
        assert act("forward").text.startswith(f"Went forward to {site}/widgets.html.")
        assert act("forward").text.startswith("There is no page to go to in that direction")
        assert act("reload").text.startswith(f"Reloaded {site}/widgets.html.")
        act("back")
        act("switch_tab", tab=1)
        closed = act("close_tab", tab=1)
        assert not closed.is_error and "=== page: Help center" in closed.text
        assert act("switch_tab", tab=1).text.startswith(
            "There is no tab 1. Open tabs: tab 2 (active): Help center"
        )
        assert act("list_tabs").text == f"tab 2 (active): Help center — {site}/help.html"
        session.page.set_content(
            "<style>.items{display:none} .menu{cursor:pointer} .menu:hover .items{display:block}</style>"
            "<div class=menu>Account<div class=items><a href='#profile'>Profile</a></div></div>"
        )
        menu = int(re.search(r"\[(\d+)\]<div> Account", session.observe()).group(1))
        hovered = act("hover", index=menu)
        assert f"*[{menu + 1}] [Profile](#profile)" in hovered.text
        session.page.set_content("<a href='/x' target=_blank onclick='event.preventDefault()'>Blocked</a>")
        blocked = int(re.search(r"\[(\d+)\] \[Blocked\]", session.observe()).group(1))
        assert act("click", index=blocked).text.startswith(
            f"Clicked [{blocked}]; the link did not open a new tab."
        )
        session.page.set_content(
            "<button>Buy</button><div style='position:fixed;inset:0'>Cookies? <button>Accept</button></div>"
        )
        session.observe()
        covered = act("click", index=menu + 3)
        assert covered.is_error and "intercepts pointer events" in covered.text
        assert (
            "Another element covers it" in covered.text
            and f"Cookies? [{menu + 4}]<button> Accept" in covered.text
        )
        session.page.set_content(
            "<button onclick=\"document.title = confirm('Delete?') + ':' + prompt('Name?', 'Ann')\">Go</button>"
        )
        asked = act("click", index=int(re.search(r"\[(\d+)\]<button> Go", session.observe()).group(1)))
        assert "A JavaScript confirm said 'Delete?'; it was accepted." in asked.text
        assert "A JavaScript prompt said 'Name?'; it was accepted with 'Ann'." in asked.text
        assert "=== page: true:Ann —" in asked.text
        shot = act("screenshot")
        assert shot.images and shot.images[0].startswith(b"\x89PNG")


def test_download_by_url_and_upload_through_the_sandbox(tmp_path, site):
    upload_page = """<form><input type=file id=f name=attachment>
        <button type=button id=pick onclick="document.getElementById('g').click()">Choose file</button>
        <input type=file id=g style="display:none"></form>
        <p id=out></p>
        <script>for (const id of ['f', 'g']) document.getElementById(id).addEventListener('change', e =>
          document.getElementById('out').textContent += e.target.files[0].name + ':' + e.target.files[0].size + ' ')</script>"""
    with browser_session(tmp_path / "home") as session:
        act = invoker(web_tools(session))

        first = act("download", url=f"{site}/report.csv")
        assert "(text/html) to" in first.text  # not signed in: the shop sends its login page
        act("navigate", url=f"{site}/login.html")
        act("fill", index=1, text="alice")
        act("fill", index=2, text="secret", press_enter=True)
        second = act("download", url=f"{site}/report.csv")
        target = tmp_path / "home" / "Downloads" / "stock-report.csv"
        assert f"Downloaded {site}/report.csv (text/csv) to {target}." in second.text
        assert target.read_bytes() == REPORT_CSV
        again = act("navigate", url=f"{site}/report.csv")
        assert not again.is_error and "is a file: it was downloaded instead of shown" in again.text
        assert f"Downloaded {site}/report.csv to {target.with_name('stock-report (1).csv')}." in again.text
        assert session.downloads == [
            str(tmp_path / "home" / "Downloads" / "login.html"),
            str(target),
            str(tmp_path / "home" / "Downloads" / "stock-report (1).csv"),
        ]

        (tmp_path / "home" / "notes.txt").write_text("hello")
        session.page.set_content(upload_page)
        listed = session.observe()
        file_input = int(re.search(r"\[(\d+)\]<input type=file", listed).group(1))
        button = int(re.search(r"\[(\d+)\]<button> Choose file", listed).group(1))
        direct = act("upload", index=file_input, paths=["notes.txt"])
        assert 'files="notes.txt"' in direct.text
        chooser = act("upload", index=button, paths=[str(tmp_path / "home" / "notes.txt")])
        assert "notes.txt:5 notes.txt:5" in chooser.text
        missing = act("upload", index=file_input, paths=["nope.txt"])
        assert missing.is_error and "Cannot read nope.txt" in missing.text


def test_attaches_over_cdp_and_leaves_the_browser_running(tmp_path, site):
    browser = subprocess.Popen(
        [
            settings.WEB_CHROMIUM_PATH,
            "--headless",
            "--remote-debugging-port=0",
            f"--user-data-dir={tmp_path / 'profile'}",
            *settings.WEB_CHROMIUM_ARGS,
            "about:blank",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        endpoint = ""
        while not endpoint:
            line = browser.stderr.readline()
            assert line, "chromium exited before it listened"
            if match := re.search(r"DevTools listening on (ws://\S+)", line):
                endpoint = match.group(1)
        with browser_session(tmp_path / "home", cdp_url=endpoint) as session:
            session.page.goto(f"{site}/help.html")
            assert "Support code: HELP-42" in session.observe()
        assert browser.poll() is None  # disconnected, not closed
    finally:
        browser.kill()
        browser.wait()


def test_in_an_isolated_sandbox_the_browser_runs_inside_and_downloads_land_in_its_home(tmp_path, site):
    with browser_session(tmp_path / "home", isolation="bwrap", sites=[site]) as session:
        act = invoker(web_tools(session))

        assert "chromium" in session.sandbox.run("ps -e -o comm=").stdout.split()
        act("navigate", url=f"{site}/login.html")
        act("fill", index=1, text="alice")
        act("fill", index=2, text="secret", press_enter=True)
        shown = act("navigate", url=f"{site}/report.csv")  # the browser itself downloads it
        assert "Downloaded" in shown.text and "to /home/user/Downloads/stock-report.csv." in shown.text
        fetched = act("download", url=f"{site}/report.csv")
        assert "to /home/user/Downloads/stock-report (1).csv." in fetched.text
        downloads = tmp_path / "home" / "Downloads"
        assert sorted(p.name for p in downloads.iterdir()) == ["stock-report (1).csv", "stock-report.csv"]
        assert (downloads / "stock-report.csv").read_bytes() == REPORT_CSV

        (tmp_path / "home" / "notes.txt").write_text("seen from inside")
        assert "seen from inside" in act("navigate", url="file:///home/user/notes.txt").text
        checkout = act("navigate", url=f"file://{CHECKOUT}/README.md")
        assert checkout.is_error and "ERR_FILE_NOT_FOUND" in checkout.text
        session.close()
        assert not [name for name in session.sandbox.run("ps -e -o comm=").stdout.split() if "chrom" in name]


def test_a_browser_that_cannot_start_in_the_sandbox_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "WEB_CHROMIUM_PATH", "/bin/ls")  # rejects Chromium's options
    with LocalSandbox(tmp_path / "home", isolation="bwrap") as sandbox:
        session = BrowserSession(sandbox)
        with pytest.raises(
            SandboxError, match="exited with code 2 before it listened: .*unrecognized option"
        ):
            session.start()
        assert not session.started
        assert sandbox.run("ls -A /tmp").stdout == ""  # no profile or log left behind


@pytest.mark.parametrize("isolation", ["none", "bwrap"])
def test_a_browser_that_went_away_is_started_again(tmp_path, site, isolation):
    with browser_session(tmp_path, isolation=isolation, sites=[site]) as session:
        navigate = next(tool for tool in web_tools(session) if tool.name == "navigate")
        session.page.goto(f"{site}/help.html")
        session._browser.close()  # the browser dies between two actions
        result = navigate.invoke(ToolUseBlock(id="x", name="navigate", input={"url": f"{site}/widgets.html"}))
        assert not result.is_error
        assert "The browser had gone away; a new one was started" in result.text
        assert "=== page: Tools" in result.text
        if isolation == "bwrap":  # the first Chromium, only disconnected, was ended
            processes = session.sandbox.run("ps -eo args=").stdout.splitlines()
            browsers = [p for p in processes if "--remote-debugging-port" in p and "--type=" not in p]
            assert len(browsers) == 1, processes


def test_text_replies_are_reminded_and_a_failed_model_call_is_an_error(run_context, site):
    context, script = run_context
    web = [
        {"text": "I will open the help page next."},
        {"tool_calls": [call("navigate", url=f"{site}/help.html")]},
        {"tool_calls": [call("done", summary="Opened the help page.", facts=[])]},
    ]
    script.write_text(json.dumps({"roles": {"web": web}}))
    tool = DelegateWebTool(context)
    try:
        done = tool.invoke(ToolUseBlock(id="a", name="delegate_web", input={"subgoal": "open help"}))
        failed = tool.invoke(ToolUseBlock(id="b", name="delegate_web", input={"subgoal": "anything"}))
        seen = requests_text(context, "web")
    finally:
        tool.close()
    assert done.text.startswith("Web subagent (web#1): DONE after") and not done.is_error
    assert seen[1].startswith(SUBAGENT_TEXT_REPLY_NUDGE)
    assert failed.is_error and failed.text.startswith("Web subagent (web#2): ERROR after")
    assert "model call failed: script exhausted" in failed.text


def test_a_batch_of_fills_and_a_click_returns_one_page_state_after_its_last_action(run_context, site):
    context, script = run_context
    web = [
        {"tool_calls": [call("navigate", url=f"{site}/login.html")]},
        {
            "tool_calls": [
                call("fill", index=1, text="alice"),
                call("fill", index=2, text="secret"),
                call("click", index=4),
            ]
        },
        {"tool_calls": [call("done", summary="Signed in.", facts=[])]},
    ]
    script.write_text(json.dumps({"roles": {"web": web}}))
    tool = DelegateWebTool(context)
    try:
        result = tool.run(tool.Input(subgoal="Sign in to the shop.", context=f"{site}/login.html"))
    finally:
        tool.close()
    assert "DONE" in result.text
    batch = context.provider("web").requests[2].messages[-1].tool_results()
    pages = [OBSERVATION_MARK in block.text() for block in batch]
    assert pages == [False, False, True]
    assert all(BATCH_PAGE_NOTE in block.text() for block in batch[:2])
