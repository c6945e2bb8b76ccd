"""What a Qwen2.5-VL model served by vLLM reads of a GUI delegation: the requests the GUI subagent sent
to an OpenAI-compatible server (the real `openai` SDK), rendered with the model's real chat template
(tests/fixtures/chat_templates/, with jinja2 set up as transformers renders chat templates)."""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment

from stateact.subagents.scaler import model_size
from stateact.subagents.screen_settings import ScreenSettings
from tests.support.wire_servers import openai_reply
from tests.test_gui_desktop import desktop  # noqa: F401 (fixture)
from tests.test_gui_grounding_wire import delegate_to

pytestmark = pytest.mark.apps

TEMPLATES = Path(__file__).parent / "fixtures" / "chat_templates"
IMAGE = "<|vision_start|><|image_pad|><|vision_end|>"
"""What Qwen2.5-VL's template writes for each image."""
CLICK = {"action": "left_click", "coordinate": [120, 90]}


def render(template: str, body: dict) -> str:
    """The prompt a chat request becomes: the template rendered as transformers does, with an assistant
    message's missing content as the empty list vLLM hands a template that loops over content parts."""

    def raise_exception(message: str) -> None:
        raise jinja2.TemplateError(message)

    environment = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
    )
    environment.globals["raise_exception"] = raise_exception
    messages = [
        {**m, "content": m.get("content") if m.get("content") is not None else []} for m in body["messages"]
    ]
    text = (TEMPLATES / template).read_text(encoding="utf-8")
    return environment.from_string(text).render(
        messages=messages, tools=body.get("tools"), add_generation_prompt=True
    )


def delegate(desktop, openai_server, tmp_path: Path, options: ScreenSettings, *turns: dict):  # noqa: F811
    """One GUI delegation against a wire server playing `turns`; the server, for its requests."""
    server = openai_server(*turns, max_images=2)
    report = delegate_to(
        server, desktop, options, tmp_path, "Click the desktop", "Qwen/Qwen2.5-VL-7B-Instruct"
    )
    return server, report


def test_qwen_reads_its_schema_screen_size_and_past_calls_when_they_travel_in_the_prompt(
    desktop,  # noqa: F811
    openai_server,
    tmp_path,
):
    call = json.dumps({"name": "computer_use", "arguments": CLICK})
    server, report = delegate(
        desktop,
        openai_server,
        tmp_path,
        ScreenSettings(
            action_format="qwen_computer_use", tools_in_prompt=True, keep_screenshots=2, max_tokens=512
        ),
        openai_reply(f"I click the desktop.\n<tool_call>\n{call}\n</tool_call>"),
        openai_reply(
            'The desktop was clicked.\n<tool_call>\n{"name": "computer_use", "arguments": {"action": "terminate", "status": "success"}}\n</tool_call>'
        ),
    )
    assert report.status == "DONE" and report.detail == "The desktop was clicked.", report.text()
    assert "tools" not in server.requests[0]
    width, height = model_size(desktop.screen_size())  # the screenshot's size, in pixels convention
    prompt = render("qwen2_5_vl.jinja", server.requests[-1])
    system = prompt.split("<|im_end|>", 1)[0]
    assert system.startswith("<|im_start|>system\nYou are the GUI agent")
    assert '<tools>\n{"type": "function", "function": {"name": "computer_use"' in system
    assert f"The screen's resolution is {width}x{height}." in system
    assert '"left_click_drag"' in system and '<tool_call>\n{"name": <function-name>' in system
    assert (
        f"<|im_start|>assistant\nI click the desktop.\n<tool_call>\n{call}\n</tool_call><|im_end|>" in prompt
    )
    assert (
        "<|im_start|>user\n<tool_response>\nDone: left_click at (120, 90). The screen now:\n</tool_response>"
        + IMAGE
        in prompt
    )
    assert prompt.count(IMAGE) == 2 and prompt.endswith("<|im_start|>assistant\n")


def test_without_it_qwen_reads_neither_its_schema_nor_its_past_calls(desktop, openai_server, tmp_path):  # noqa: F811
    server, report = delegate(
        desktop,
        openai_server,
        tmp_path,
        ScreenSettings(action_format="qwen_computer_use", keep_screenshots=2, max_tokens=512),
        openai_reply(tool_calls=[("computer_use", CLICK)]),
        openai_reply(tool_calls=[("computer_use", {"action": "terminate", "status": "success"})]),
    )
    assert report.status == "DONE" and report.detail.startswith(
        "Ended with status DONE without a description; last step: Done: left_click"
    )
    assert [t["function"]["name"] for t in server.requests[-1]["tools"]] == ["computer_use"]
    prompt = render("qwen2_5_vl.jinja", server.requests[-1])
    assert (
        "<tools>" not in prompt
        and '"left_click_drag"' not in prompt
        and "The screen's resolution" not in prompt
    )
    assert "<|im_start|>assistant\n<|im_end|>" in prompt  # the past call is an empty turn
    assert "<|im_start|>tool\nDone: left_click at (120, 90)" in prompt  # only its result says what it was


def test_uitars_reads_its_action_space_screen_size_and_past_actions(desktop, openai_server, tmp_path):  # noqa: F811
    """UI-TARS-1.5 is a Qwen2.5-VL fine-tune sent only text and image parts (no tools, no tool messages);
    its own template file was not to be had here, so its requests are rendered with its base model's."""
    server, report = delegate(
        desktop,
        openai_server,
        tmp_path,
        ScreenSettings(action_format="uitars", keep_screenshots=2, max_tokens=512),
        openai_reply("Thought: I click the desktop.\nAction: click(start_box='(120,90)')"),
        openai_reply("Thought: It is clicked.\nAction: finished(content='The desktop was clicked')"),
    )
    assert report.status == "DONE" and report.detail == "The desktop was clicked", report.text()
    width, height = model_size(desktop.screen_size())
    prompt = render("qwen2_5_vl.jinja", server.requests[-1])
    system = prompt.split("<|im_end|>", 1)[0]
    assert "drag(start_box='(x1,y1)', end_box='(x2,y2)')" in system and "one action per reply" in system
    assert f"Screenshot size: {width}x{height} pixels." in prompt
    assert (
        "<|im_start|>assistant\nThought: I click the desktop.\nAction: click(start_box='(120,90)')<|im_end|>"
        in prompt
    )
    assert "<|im_start|>user\nDone: left_click at (120, 90). The screen now:" + IMAGE in prompt
    assert prompt.count(IMAGE) == 2
