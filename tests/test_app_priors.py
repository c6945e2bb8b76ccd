"""App priors chosen per task: by the task's apps, its words and the open windows; the rest on demand."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from stateact.app.harness import build_main_loop
from stateact.app.variants import get_variant
from stateact.kernel.loop import Budget
from stateact.kernel.messages import TextBlock, ToolResultBlock
from stateact.kernel.prompts.app_priors import (
    APP_PRIORS,
    PRIORS_DIR,
    AppPrior,
    open_window_titles,
    select_priors,
)
from stateact.kernel.runtime import RoleModels
from stateact.kernel.tools.bash import BashTool
from stateact.sandbox.local import LocalSandbox
from tests.support.tool_calls import invoke
from tests.support.tool_context import run_context

WINDOW_WAIT_S = 20.0
"""Longest a test window may take to show up in the window list."""


def heading(prior: AppPrior) -> str:
    """The prior's heading line without its mark (what `app-priors` lists)."""
    return prior.text().splitlines()[0].lstrip("# ")


def prior_text(name: str) -> str:
    return (PRIORS_DIR / f"{name}.md").read_text(encoding="utf-8")


@pytest.fixture
def context(tmp_path: Path):
    with run_context(tmp_path) as context:
        yield context


def main_loop(context, tmp_path: Path, task: str, main_turns: list[dict], task_apps: tuple[str, ...] = ()):
    """The harness's real main loop (no gate) with a scripted main model."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"roles": {"main": main_turns}}))
    context = dataclasses.replace(context, task=task, models=RoleModels(main=f"scripted:{script}"))
    return build_main_loop(context, get_variant("no-verify"), Budget(max_turns=20), task_apps=task_apps)


def test_a_calc_task_opens_with_the_office_prior_and_the_prompt_names_thunderbird(context, tmp_path):
    loop = main_loop(
        context, tmp_path, "Fill in the Total column of the Q3 sheet.", [], ("libreoffice_calc",)
    )
    loop.close_tools()
    prompt, opening = loop.system_prompt, loop.opening
    assert prior_text("libreoffice").strip() in opening and "office-recalc FILE" in prompt
    assert (
        prior_text("libreoffice").splitlines()[1] not in prompt
    )  # the system prompt is the same for every task
    for other in ("thunderbird", "vlc", "chrome"):
        assert prior_text(other).splitlines()[1] not in prompt + opening, other  # the body is left out
    assert "thunderbird" in prompt and "`app-priors NAME`" in prompt


@pytest.mark.parametrize(
    ("apps", "instruction", "expected"),
    [
        ((), "In ~/report.xlsx, add a Total row under the data", ["libreoffice"]),
        ((), "Make the headings of ~/Documents/policy.docx bold", ["libreoffice"]),
        ((), "Add a closing slide to talk.pptx", ["libreoffice"]),
        ((), "Find the opening hours on https://example.com and save them in ~/hours.txt", ["chrome"]),
        ((), "Forward the email from Anna to Bob in Thunderbird", ["thunderbird"]),
        ((), "Set the desktop background to ~/Pictures/sea.png", ["gnome", "gimp"]),
        ((), "Make VLC start videos in fullscreen", ["vlc"]),
        ((), "Write ~/notes/todo.md with a checklist", []),
        (("chrome", "libreoffice_calc"), "Copy the table into the sheet", ["libreoffice", "chrome"]),
        (("os",), "Turn off the bell", ["gnome"]),
    ],
)
def test_the_task_apps_and_its_words_select_priors(apps, instruction, expected):
    assert select_priors(apps, [instruction]) == expected


def test_an_unselected_prior_is_readable_through_the_agents_shell(context):
    bash = BashTool(context)
    try:
        listing = invoke(bash, command="app-priors").text
        printed = invoke(bash, command="app-priors thunderbird").text
        unknown = invoke(bash, command="app-priors mutt").text
    finally:
        bash.close()
    assert all(f"{prior.name}: {heading(prior)}" in listing for prior in APP_PRIORS)
    assert prior_text("thunderbird").strip() in printed and "[exit 0" in printed
    assert "no prior named mutt; known: chrome, gimp" in unknown and "[exit 2" in unknown


def test_every_prior_has_its_file_a_heading_and_no_placeholder():
    assert sorted(p.name for p in APP_PRIORS) == sorted(path.stem for path in PRIORS_DIR.glob("*.md"))
    for prior in APP_PRIORS:
        text = prior.text()
        assert text.startswith(f"## {heading(prior)}\n") and "{home}" not in text and "<!--" not in text


@pytest.mark.apps
def test_the_windows_open_at_the_start_select_priors(tmp_path):
    with LocalSandbox(tmp_path / "home", display=True) as sandbox:
        assert select_priors((), open_window_titles(sandbox)) == []
        sandbox.launch("xmessage -title 'Inbox - Mozilla Thunderbird' 'new mail'")
        deadline = time.monotonic() + WINDOW_WAIT_S
        while not open_window_titles(sandbox) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "Inbox - Mozilla Thunderbird" in open_window_titles(sandbox)
        assert select_priors((), open_window_titles(sandbox)) == ["thunderbird"]


def test_a_sandbox_without_display_has_no_window_titles(context):
    assert open_window_titles(context.sandbox) == []


def user_texts(messages) -> str:
    """Every text the harness sent in user messages: tool results and injected blocks."""
    texts = []
    for message in messages:
        if message.role != "user":
            continue
        for block in message.content:
            if isinstance(block, TextBlock):
                texts.append(block.text)
            elif isinstance(block, ToolResultBlock):
                texts.append(block.text())
    return "\n".join(texts)


def test_the_plan_is_printed_once_per_request_of_the_main_loop(context, tmp_path):
    def plan(**arguments) -> dict:
        return {"tool_calls": [{"name": "plan", "input": arguments}]}

    turns = [
        plan(
            action="set", items=["Inspect the sheet", "Write the totals", "Check them", "Report to the owner"]
        ),
        {"tool_calls": [{"name": "bash", "input": {"command": "echo inspected"}}]},
        plan(action="update", updates=[{"id": 1, "status": "done"}]),
        plan(action="remember", facts={"sheet": "Q3"}),
        plan(action="claim", claims=[{"id": 2}]),
        {"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]},
    ]
    loop = main_loop(context, tmp_path, "Total the Q3 sheet and report.", turns)
    try:
        assert loop.run(context.task).status == "finished"
    finally:
        loop.close_tools()
    requests = loop.model.requests
    assert len(requests) == len(turns)
    for request in requests[1:]:
        sent = user_texts(request.messages)
        assert sent.count("Report to the owner") == 1, sent  # item 4 never changes: only the injected plan
        assert sent.count("<plan>") == 1 and request.messages[-1].content[-1].text.startswith("<plan>")
    last = requests[-1].messages[-1].content[-1]
    assert isinstance(last, TextBlock) and last.text.startswith("<plan>\nPlan (2/4 done")
    assert (
        "[>] 3. Check them" in last.text
        and "[ ] 4. Report to the owner" in last.text
        and "- sheet: Q3" in last.text
    )
