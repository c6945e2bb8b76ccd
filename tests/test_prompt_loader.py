"""Every prompt file is read through one loader (`stateact.kernel.prompts.loader`) with one template
syntax: `{{name}}` placeholders and `<!-- if -->` sections. A placeholder left unfilled, a typo'd one or
a malformed marker fails where the prompt is read, and every prompt file of the repository renders here
with the fills its reader gives it, so a typo in any prompt fails the suite."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import stateact.app  # noqa: F401  (every role, as a run has them)
from stateact.gate.judge.evidence import Evidence
from stateact.gate.judge.judge import judge_prompt, judge_request
from stateact.gate.review.finish_gate import FinishGate
from stateact.kernel.context import compaction
from stateact.kernel.events import UserAnswer, UserQuestion
from stateact.kernel.loop import TEXT_REPLY_NUDGE
from stateact.kernel.messages import ToolSpec
from stateact.kernel.prompts import main_opening, read_prompt, render_main_prompt
from stateact.kernel.prompts.app_priors import APP_PRIORS
from stateact.kernel.prompts.loader import PromptError, render_prompt, render_text
from stateact.kernel.tools.bash import BashTool
from stateact.kernel.tools.edit import EditTool
from stateact.kernel.tools.plan import PlanTool
from stateact.kernel.users import USER_ROLE
from stateact.subagents import web
from stateact.subagents.action_formats import format_prompt
from stateact.subagents.action_formats.qwen import tools_section
from stateact.subagents.nudge import SUBAGENT_TEXT_REPLY_NUDGE
from stateact.subagents.screen_loop import load_prompt as screen_prompt
from tests.support.tool_context import run_context

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("stateact", "subagents", "gate", "evals", "sandbox")
FORMATS = ("tools", "uitars", "qwen_computer_use")


def test_a_placeholder_without_a_fill_is_an_error_naming_the_file_and_the_name(tmp_path):
    prompt = tmp_path / "p.md"
    prompt.write_text("Home: {{home}}, editor: {{editor}}.\n")
    assert render_prompt(prompt, home="/h", editor="edit") == "Home: /h, editor: edit.\n"
    with pytest.raises(PromptError, match=r"p\.md: no fill for \{\{editor\}\}"):
        render_prompt(prompt, home="/h")
    prompt.write_text("Home: {{hom}}.\n")  # a typo in the prompt
    with pytest.raises(PromptError, match=r"no fill for \{\{hom\}\}"):
        render_prompt(prompt, home="/h")


@pytest.mark.parametrize(
    "text",
    ["Home: {{home}.\n", "Home: {home}}.\n", "<!-- if plan -->\nplan\n", "a\n<!-- end -->\n"],
)
def test_a_malformed_placeholder_or_section_is_an_error(text):
    with pytest.raises(PromptError):
        render_text(text, {"plan"}, {"home": "/h"})


def test_fills_go_in_one_pass_and_sections_choose_first():
    text = "<!-- if plan -->\nUse {{tool}}.\n<!-- end -->\n{{task}}\n"
    assert render_text(text, set(), {"task": "keep {{tool}} and {x}"}) == "keep {{tool}} and {x}\n"
    assert render_text(text, {"plan"}, {"tool": "plan", "task": "t"}) == "Use plan.\nt\n"


def prompt_files() -> set[Path]:
    """Every prompt file of the product: each `prompts/*.md` and each app prior."""
    found = {path for package in PRODUCT for path in (ROOT / package).rglob("prompts/*.md")}
    return found | {prior.path for prior in APP_PRIORS}


def rendered_by_their_readers(tmp_path: Path) -> dict[str, str]:
    """Each prompt as its reader renders it, with the fills it gives, by a name saying which."""
    texts = {
        f"main {gate} {tools}": render_main_prompt(tools, gate=gate) + main_opening("/home/user")
        for gate in (True, False)
        for tools in ({"bash", "edit", "plan", "finish", "delegate_gui", "delegate_web"}, {"bash", "finish"})
    }
    texts |= {f"{name} {form}": screen_prompt(name, form) for name in ("gui", "pixel") for form in FORMATS}
    texts |= {f"format {form}": format_prompt(form) for form in FORMATS}
    texts["qwen tools"] = tools_section([ToolSpec(name="click", description="d", input_schema={})])
    texts |= {"nudges": TEXT_REPLY_NUDGE + SUBAGENT_TEXT_REPLY_NUDGE, "web": render_prompt(web.PROMPT_PATH)}
    texts |= {"compactor": render_prompt(compaction.PROMPT_PATH), "bash": BashTool.description}
    texts |= {
        "edit": EditTool.description,
        "edit_view": EditTool(context=None, read_only=True).description,
        "plan": PlanTool.description,
    }
    texts |= {"judge": judge_prompt(2), "candidates": judge_request("Do it.", {1: Evidence("finished")})}
    texts["user"] = read_prompt(USER_ROLE, {"persona"}, persona="Dana")
    with run_context(tmp_path) as context:
        context.log.emit(UserQuestion(question="Which one?"))
        context.log.emit(UserAnswer(answer="The first."))
        gate = FinishGate(context, task_started_at=1.0)
        texts["gate"] = gate._system_prompt({"read_page", "web_pages"})
        texts["gate task"] = gate._task_text([], "gate#1", ["a note"])
        texts["gate infeasible"] = gate._task_text([], "gate#1", [], claim="No such file.")
    return texts


def test_every_prompt_file_renders_through_the_loader_with_its_readers_fills(tmp_path):
    texts = rendered_by_their_readers(tmp_path)
    for name, text in texts.items():
        assert text.strip() and not re.search(r"\{\{|<!--", text.replace(tools_section([]), "")), name
    unread = []
    for path in prompt_files():
        body = re.sub(r"<!--.*?-->\n|\{\{\w+\}\}", "\n", path.read_text(encoding="utf-8"))
        lines = [line for line in body.splitlines() if line.strip()]
        if not any(all(line in text for line in lines) for text in texts.values()):
            unread.append(str(path.relative_to(ROOT)))
    assert not unread, f"prompt files no reader renders here: {unread}"


def test_no_product_module_reads_a_prompt_file_but_through_the_loader():
    reads = re.compile(r"(PROMPT|\.md\b).*\.read_text\(")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in PRODUCT
        for path in (ROOT / package).rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if reads.search(line)
    ]
    assert not offenders, offenders
