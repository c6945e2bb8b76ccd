"""The GUI subagent on an OpenAI-compatible server (the real `openai` SDK) whose model answers in each
coordinate convention and each native action format: every one clicks the same button of the Tk test
window on Xvfb.

The server works out the point from the screenshot it was sent (its size read from the PNG) and the
window's own layout report, with the convention's arithmetic written out here, not the harness's.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import pytest

from stateact.kernel.meter import Meter
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels, RunContext
from stateact.subagents.grounding import RELATIVE_SPAN, smart_resize
from stateact.subagents.gui import run_gui_subgoal
from stateact.subagents.screen_settings import ScreenSettings
from tests.support.wire_servers import PNG_SIZE_OFFSET, image_count, openai_reply
from tests.test_gui_desktop import TkApp, desktop, tk_app  # noqa: F401 (fixtures)

pytestmark = pytest.mark.apps

TARGET = "dialog_ok"
"""The button every answer clicks: OK of the test window's modal dialog."""


@dataclass(frozen=True)
class Case:
    action_format: str
    coordinates: str
    native_size: bool = False
    qwen_as_text: bool = False
    """Qwen's call written as `<tool_call>` text (as a server without a tool-call parser returns it)."""

    @property
    def options(self) -> ScreenSettings:
        return ScreenSettings(
            coordinates=self.coordinates,
            native_size=self.native_size,
            action_format=self.action_format,
            max_tokens=1024,
        )


CASES = [
    Case("tools", "pixels"),
    Case("tools", "relative1000"),
    Case("tools", "resized"),
    Case("tools", "resized", native_size=True),
    Case("uitars", "pixels"),
    Case("uitars", "relative1000"),
    Case("uitars", "resized", native_size=True),
    Case("qwen_computer_use", "pixels"),
    Case("qwen_computer_use", "relative1000", qwen_as_text=True),
    Case("qwen_computer_use", "resized"),
]


def last_image_size(body: dict) -> tuple[int, int]:
    """Width and height of the last PNG in a chat request."""
    urls = [
        part["image_url"]["url"]
        for message in body["messages"]
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]
    raw = base64.b64decode(urls[-1].split(",", 1)[1])[PNG_SIZE_OFFSET : PNG_SIZE_OFFSET + 8]
    return int.from_bytes(raw[:4]), int.from_bytes(raw[4:])


def model_point(
    case: Case, screen_point: list[int], screen: tuple[int, int], image: tuple[int, int]
) -> list[int]:
    """Where a model in the case's convention points for a screen point, given the image it was sent."""
    if case.coordinates == "relative1000":
        space = (RELATIVE_SPAN, RELATIVE_SPAN)
    elif case.coordinates == "resized" and not case.native_size:
        space = smart_resize(*image)
    else:
        space = image
    return [int(screen_point[i] * space[i] / screen[i]) for i in (0, 1)]


def click_reply(case: Case, x: int, y: int) -> dict:
    if case.action_format == "uitars":
        return openai_reply(
            f"Thought: The OK button closes the dialog.\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')\nhotkey(key='shift')"
        )
    if case.action_format == "qwen_computer_use":
        call = {"action": "left_click", "coordinate": [x, y]}
        if case.qwen_as_text:
            return openai_reply(
                f"<tool_call>\n{json.dumps({'name': 'computer_use', 'arguments': call})}\n</tool_call>"
            )
        return openai_reply(tool_calls=[("computer_use", call)])
    return openai_reply(tool_calls=[("computer", {"action": "left_click", "coordinate": [x, y]})])


def done_reply(case: Case) -> dict:
    if case.action_format == "uitars":
        return openai_reply("Thought: The dialog is gone.\nAction: finished(content='The dialog is closed')")
    if case.action_format == "qwen_computer_use":
        return openai_reply(
            "The dialog is closed.",
            tool_calls=[("computer_use", {"action": "terminate", "status": "success"})],
        )
    return openai_reply(tool_calls=[("done", {"summary": "The dialog is closed"})])


def delegate_to(
    server, sandbox, options: ScreenSettings, tmp_path, subgoal: str, name: str = "local-grounding-model"
):
    """The report of one GUI delegation whose role's model `name` is served by the wire `server`."""
    context = RunContext(
        run_dir=tmp_path / "run",
        task="test",
        sandbox=sandbox,
        log=RunLog(tmp_path / "run"),
        meter=Meter(),
        models=RoleModels(main=f"openai:{name}@{server.base_url}", settings={"gui": options}),
    )
    try:
        return run_gui_subgoal(context, subgoal, scope="gui#1")
    finally:
        context.log.close()


@pytest.mark.parametrize(
    "case", CASES, ids=lambda c: f"{c.action_format}-{c.coordinates}{'-native' if c.native_size else ''}"
)
def test_each_convention_and_format_clicks_the_same_button(case, tk_app, openai_server, tmp_path):  # noqa: F811
    app: TkApp = tk_app
    screen = app.sandbox.screen_size()
    sent: list[tuple[int, int]] = []

    def click(body: dict) -> dict:
        sent.append(last_image_size(body))
        x, y = model_point(case, app.state()["layout"][TARGET], screen, sent[-1])
        return click_reply(case, x, y)

    server = openai_server(click, lambda body: done_reply(case))
    report = delegate_to(
        server, app.sandbox, case.options, tmp_path, "Close the welcome dialog with its OK button"
    )

    assert app.wait("layout") and app.state()["dialog_open"] is False, report.text()
    assert report.status == "DONE" and "The dialog is closed" in report.detail, report.text()
    expected_size = smart_resize(1366, 768) if case.native_size else (1366, 768)
    assert sent == [expected_size]
    tools = [t["function"]["name"] for t in server.requests[0].get("tools", [])]
    assert (
        tools
        == {"tools": ["computer", "done", "fail"], "uitars": [], "qwen_computer_use": ["computer_use"]}[
            case.action_format
        ]
    )
    assert "Screenshot size:" in json.dumps(server.requests[0]["messages"][1])
    if case.action_format == "uitars":  # both actions of the reply are reported, as plain user text
        assert "Done: left_click at" in json.dumps(server.requests[1]["messages"][-1])
        assert "Done: key 'shift'" in json.dumps(server.requests[1]["messages"][-1])


def batch_reply(action_format: str, step: int) -> dict:
    """Three pointer moves in one reply, in the format's own words."""
    points = [(100 + 40 * i, 100 + 20 * step) for i in range(3)]
    if action_format == "uitars":
        moves = "\n".join("hotkey(key='shift')" for _ in points)
        return openai_reply(f"Thought: Three key presses.\nAction: {moves}")
    if action_format == "qwen_computer_use":
        calls = [("computer_use", {"action": "mouse_move", "coordinate": list(p)}) for p in points]
        return openai_reply(tool_calls=calls)
    return openai_reply(
        tool_calls=[("computer", {"action": "mouse_move", "coordinate": list(p)}) for p in points]
    )


@pytest.mark.parametrize("action_format", ["tools", "uitars", "qwen_computer_use"])
def test_no_request_carries_more_screenshots_than_the_role_keeps(
    action_format,
    desktop,  # noqa: F811
    openai_server,
    tmp_path,
):
    turns = 6
    server = openai_server(
        *(batch_reply(action_format, step) for step in range(turns)),
        done_reply(Case(action_format, "pixels")),
        max_images=2,
    )
    options = ScreenSettings(action_format=action_format, keep_screenshots=2, max_tokens=1024)
    report = delegate_to(server, desktop, options, tmp_path, "Move the pointer about")

    assert report.status == "DONE", report.text()
    counts = [image_count(body) for body in server.requests]
    assert len(counts) == turns + 1 and max(counts) == 2 and not server.problems, counts
