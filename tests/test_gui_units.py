"""GUI subagent parts that need no display: scaling, action translation, the screenshot context, reports."""

from __future__ import annotations

import json

import pytest

from stateact.kernel.context.pipeline import build_context_manager
from stateact.kernel.context.processors import PLACEHOLDER, StripImages
from stateact.kernel.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from stateact.kernel.models.scripted import ScriptedProvider
from stateact.subagents.delegation import SubagentReport, brief_text
from stateact.subagents.gui import GUI_FORM
from stateact.subagents.gui_actions import ActionError, ComputerAction, action_code, parse_keys
from stateact.subagents.gui_tools import ComputerTool
from stateact.subagents.scaler import CoordinateError, Scaler, image_tokens, model_size
from stateact.subagents.screen import Screen
from stateact.subagents.screen_loop import screen_processors
from tests.support.run_events import logged_events
from tests.test_context import TASK, make_loop, run_context, steps


@pytest.mark.parametrize(
    ("screen", "expected"),
    [
        ((1280, 800), (1280, 800)),
        ((1920, 1080), (1366, 768)),
        ((1920, 1200), (1280, 800)),
        ((1024, 768), (1024, 768)),
        ((1600, 1200), (1024, 768)),
        ((2560, 1440), (1366, 768)),
        ((800, 600), (800, 600)),
        ((3440, 1440), (1568, 656)),
        ((1000, 1000), (1000, 1000)),
        ((1200, 1200), (1072, 1072)),
    ],
)
def test_model_size_fits_limits_and_keeps_shape(screen, expected):
    size = model_size(screen)
    assert size == expected
    assert max(size) <= 1568 and size[0] * size[1] <= 1_150_000
    assert abs(size[0] / size[1] - screen[0] / screen[1]) < 0.02


@pytest.mark.parametrize("screen", [(1920, 1080), (1280, 800), (2560, 1440), (3440, 1440), (1600, 1200)])
def test_model_points_round_trip_through_the_screen(screen):
    scaler = Scaler.for_screen(screen)
    width, height = scaler.model
    for x in range(0, width, 7):
        for y in (0, height // 3, height - 1):
            sx, sy = scaler.to_screen(x, y)
            assert 0 <= sx < screen[0] and 0 <= sy < screen[1]
            assert scaler.to_model(sx, sy) == (x, y)
    step = screen[0] / width
    for sx in range(0, screen[0], 13):
        back, _ = scaler.to_screen(*scaler.to_model(sx, 0))
        assert abs(back - sx) <= step


@pytest.mark.parametrize("point", [(-1, 5), (5, -0.5), (1366, 10), (10, 768), (99999, 99999)])
def test_points_outside_the_screenshot_are_refused(point):
    with pytest.raises(CoordinateError, match="outside the screenshot, which is 1366x768"):
        Scaler.for_screen((1920, 1080)).to_screen(*point)


def test_image_tokens_follow_the_area_rule():
    assert image_tokens((1920, 1080)) == 2765
    assert image_tokens((1366, 768)) == 1399


def code_for(screen=(1920, 1080), **fields) -> str:
    code = action_code(ComputerAction(**fields), Scaler.for_screen(screen))
    compile(code, "<action>", "exec")
    return code


def test_click_code_maps_coordinates_and_holds_modifiers():
    code = code_for(action="double_click", coordinate=[683, 384], text="ctrl+shift")
    assert "pyautogui.click(x=960, y=540, clicks=2" in code
    assert code.index("keyDown('ctrl')") < code.index("keyDown('shift')") < code.index("pyautogui.click(")
    assert code.index("pyautogui.click(") < code.index("keyUp('shift')") < code.index("keyUp('ctrl')")
    assert "FAILSAFE = False" in code and code.index('"DISPLAY"') < code.index("import pyautogui")


def test_drag_lasts_at_least_half_a_second():
    code = code_for(action="left_click_drag", start_coordinate=[0, 0], coordinate=[100, 100], duration=0.1)
    assert "duration=0.5" in code and "mouseDown" in code and "mouseUp" in code


def test_button_and_key_holds():
    assert "pyautogui.mouseDown(x=960, y=540, button='left')" in code_for(
        action="left_mouse_down", coordinate=[683, 384]
    )
    assert "pyautogui.mouseUp(button='left')" in code_for(action="left_mouse_up")
    held = code_for(action="hold_key", text="shift", duration=0.5)
    assert held.index("keyDown('shift')") < held.index("time.sleep(0.5)") < held.index("keyUp('shift')")


def test_type_hands_only_non_ascii_runs_and_less_than_to_xdotool():
    code = code_for(action="type", text="Hi Grüße\n")
    assert (
        "pyautogui.write('Hi Gr'" in code and "type_other('üß')" in code and "pyautogui.write('e\\n'" in code
    )
    assert "type_other('<')" in code_for(action="type", text="a<b")
    assert "xdotool" in code and "xclip" in code  # the clipboard where the machine has no xdotool
    assert "type_other" not in code_for(action="type", text="plain ascii > 1")


def test_scroll_and_keys():
    assert "pyautogui.scroll(x=960, y=540, clicks=-5)" in code_for(
        action="scroll", coordinate=[683, 384], scroll_direction="down", scroll_amount=5
    )
    assert "pyautogui.hscroll(clicks=2)" in code_for(
        action="scroll", scroll_direction="right", scroll_amount=2
    )
    assert parse_keys("ctrl+s Return alt+F4 ctrl++") == [
        ["ctrl", "s"],
        ["enter"],
        ["alt", "f4"],
        ["ctrl", "+"],
    ]
    with pytest.raises(ActionError, match="unknown key 'Hyper_Q'"):
        parse_keys("Hyper_Q")
    with pytest.raises(ActionError, match="not modifiers"):
        code_for(action="left_click", coordinate=[1, 1], text="a")


def test_actions_without_display_input_have_no_code():
    scaler = Scaler.for_screen((1280, 800))
    for fields in (
        {"action": "screenshot"},
        {"action": "wait", "duration": 1},
        {"action": "zoom", "region": [0, 0, 50, 50]},
    ):
        assert action_code(ComputerAction(**fields), scaler) is None


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"action": "mouse_move"}, "`mouse_move` needs `coordinate`"),
        ({"action": "left_click_drag", "coordinate": [1, 1]}, "needs `start_coordinate`"),
        ({"action": "type", "text": ""}, "`type` needs `text`"),
        ({"action": "fly"}, "action"),
        ({"action": "scroll", "scroll_direction": "down", "scroll_amount": 500}, "scroll_amount"),
        ({"action": "type", "text": "x" * 5000}, "at most 1000 characters"),
        ({"action": "left_click", "coordinate": [10]}, "coordinate: List should have at least 2 items"),
    ],
)
def test_bad_actions_become_error_results(fields, message):
    tool = ComputerTool(Screen(None, Scaler.for_screen((1920, 1080))))
    tool.look_after = False  # an action of a batch before its last: it answers with text only
    result = tool.invoke(ToolUseBlock(id="t1", name="computer", input=fields))
    assert result.is_error and message in result.text and not result.images


def test_action_schema_is_plain_json_schema():
    schema = json.dumps(ComputerTool(Screen(None, Scaler.for_screen((1920, 1080)))).spec().input_schema)
    assert "prefixItems" not in schema and "$ref" not in schema and '"left_click_drag"' in schema


def image(tag: str) -> ImageBlock:
    return ImageBlock.from_bytes(tag.encode())


def test_image_stripping_keeps_the_newest_and_leaves_history_alone():
    history = [Message(role="user", content=[TextBlock(text="goal"), image("0")])]
    for n in range(1, 5):
        history.append(
            Message(role="assistant", content=[ToolUseBlock(id=f"t{n}", name="computer", input={})])
        )
        result = ToolResultBlock(tool_use_id=f"t{n}", content=[TextBlock(text=f"step {n}"), image(str(n))])
        history.append(Message(role="user", content=[result]))
    view = StripImages(keep=3, chunk=1)(history)
    kept = [img.to_bytes().decode() for message in view for img in message.images()]
    assert kept == ["2", "3", "4"]
    assert view[0].content[1] == TextBlock(text=PLACEHOLDER)
    assert view[2].tool_results()[0].content[1] == TextBlock(text="")  # one placeholder for them all
    assert view[2].tool_results()[0].tool_use_id == "t1" and view[-1] is history[-1]
    assert sum(len(m.images()) for m in history) == 5


def test_a_screenshot_loop_recovers_from_an_overflow_by_cutting_the_screenshot(tmp_path):
    shot = {"tool_calls": [{"name": "produce", "input": {"tag": "shot", "lines": 3, "screenshot": True}}]}
    model = ScriptedProvider([shot, *steps(0)], context_window=1500)
    pipeline = build_context_manager(run_context(tmp_path, []), model.name, screen_processors(), window=1500)
    loop = make_loop(tmp_path, model, pipeline)
    assert loop.run(TASK).status == "finished"
    assert [e.block for e in logged_events(loop.log.events_path, "context_cut")] == ["image"]
    assert not model.requests[-1].messages[2].images() and loop.messages[2].images()


def test_report_texts_are_concise_and_truthful():
    done = SubagentReport(
        GUI_FORM,
        "gui#1",
        "DONE",
        "the dialog is gone",
        steps=4,
        budget=25,
        screenshot="/run/images/00001_gui-1_final.png",
    )
    assert done.text().splitlines() == [
        "GUI subagent gui#1: DONE",
        "Achieved (seen on screen): the dialog is gone",
        "Steps used: 4 of 25",
    ]
    assert done.event().screenshot == "/run/images/00001_gui-1_final.png"
    partial = SubagentReport(
        GUI_FORM, "gui#2", "INCOMPLETE", "", remaining="turn budget spent", steps=25, budget=25, screenshot=""
    )
    assert "Verified on screen: nothing reported" in partial.text()
    assert "Remaining: turn budget spent" in partial.text()
    assert brief_text(" Press OK ", "") == "Your subgoal: Press OK"
    assert "Context from the agent that delegated it:\nCalc is open" in brief_text("x", "Calc is open")


def test_zoom_takes_a_region_that_ends_at_the_screenshot_edge():
    from tests.test_context import png

    scaler = Scaler(screen=(1280, 800), model=(1280, 800))
    _, size = scaler.zoom_png(png(1280, 800), [630, 540, 1280, 800])
    assert size[0] >= 640
    with pytest.raises(CoordinateError):
        scaler.zoom_png(png(1280, 800), [630, 540, 1281, 800])
