"""What a change touches, measured: a subagent role written as three throwaway files (its module, its
prompt, its registry line) and a metric family written as one, outside the repository, are taken up
by every part of the harness that names roles or metrics: the command line, the settings tables and
run configs, the main prompt, the run log's events, the run-start hooks and the evaluator. The "One place
per change" table of docs/architecture.md states these counts."""

from __future__ import annotations

import importlib
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

import stateact.app  # noqa: F401  (every role, as a run has them)
from stateact.app.cli import app
from stateact.app.role_options import role_settings
from stateact.app.variants import get_variant
from stateact.evals.osworld import metrics
from stateact.evals.osworld.metrics import find_metric
from stateact.evals.osworld.scoring import check_evaluator_known
from stateact.evals.osworld.task import Task, TaskError
from stateact.evals.running.runner import run_task_file
from stateact.kernel import events as kernel_events
from stateact.kernel import roles as kernel_roles
from stateact.kernel.loop import AgentLoop
from stateact.kernel.prompts import render_main_prompt
from stateact.kernel.runtime import RoleModels
from stateact.subagents.events import SubagentReportEvent
from stateact.subagents.screen_loop import ScreenLoop
from tests.support.osworld_agent import scripted_agent

ROLE_FILES = {
    "notes_role.py": '''
        """The notes subagent: its settings, report form, prompt and delegate tool."""
        from pathlib import Path
        from typing import Literal

        from pydantic import BaseModel, Field

        from stateact.kernel.loop import LoopSpec
        from stateact.kernel.models.role_settings import RoleSettings
        from stateact.kernel.prompts.loader import render_prompt
        from stateact.kernel.tools.base import Tool
        from stateact.subagents.delegation import DONE, ERROR, FAIL, INCOMPLETE, ReportForm, brief_text
        from stateact.subagents.delegation import delegation_budget, run_delegation
        from stateact.subagents.endings import EndingWords, ending_tools

        FORM = ReportForm("Notes", "Notes {scope}: {status}", dict.fromkeys((DONE, FAIL, ERROR, INCOMPLETE), ""), True)
        WORDS = EndingWords(done="Notes written.", fail="Cannot.", fields={"summary": "What.", "reason": "Why."})
        PREPARED = []


        class NotesSettings(RoleSettings):
            style: Literal["bullets", "prose"] = "bullets"


        def prepare(context):
            PREPARED.append(context.run_dir)


        class DelegateNotesTool(Tool):
            name = "delegate_notes"
            description = "Hand a note-taking subgoal to the notes subagent."

            class Input(BaseModel):
                subgoal: str = Field(min_length=1)

            def __init__(self, context):
                self.run_context = context

            def run(self, params):
                style = self.run_context.models.settings_for("notes").style
                prompt = render_prompt(Path(__file__).parent / "notes.md", style=style)
                budget = delegation_budget(self.run_context, 3, 60.0)
                spec = LoopSpec(self.run_context.log.next_scope("notes"), ending_tools(WORDS), prompt, budget)
                loop = self.run_context.loop(spec)
                return run_delegation(loop, brief_text(params.subgoal, ""), FORM).tool_result()
    ''',
    "notes.md": "You take notes as {{style}}. End with done or fail.\n",
    "notes_registry.py": """
        from stateact.kernel.roles import Role
        from stateact.subagents.events import register_subagent
        from notes_role import NotesSettings

        register_subagent(Role("notes", delegate="notes_role:DelegateNotesTool", brief="# Notes (`delegate_notes`)\\nIt takes notes.", settings=NotesSettings, prepare="notes_role:prepare"))
    """,
}


@pytest.fixture
def notes_files(tmp_path, monkeypatch):
    """The notes role's three files, registered as `subagents/roles.py` would, for this test only."""
    monkeypatch.setattr(kernel_roles, "_REGISTRY", dict(kernel_roles._REGISTRY))
    monkeypatch.setattr(kernel_events, "EVENT_TYPES", dict(kernel_events.EVENT_TYPES))
    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in ROLE_FILES.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    monkeypatch.syspath_prepend(str(folder))
    for module in ("notes_role", "notes_registry"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    importlib.import_module("notes_registry")
    yield folder
    for module in ("notes_role", "notes_registry"):
        sys.modules.pop(module, None)


def test_a_role_in_three_files_gets_its_flag_settings_brief_report_event_and_start_hook(
    notes_files, tmp_path
):
    assert sorted(p.name for p in notes_files.iterdir() if p.is_file()) == sorted(ROLE_FILES)  # 3 files
    text = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "300"}).output
    assert "--notes-model" in text
    table = tmp_path / "roles.toml"
    table.write_text('[notes]\nstyle = "prose"\nmax_tokens = 64\n')
    (notes,) = role_settings(table, temperature=["notes=0.5"]).values()
    assert (notes.style, notes.max_tokens, notes.temperature) == ("prose", 64, 0.5)
    table.write_text('[web]\nstyle = "prose"\n')
    with pytest.raises(ValueError, match="style"):
        role_settings(table)
    with pytest.raises(ValidationError):
        RoleModels(main="scripted:none", settings={"notes": {"style": "haiku"}})
    models = RoleModels(main="scripted:none", settings={"notes": notes})
    assert RoleModels.model_validate_json(models.model_dump_json()).settings_for("notes").style == "prose"
    tools = {"bash", "finish"}
    assert "# Notes (`delegate_notes`)" in render_main_prompt(tools | {"delegate_notes"})
    assert "delegate_notes" not in render_main_prompt(tools)
    assert issubclass(kernel_events.EVENT_TYPES["notes_report"], SubagentReportEvent)
    (role,) = [r for r in kernel_roles.roles() if r.name == "notes"]
    assert get_variant("stateact").has_part(role) and not get_variant("bash-only").has_part(role)


@pytest.mark.slow
def test_a_fresh_run_calls_the_start_hook_of_each_role_it_has(notes_files, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "finish", "input": {"summary": "done"}}]}]))
    runs = tmp_path / "runs"
    for harness, prepared in (("bash-only", 0), ("no-verify", 1)):
        command = ["run", "Say done.", "--model", f"scripted:{script}", "--harness", harness, "--no-display"]
        command += ["--workdir", str(tmp_path / harness), "--runs-root", str(runs)]
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output
        assert len(sys.modules["notes_role"].PREPARED) == prepared, harness
    (run_dir,) = sys.modules["notes_role"].PREPARED
    assert run_dir.parent == runs


def test_run_configs_written_before_the_role_settings_moved_still_load():
    old = {  # a config.json's models, as written when RoleSettings held the GUI fields for every role
        "main": "scripted:x",
        "settings": {
            "gui": {
                "max_tokens": 5,
                "coordinates": "resized",
                "keep_screenshots": None,
                "action_format": "tools",
            },
            "web": {
                "max_tokens": 3,
                "coordinates": "pixels",
                "batch_screenshots": "last",
                "min_pixels": 3136,
            },
            "main": {"action_format": "uitars", "tools_in_prompt": False},
        },
    }
    models = RoleModels.model_validate_json(json.dumps(old))
    assert models.settings_for("gui").coordinates == "resized" and models.settings_for("web").max_tokens == 3
    assert models.settings_for("main").action_format == "uitars"
    assert "coordinates" not in models.model_dump()["settings"]["web"]
    with pytest.raises(ValidationError, match="coordinates"):  # a GUI setting the web role never used
        RoleModels(main="scripted:x", settings={"web": {"coordinates": "resized"}})


def test_the_screen_loop_overrides_no_private_method_of_the_kernel_loop():
    private = {name for name in vars(AgentLoop) if name.startswith("_") and not name.startswith("__")}
    assert not private & set(vars(ScreenLoop)), private & set(vars(ScreenLoop))


FAMILY = '''
    """A throwaway metric family: does the file hold as many words as the rules say?"""
    from stateact.evals.osworld.metrics.rules import MetricUnsupported


    def word_count_is(result, rules, **options):
        return float(result is not None and len(open(result).read().split()) == rules["words"])


    def check_word_options(options):
        if options.get("language"):
            raise MetricUnsupported("word_count_is: no `language` option here")


    METRICS = {"word_count_is": word_count_is}
    OPTION_CHECKS = {"word_count_is": check_word_options}
'''


def word_task(tmp_path: Path, options: dict) -> Path:
    task = {
        "id": "word-count",
        "instruction": "Write three words into ~/words.txt.",
        "config": [],
        "evaluator": {
            "func": "word_count_is",
            "result": {"type": "vm_file", "path": "/home/user/words.txt", "dest": "words.txt"},
            "expected": {"type": "rule", "rules": {"words": 3}},
            "options": options,
        },
    }
    path = tmp_path / "tasks" / "os" / "word-count.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(task))
    return path


def test_a_metric_family_in_one_file_is_found_and_scored_by_name(tmp_path, local, monkeypatch):
    monkeypatch.setattr(metrics, "METRICS", dict(metrics.METRICS))
    monkeypatch.setattr(metrics, "OPTION_CHECKS", dict(metrics.OPTION_CHECKS))
    monkeypatch.setattr(metrics, "__path__", [*metrics.__path__, str(tmp_path / "family")])
    (tmp_path / "family").mkdir()
    (tmp_path / "family" / "word_counts.py").write_text(textwrap.dedent(FAMILY).lstrip())
    monkeypatch.delitem(sys.modules, "stateact.evals.osworld.metrics.word_counts", raising=False)
    assert find_metric("word_count_is") is None
    metrics.gather_families()
    assert find_metric("word_count_is").__name__ == "word_count_is"
    with pytest.raises(TaskError, match="no `language` option"):
        check_evaluator_known(
            Task.model_validate(json.loads(word_task(tmp_path, {"language": "fr"}).read_text()))
        )
    outcome = run_task_file(
        word_task(tmp_path / "run", {}),
        local,
        scripted_agent(tmp_path / "runs", ["echo one two three > ~/words.txt"]),
        cache_dir=tmp_path / "cache",
        results_dir=tmp_path / "results",
        model="scripted:test",
    )
    assert outcome.score == 1.0
    sys.modules.pop("stateact.evals.osworld.metrics.word_counts", None)


def test_the_metrics_package_names_no_family_and_each_metric_has_one_table_line():
    init = Path(metrics.__file__).read_text(encoding="utf-8")
    families = [m for m in sys.modules.values() if m.__name__.startswith("stateact.evals.osworld.metrics.")]
    families = [m.__name__.rpartition(".")[2] for m in families if hasattr(m, "METRICS")]
    assert len(families) >= 19 and "from evals.osworld.metrics import" not in init
    assert not [name for name in families if re.search(rf"metrics\.{name}\b|\b{name}\.METRICS", init)]
    for name, metric in metrics.METRICS.items():
        tables = [
            module
            for module in sys.modules.values()
            if (module.__name__ or "").startswith("stateact.evals.osworld.metrics.")
            and name in getattr(module, "METRICS", {})
        ]
        assert [m.__name__ for m in tables] == [metric.__module__], name
