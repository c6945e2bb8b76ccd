"""Parsers of GUI models' native action formats, checked on each format's published examples."""

from __future__ import annotations

import json

import pytest

from stateact.kernel.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from stateact.kernel.models.base import ModelRequest
from stateact.kernel.models.scripted import ScriptedProvider
from stateact.subagents.action_formats.native import Ending, FormatError, NativeActionTool
from stateact.subagents.action_formats.qwen import (
    QwenComputerUse,
    QwenComputerUseTool,
    QwenModel,
    qwen_action,
)
from stateact.subagents.action_formats.uitars import (
    USER_HELP,
    UITarsInput,
    UITarsTool,
    parse_actions,
    point,
    split_reply,
)
from stateact.subagents.endings import SubagentClaim
from stateact.subagents.gui_actions import ComputerAction
from stateact.subagents.gui_tools import ComputerTool
from stateact.subagents.scaler import Scaler
from stateact.subagents.screen import Screen
from stateact.subagents.screen_loop import load_prompt


def one(text: str) -> ComputerAction | Ending:
    """The single action of a whole UI-TARS reply."""
    parts = split_reply(text)
    assert parts is not None
    actions = parse_actions(parts[1], parts[0])
    assert len(actions) == 1
    return actions[0]


def test_uitars_box_token_click():
    """Format of UI-TARS (bytedance/UI-TARS, codes/tests/action_parser_test.py):
    "Thought: test\\nAction: click(start_box='<|box_start|>(112,224)<|box_end|>')"."""
    action = one("Thought: test\nAction: click(start_box='<|box_start|>(112,224)<|box_end|>')")
    assert action == ComputerAction(action="left_click", coordinate=[112, 224])


def test_uitars_1_5_point_tag_click():
    """Format of UI-TARS-1.5 (bytedance/UI-TARS, codes/tests/action_parser_test.py):
    "Thought: test\\nAction: click(point='<point>200 300</point>')"."""
    action = one("Thought: test\nAction: click(point='<point>200 300</point>')")
    assert action == ComputerAction(action="left_click", coordinate=[200, 300])


def test_uitars_desktop_box_is_clicked_at_its_centre():
    """Format of UI-TARS desktop's action space: "click(start_box='[x1, y1, x2, y2]')", e.g. its example
    output "Action: click(start_box='[10, 700, 50, 740]')"."""
    action = one(
        "Thought: I need to click on the Chrome icon.\nAction: click(start_box='[10, 700, 50, 740]')"
    )
    assert action == ComputerAction(action="left_click", coordinate=[30, 720])


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("left_double(start_box='(10,20)')", ComputerAction(action="double_click", coordinate=[10, 20])),
        ("right_single(start_box='(10,20)')", ComputerAction(action="right_click", coordinate=[10, 20])),
        (
            "drag(start_box='(10,20)', end_box='(300,400)')",
            ComputerAction(action="left_click_drag", start_coordinate=[10, 20], coordinate=[300, 400]),
        ),
        ("hotkey(key='ctrl c')", ComputerAction(action="key", text="ctrl+c")),
        ("hotkey(key='enter')", ComputerAction(action="key", text="enter")),
        ("type(content='hello\\n')", ComputerAction(action="type", text="hello\n")),
        (
            "scroll(start_box='(10,20)', direction='down')",
            ComputerAction(action="scroll", coordinate=[10, 20], scroll_direction="down"),
        ),
        ("wait()", ComputerAction(action="wait")),
        ("finished(content='The file is saved')", Ending("DONE", "The file is saved")),
    ],
)
def test_uitars_action_space(action, expected):
    """Format of UI-TARS' computer-use action space (bytedance/UI-TARS README): click, left_double,
    right_single, drag(start_box=..., end_box=...), hotkey(key=''), type(content=''),
    scroll(start_box=..., direction='down or up or right or left'), wait(), finished(content='xxx')."""
    assert parse_actions(action) == [expected]


def test_uitars_finished_and_call_user_take_the_thought():
    """Format of UI-TARS: "finished()" and "call_user() # Submit the task and call the user when the task
    is unsolvable, or when you need the user's help"."""
    assert one("Thought: The chart is in place.\nAction: finished()") == Ending(
        "DONE", "The chart is in place."
    )
    assert one("Thought: A password is needed.\nAction: call_user()") == Ending(
        "FAIL", f"{USER_HELP}: A password is needed."
    )


def test_uitars_several_actions_in_one_reply_run_in_order():
    actions = parse_actions("click(start_box='(1,2)')\n\ntype(content='x')")
    assert [a.action for a in actions] == ["left_click", "type"]


def test_uitars_replies_that_cannot_be_used_say_how_to_fix_them():
    assert split_reply("I will click the OK button.") is None
    with pytest.raises(FormatError, match="Action: click"):
        parse_actions("click the OK button")
    with pytest.raises(FormatError, match="unknown action 'long_press'"):
        parse_actions("long_press(start_box='(1,2)')")
    with pytest.raises(FormatError, match="needs start_box"):
        parse_actions("click()")
    with pytest.raises(FormatError, match="not a point"):
        point("(1,2,3)")


def qwen(arguments: dict, pointer: list[float] | None = None) -> ComputerAction | Ending:
    return qwen_action(QwenComputerUse.model_validate(arguments), pointer)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"action": "left_click", "coordinate": [230, 120]},
            ComputerAction(action="left_click", coordinate=[230, 120]),
        ),
        (
            {"action": "double_click", "coordinate": [5, 6]},
            ComputerAction(action="double_click", coordinate=[5, 6]),
        ),
        (
            {"action": "right_click", "coordinate": [5, 6]},
            ComputerAction(action="right_click", coordinate=[5, 6]),
        ),
        (
            {"action": "middle_click", "coordinate": [5, 6]},
            ComputerAction(action="middle_click", coordinate=[5, 6]),
        ),
        (
            {"action": "mouse_move", "coordinate": [5, 6]},
            ComputerAction(action="mouse_move", coordinate=[5, 6]),
        ),
        ({"action": "key", "keys": ["ctrl", "c"]}, ComputerAction(action="key", text="ctrl+c")),
        ({"action": "type", "text": "Hello"}, ComputerAction(action="type", text="Hello")),
        (
            {"action": "scroll", "pixels": -5},
            ComputerAction(action="scroll", scroll_direction="down", scroll_amount=5),
        ),
        (
            {"action": "scroll", "pixels": 2},
            ComputerAction(action="scroll", scroll_direction="up", scroll_amount=2),
        ),
        ({"action": "wait", "time": 2}, ComputerAction(action="wait", duration=2)),
        (
            {"action": "terminate", "status": "success"},
            Ending("DONE", ""),
        ),
        (
            {"action": "terminate", "status": "failure"},
            Ending("FAIL", ""),
        ),
    ],
)
def test_qwen_computer_use_actions(arguments, expected):
    """Format of Qwen2.5-VL's computer-use cookbook: {"name": "computer_use", "arguments": {"action":
    "left_click", "coordinate": [x, y]}}, with actions key (keys), type (text), mouse_move, left_click,
    left_click_drag, right_click, middle_click, double_click, scroll (pixels: positive up, negative down),
    wait (time), terminate (status success or failure)."""
    assert qwen(arguments) == expected


def test_qwen_drag_starts_where_the_pointer_is():
    """Format of Qwen's cookbook: "left_click_drag: Click and drag the cursor to a specified (x, y) pixel
    coordinate" (from where the pointer is)."""
    drag = {"action": "left_click_drag", "coordinate": [300, 40]}
    assert qwen(drag, [10, 20]) == ComputerAction(
        action="left_click_drag", start_coordinate=[10, 20], coordinate=[300, 40]
    )
    with pytest.raises(FormatError, match="mouse_move first"):
        qwen(drag)
    with pytest.raises(FormatError, match="needs `status`"):
        qwen({"action": "terminate"})
    with pytest.raises(FormatError, match="needs `coordinate`"):
        qwen({"action": "mouse_move"})


def test_uitars_report_progress_carries_what_was_verified_and_what_remains():
    """Mapped as UI-TARS' action space is given: a function in its prompt's list of actions."""
    action = "report_progress(verified='The dialog is open', remaining='Press OK')"
    assert parse_actions(action) == [Ending("INCOMPLETE", "The dialog is open", "Press OK")]


def native_tool(kind: type[NativeActionTool]) -> NativeActionTool:
    return kind(ComputerTool(Screen(None, Scaler.for_screen((1280, 800)))))


def test_a_progress_report_ends_the_loop_only_once_the_budget_is_spent():
    tool = native_tool(UITarsTool)
    call = UITarsInput(action="report_progress(verified='Calc is open', remaining='the chart')")
    assert tool.run(call).is_error
    tool.computer.spent = True
    result = tool.run(call)
    assert result.terminal and result.ending == SubagentClaim("INCOMPLETE", "Calc is open", "the chart")


def test_an_ending_that_says_nothing_reports_the_last_step():
    tool = native_tool(QwenComputerUseTool)
    tool.last_step = "Done: left_click at (87, 100)."
    result = tool.run(QwenComputerUse(action="terminate", status="success"))
    assert result.ending == SubagentClaim(
        "DONE", "Ended with status DONE without a description; last step: Done: left_click at (87, 100)."
    )
    said = tool.run(QwenComputerUse(action="terminate", status="success", summary="The file is saved."))
    assert said.ending.detail == "The file is saved."
    assert "summary" not in json.dumps(tool.spec().input_schema)  # the model's schema stays Qwen's


def test_qwen_terminate_takes_the_text_of_its_reply():
    inner = ScriptedProvider(
        [
            {
                "text": "Saved.",
                "tool_calls": [
                    {"name": "computer_use", "input": {"action": "terminate", "status": "success"}}
                ],
            }
        ]
    )
    request = ModelRequest(
        system="s", messages=[Message(role="user", content=[TextBlock(text="go")])], tools=[]
    )
    (_, call) = QwenModel(inner).complete(request).content
    assert call.input == {"action": "terminate", "status": "success", "summary": "Saved."}


def test_qwen_with_tools_in_prompt_speaks_text_only():
    tool = native_tool(QwenComputerUseTool)
    inner = ScriptedProvider(
        [
            {
                "text": 'Next.\n<tool_call>\n{"name": "computer_use", "arguments": {"action": "wait", "time": 1}}\n</tool_call>'
            }
        ]
    )
    history = [
        Message(role="user", content=[TextBlock(text="go")]),
        Message(
            role="assistant", content=[ToolUseBlock(id="c1", name="computer_use", input={"action": "wait"})]
        ),
        Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id="c1", content=[TextBlock(text="Done: wait.")], is_error=True)
            ],
        ),
    ]
    response = QwenModel(inner, tools_in_prompt=True).complete(
        ModelRequest(system="You act.", messages=history, tools=[tool.spec()])
    )
    sent = inner.requests[0]
    assert sent.tools == [] and sent.system.startswith("You act.\n\n# Tools\n")
    assert '{"type": "function", "function": {"name": "computer_use"' in sent.system
    assert "The screen's resolution is 1280x800." in sent.system
    assert (
        sent.messages[1].text()
        == '<tool_call>\n{"name": "computer_use", "arguments": {"action": "wait"}}\n</tool_call>'
    )
    assert sent.messages[2].text() == "<tool_response>\nError: Done: wait.\n</tool_response>"
    assert [b.text for b in response.content if isinstance(b, TextBlock)] == ["Next."]
    assert [(b.name, b.input) for b in response.content if isinstance(b, ToolUseBlock)] == [
        ("computer_use", {"action": "wait", "time": 1})
    ]


@pytest.mark.parametrize("prompt", ["gui", "pixel"])
def test_each_format_prompt_names_only_its_own_actions(prompt):
    tools, uitars, qwen_text = (load_prompt(prompt, f) for f in ("tools", "uitars", "qwen_computer_use"))
    for text in (tools, uitars, qwen_text):
        assert "{{" not in text
    assert "`computer` tool" in tools and "`zoom`" in tools and "`done`" in tools
    for text in (uitars, qwen_text):
        assert "`computer`" not in text and "zoom" not in text and "`screenshot`" not in text
        assert "`done`" not in text and "`fail`" not in text and "Several actions in one turn" not in text
    assert "finished(content=" in uitars and "call_user()" in uitars and "computer_use" not in uitars
    assert "left_click_drag" not in uitars and "0–1000" not in uitars
    assert "`terminate` with status `success`" in qwen_text and "finished(" not in qwen_text
    assert "one action per reply" in uitars and "one call per reply" in qwen_text
