"""The GUI subagent and the pixel harness on a real Xvfb display, driving a Tk test app and LibreOffice Calc.

The vision policy is scripted: its coordinates come from the app's own layout
report, expressed in the scaled screenshot's space (the display is 1920x1080,
shown to the model at 1366x768). Outcomes are checked in the app's state file
and in the saved workbook.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import time
from pathlib import Path

import openpyxl
import pytest

from stateact.app.variants import get_variant
from stateact.kernel.context.cache_prefix import prefix_breaks
from stateact.kernel.events import read_events
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec
from stateact.kernel.meter import Meter
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.sandbox.local import LocalSandbox
from stateact.subagents.endings import SubagentClaim
from stateact.subagents.gui import DelegateGuiTool, DelegateInput, run_gui_subgoal
from stateact.subagents.gui_actions import ComputerAction
from stateact.subagents.gui_tools import ComputerTool
from stateact.subagents.nudge import SUBAGENT_TEXT_REPLY_NUDGE
from stateact.subagents.pixel import build_pixel_loop
from stateact.subagents.scaler import Scaler
from stateact.subagents.screen import Screen
from stateact.subagents.settings import (
    GUI_KEEP_SCREENSHOTS,
    GUI_SCREENSHOT_STRIP_CHUNK,
    SUBAGENT_TEXT_REPLY_NUDGES,
)

pytestmark = pytest.mark.apps

TK_APP = Path(__file__).parent / "apps" / "tk_app.py"
WAIT_S = 60.0


def wait_for(predicate, what: str, timeout: float = WAIT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


def started_sandbox(home: Path, size: tuple[int, int]) -> LocalSandbox:
    sandbox = LocalSandbox(home, display=True, size=size)
    sandbox.start()
    return sandbox


@pytest.fixture(scope="module")
def desktop(tmp_path_factory):
    sandbox = started_sandbox(tmp_path_factory.mktemp("home"), (1920, 1080))
    try:
        yield sandbox
    finally:
        sandbox.close()


class TkApp:
    """The running test app: its state file and its layout in the model's coordinates."""

    def __init__(self, sandbox: LocalSandbox, state_path: Path) -> None:
        self.sandbox = sandbox
        self.state_path = state_path
        self.scaler = Scaler.for_screen(sandbox.screen_size())

    def state(self) -> dict:
        try:
            return json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return {}

    def settled(self) -> bool:
        """The dialog is up and the layout stayed the same for a second (the window manager has placed
        the windows)."""
        first = self.state().get("layout", {})
        time.sleep(1.0)
        return "dialog_ok" in first and self.state().get("layout") == first

    def wait(self, key: str) -> dict:
        """The state once `key` is set, e.g. after the last event of a run reached the app."""
        try:
            wait_for(lambda: self.state().get(key), f"{key!r} in the app state", 20)
        except AssertionError as exc:
            raise AssertionError(f"{exc}; state: {self.state()}") from None
        return self.state()

    def at(self, name: str, dx: int = 0, dy: int = 0) -> list[int]:
        """Where the model should point for a widget: its centre in screenshot pixels."""
        x, y = self.state()["layout"][name]
        return list(self.scaler.to_model(x + dx, y + dy))


@pytest.fixture
def tk_app(desktop, tmp_path):
    state_path = tmp_path / "state.json"
    desktop.launch(f"{shlex.quote(sys.executable)} {shlex.quote(str(TK_APP))} {shlex.quote(str(state_path))}")
    app = TkApp(desktop, state_path)
    try:
        wait_for(app.settled, "the test app and its dialog to settle")
        yield app
    finally:
        pid = app.state().get("pid")
        if pid:
            os.kill(pid, signal.SIGTERM)
            wait_for(lambda: exited(pid), "the test app to exit", 10)


def exited(pid: int) -> bool:
    """Gone, or a zombie waiting for the sandbox to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def make_context(tmp_path: Path, sandbox: LocalSandbox, roles: dict[str, list[dict]]) -> RunContext:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"roles": roles}), encoding="utf-8")
    run_dir = tmp_path / "run"
    spec = f"scripted:{script}"
    return RunContext(
        run_dir=run_dir,
        task="test",
        sandbox=sandbox,
        log=RunLog(run_dir),
        meter=Meter(),
        models=RoleModels(main=spec, gui=spec),
    )


def act(*actions: dict) -> dict:
    """One scripted turn calling `computer` once per action."""
    return {"tool_calls": [{"name": "computer", "input": a} for a in actions]}


def done(summary: str = "seen on screen") -> dict:
    return {"tool_calls": [{"name": "done", "input": {"summary": summary}}]}


def tool_results(context: RunContext, scope: str) -> list[dict]:
    return [e for e in read_events(context.log.events_path) if e.kind == "tool_result" and e.scope == scope]


def test_main_agent_delegates_clicks_typing_drag_and_modal(tk_app, tmp_path):
    app = tk_app
    text = "Hello, Grüße 東京! if a<b and c>d: {x|y}"
    gui_turns = [
        act({"action": "left_click", "coordinate": app.at("dialog_ok")}),
        act({"action": "left_click", "coordinate": app.at("entry")}, {"action": "type", "text": text}),
        act(
            {"action": "left_click", "coordinate": app.at("add")},
            {"action": "left_click", "coordinate": app.at("add")},
        ),
        act(
            {"action": "left_click_drag", "start_coordinate": app.at("item"), "coordinate": app.at("target")}
        ),
        act({"action": "zoom", "region": [0, 0, 400, 300]}),
        done("dialog closed, text typed, item in the green box"),
    ]
    main_turns = [
        {
            "tool_calls": [
                {
                    "name": "delegate_gui",
                    "input": {
                        "subgoal": "Close the welcome dialog, type the text, add two, drag the item",
                        "context": f"Text: {text}",
                    },
                }
            ]
        },
        {"text": "The GUI work is done."},
    ]
    context = make_context(tmp_path, app.sandbox, {"main": main_turns, "gui": gui_turns})
    main = AgentLoop(
        LoopSpec(scope="main", tools=[DelegateGuiTool(context)], system_prompt="test"),
        model=context.provider("main"),
        log=context.log,
        meter=context.meter,
    )
    outcome = main.run("Do the GUI part.")
    print(main.messages[2].text(), [r.text() for r in main.messages[2].tool_results()])
    assert outcome.status == "replied"

    state = app.wait("in_target")
    assert state["dialog_open"] is False
    assert state["text"] == text
    assert state["clicks"] == 2
    assert state["in_target"] is True

    report = main.messages[2].tool_results()[0].text()
    assert report.splitlines()[0] == "GUI subagent gui#1: DONE"
    assert "Steps used: 6 of 25" in report
    assert "Final screenshot" not in report  # a harness path the main agent could not open
    (event,) = [e for e in read_events(context.log.events_path) if e.kind == "gui_report"]
    screenshot = Path(event.screenshot)
    assert screenshot.is_file() and screenshot.parent == context.run_dir / "images"

    gui_requests = context.provider("gui").requests
    assert "Close the welcome dialog" in gui_requests[0].messages[0].text()
    assert "Screenshot size: 1366x768" in gui_requests[0].messages[0].text()
    # older screenshots leave a chunk at a time: between `keep` and `keep + chunk - 1` stay
    shots = 1 + sum(e.images for e in tool_results(context, "gui#1"))
    kept = GUI_KEEP_SCREENSHOTS + (shots - GUI_KEEP_SCREENSHOTS) % GUI_SCREENSHOT_STRIP_CHUNK
    limit = GUI_KEEP_SCREENSHOTS + GUI_SCREENSHOT_STRIP_CHUNK
    assert all(sum(len(m.images()) for m in r.messages) < limit for r in gui_requests)
    assert shots > GUI_KEEP_SCREENSHOTS and sum(len(m.images()) for m in gui_requests[-1].messages) == kept
    assert [e.is_error for e in tool_results(context, "gui#1")] == [False] * 8
    assert context.meter.by_role["gui"].turns == 6


def test_typed_text_reaches_a_terminal_whole(desktop):
    """`<` and non-ASCII characters reach a terminal, where Ctrl+V pastes nothing (bash reads it as
    literal-next): a model typing a heredoc into xterm lost every `<`."""
    text = "cat > f <<'EOF' if a<b: «Grüße» 東京 €"
    desktop.launch("xterm -name TypeProbe -e sh -c 'cat > ~/typed.txt'")
    wait_for(lambda: desktop.run("xdotool search --classname TypeProbe").stdout.strip(), "the terminal")
    desktop.run("xdotool search --classname TypeProbe windowactivate --sync")
    wait_for(lambda: desktop.exists("~/typed.txt"), "cat to open its file")
    computer = ComputerTool(Screen(desktop))
    for action in ({"action": "type", "text": text + "\n"}, {"action": "key", "text": "ctrl+d"}):
        assert not computer.run(ComputerAction(**action)).is_error
    typed = desktop.resolve("~/typed.txt")
    wait_for(lambda: typed.read_text(encoding="utf-8").endswith("\n"), "the typed line")
    assert typed.read_text(encoding="utf-8") == text + "\n"


def test_click_variants_modifiers_and_scroll(tk_app, tmp_path):
    app = tk_app
    pad = app.at("pad")
    gui_turns = [
        act({"action": "key", "text": "Return"}),  # the dialog's OK button has the focus
        act({"action": "left_click", "coordinate": pad, "text": "shift"}),
        act({"action": "double_click", "coordinate": pad}),
        act({"action": "triple_click", "coordinate": pad}),
        act({"action": "right_click", "coordinate": pad}, {"action": "middle_click", "coordinate": pad}),
        act({"action": "mouse_move", "coordinate": app.at("list")}),
        act(
            {"action": "scroll", "coordinate": app.at("list"), "scroll_direction": "down", "scroll_amount": 5}
        ),
        act({"action": "left_mouse_down", "coordinate": app.at("item")}),
        act({"action": "mouse_move", "coordinate": app.at("item", dx=100)}),
        act({"action": "mouse_move", "coordinate": app.at("target")}, {"action": "left_mouse_up"}),
        done(),
    ]
    context = make_context(tmp_path, app.sandbox, {"gui": gui_turns})
    report = run_gui_subgoal(context, "exercise the pad", scope="gui#7")
    print(report.text())  # shown if the test fails: the final screenshot helps
    assert report.status == "DONE" and report.steps == 11
    state = app.wait("list_top")
    assert state["dialog_open"] is False
    assert state["pad_events"] == [
        "shift+click",
        "click",
        "double",
        "click",
        "double",
        "triple",
        "right",
        "middle",
    ]
    assert state["list_top"] >= 5
    assert app.wait("in_target")["in_target"] is True


def test_bad_actions_are_error_results_and_the_loop_goes_on(desktop, tmp_path):
    refused = {"is_error": True}
    gui_turns = [
        act({"action": "left_click", "coordinate": [1366, 10]}),
        {"expect": refused, **act({"action": "key", "text": "Hyper_Q"})},
        {"expect": refused, **act({"action": "mouse_move"})},
        {"expect": refused, **act({"action": "zoom", "region": [10, 10, 12, 12]})},
        {"expect": refused, "tool_calls": [{"name": "fail", "input": {"reason": "nothing to click"}}]},
    ]
    context = make_context(tmp_path, desktop, {"gui": gui_turns})
    report = run_gui_subgoal(context, "click outside", scope="gui#1")
    assert report.status == "FAIL" and report.detail == "nothing to click"
    results = tool_results(context, "gui#1")
    assert [r.is_error for r in results] == [True, True, True, True, False]
    assert "outside the screenshot, which is 1366x768" in results[0].text
    assert "unknown key 'Hyper_Q'" in results[1].text
    assert "`mouse_move` needs `coordinate`" in results[2].text
    assert "at least 8 pixels" in results[3].text


def test_spent_budget_reports_incomplete_with_what_was_verified(desktop, tmp_path):
    gui_turns = [
        act({"action": "screenshot"}),
        act({"action": "wait", "duration": 0.2}),
        {
            "tool_calls": [
                {"name": "computer", "input": {"action": "left_click", "coordinate": [5, 5]}},
                {
                    "name": "report_progress",
                    "input": {"verified": "the desktop is empty", "remaining": "open the app"},
                },
            ]
        },
    ]
    context = make_context(tmp_path, desktop, {"gui": gui_turns})
    report = run_gui_subgoal(context, "open the app", scope="gui#3", budget=2)
    assert report.status == "INCOMPLETE"
    assert report.detail == "the desktop is empty" and report.remaining == "open the app"
    assert report.steps == 2 and report.budget == 2
    assert "Steps used: 2 of 2" in report.text()
    refused = tool_results(context, "gui#3")[2]
    assert refused.is_error and "step budget is spent" in refused.text
    last_request = context.provider("gui").requests[-1]
    assert "Call `report_progress` now" in last_request.messages[-1].text()
    assert "report_progress" in {t.name for t in last_request.tools}


def test_spent_budget_without_a_progress_report_still_reports_incomplete(desktop, tmp_path):
    gui_turns = [act({"action": "screenshot"}), {"text": "I am not sure."}]
    context = make_context(tmp_path, desktop, {"gui": gui_turns})
    report = run_gui_subgoal(context, "anything", scope="gui#4", budget=1)
    assert report.status == "INCOMPLETE" and report.detail == ""
    assert "turn budget spent" in report.remaining and "gave no progress report" in report.remaining
    assert Path(report.screenshot).is_file()


def test_pixel_harness_runs_a_whole_task(tk_app, tmp_path):
    app = tk_app
    main_turns = [
        act({"action": "left_click", "coordinate": app.at("dialog_ok")}),
        act({"action": "left_click", "coordinate": app.at("add")}),
        done("the counter was incremented"),
    ]
    context = make_context(tmp_path, app.sandbox, {"main": main_turns})
    turns = get_variant("pixel").default_max_turns
    loop = build_pixel_loop(context, Budget(max_turns=turns))
    outcome = loop.run("Close the welcome dialog and press 'Add one' once.")
    assert outcome.status == "finished" and outcome.ending == SubagentClaim(
        "DONE", "the counter was incremented"
    )
    state = app.wait("clicks")
    assert state["clicks"] == 1 and state["dialog_open"] is False
    first = context.provider("main").requests[0]
    assert len(first.messages[0].images()) == 1 and f"Step 1 of {turns}." in first.messages[0].text()
    assert {t.name for t in first.tools} == {"computer", "done", "fail"}
    assert loop.role == "main" and context.meter.by_role["main"].turns == 3


def test_the_gui_loop_keeps_its_cacheable_prefix_across_steps(desktop, tmp_path):
    steps = 12
    moves = [act({"action": "mouse_move", "coordinate": [100 + 40 * i, 200 + 10 * i]}) for i in range(steps)]
    context = make_context(tmp_path, desktop, {"gui": [*moves, done("the pointer moved")]})
    report = run_gui_subgoal(context, "move the pointer along the line", scope="gui#1")
    assert report.status == "DONE" and report.steps == steps + 1
    requests = context.provider("gui").requests
    images = [sum(len(m.images()) for m in r.messages) for r in requests]
    assert max(images) < GUI_KEEP_SCREENSHOTS + GUI_SCREENSHOT_STRIP_CHUNK
    assert (
        images[-1] == GUI_KEEP_SCREENSHOTS + (steps + 1 - GUI_KEEP_SCREENSHOTS) % GUI_SCREENSHOT_STRIP_CHUNK
    )
    # the prefix up to the cache breakpoint changes only when a chunk of old screenshots leaves
    strips = (steps + 1 - GUI_KEEP_SCREENSHOTS) // GUI_SCREENSHOT_STRIP_CHUNK
    assert prefix_breaks(requests) == strips < steps // 3
    assert all(r.injected_blocks == 1 and "Step " in r.messages[-1].content[-1].text for r in requests)


def test_the_pixel_harness_gets_stall_notes(desktop, tmp_path):
    same = act({"action": "mouse_move", "coordinate": [60, 60]})
    context = make_context(tmp_path, desktop, {"main": [same] * 4 + [done("the pointer stays put")]})
    loop = build_pixel_loop(context, Budget(max_turns=10))
    assert loop.run("Move the pointer to the top left corner.").status == "finished"
    notes = [
        [b.text for b in r.messages[-1].content[-r.injected_blocks :]]
        for r in context.provider("main").requests
    ]
    stalled = [i for i, texts in enumerate(notes) if "same tool calls and got the same output" in texts[0]]
    assert stalled == [3, 4] and all(texts[-1].startswith("Step ") for texts in notes)
    stalls = [e for e in read_events(context.log.events_path) if e.kind == "stall"]
    assert [(e.scope, e.sign) for e in stalls] == [("main", "repeat")]


# -- LibreOffice Calc ------------------------------------------------------------------
QUIET_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse">\
<value>false</value></prop></item>
</oor:items>
"""
"""A fresh LibreOffice profile without the tip-of-the-day dialog, so the first window is the document."""


@pytest.fixture
def calc(tmp_path):
    home = tmp_path / "calc_home"
    home.mkdir()
    book = openpyxl.Workbook()
    book.active["A1"] = "name"
    book.save(home / "book.xlsx")
    sandbox = started_sandbox(home, (1280, 800))
    try:
        profile = tmp_path / "lo_profile"
        (profile / "user").mkdir(parents=True)
        (profile / "user" / "registrymodifications.xcu").write_text(QUIET_PROFILE, encoding="utf-8")
        sandbox.launch(
            f"soffice --calc --norestore --nologo -env:UserInstallation=file://{profile} {home / 'book.xlsx'}"
        )
        wait_for(lambda: "book.xlsx - LibreOffice Calc" in sandbox.run("wmctrl -l").stdout, "the Calc window")
        time.sleep(2.0)  # the window shows before the document takes keys
        yield sandbox, home / "book.xlsx"
    finally:
        sandbox.close()


def test_calc_cell_typed_and_saved_as_xlsx(calc, tmp_path):
    sandbox, path = calc
    before = path.stat().st_mtime_ns
    gui_turns = [
        act({"action": "key", "text": "ctrl+Home Down"}),
        act({"action": "type", "text": "Grüße\n42\n"}),
        act({"action": "key", "text": "ctrl+s"}, {"action": "wait", "duration": 2}),
        act({"action": "key", "text": "Return"}),  # "Use Excel 2007-365!" in the Keep Format dialog
        act({"action": "wait", "duration": 2}),
        done("saved"),
    ]
    context = make_context(tmp_path, sandbox, {"gui": gui_turns})
    report = run_gui_subgoal(context, "type into A2 and A3 and save", scope="gui#1")
    assert report.status == "DONE"
    wait_for(lambda: path.stat().st_mtime_ns != before, "the workbook to be saved")

    def saved_values():
        try:
            sheet = openpyxl.load_workbook(path).active
        except Exception:  # still being written
            return None
        return [sheet["A1"].value, sheet["A2"].value, sheet["A3"].value]

    assert wait_for(saved_values, "a readable workbook") == ["name", "Grüße", 42]


def test_a_subagent_that_keeps_replying_in_words_is_reminded_then_reported_incomplete(desktop, tmp_path):
    words = {"text": "It looks fine to me."}
    context = make_context(tmp_path, desktop, {"gui": [words] * (SUBAGENT_TEXT_REPLY_NUDGES + 1)})
    report = run_gui_subgoal(context, "anything", scope="gui#5")
    assert report.status == "INCOMPLETE" and report.detail == ""
    assert report.remaining.startswith("stopped without calling done or fail; its last words: It looks fine")
    requests = context.provider("gui").requests
    assert len(requests) == SUBAGENT_TEXT_REPLY_NUDGES + 1
    assert requests[-1].messages[-1].text().startswith(SUBAGENT_TEXT_REPLY_NUDGE)


def test_a_text_reply_then_a_tool_call_continues_the_delegation(desktop, tmp_path):
    turns = [{"text": "First I will look at the screen."}, act({"action": "screenshot"}), done("all seen")]
    context = make_context(tmp_path, desktop, {"gui": turns})
    report = run_gui_subgoal(context, "look", scope="gui#6")
    assert report.status == "DONE" and report.detail == "all seen"


def test_a_failed_model_call_reaches_the_main_agent_as_an_error(desktop, tmp_path):
    context = make_context(tmp_path, desktop, {"gui": []})
    result = DelegateGuiTool(context).run(DelegateInput(subgoal="anything"))
    assert result.is_error and result.text.startswith("GUI subagent gui#1: ERROR\n")
    assert "model call failed: script exhausted" in result.text
