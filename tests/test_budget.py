"""One dollar budget per run: GUI delegations and gate rounds spend from `--max-usd`, priced from the catalog.

The models are the real Anthropic SDK against a local wire-format server whose replies report usage,
so every call is priced like a real one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.app.config import RunConfig
from stateact.app.run import RunResult, execute
from stateact.kernel.messages import Usage
from stateact.kernel.meter import Meter
from stateact.kernel.models.catalog import cost_usd
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels, RunContext
from tests.support.run_events import logged_events
from tests.support.wire_servers import AnthropicWireServer, anthropic_reply

MODEL = "claude-sonnet-5-5"
TURN_USAGE = {"input_tokens": 200_000, "output_tokens": 10_000}
"""Usage that costs half a dollar on MODEL."""
MAX_USD = 1.2
"""Less than the gate's own cap of a round (GATE_MAX_USD), so the run's budget is what stops it."""
SCRIPTED_TURNS = 8
"""Priced turns the server holds for the subloop: more than the budget pays for."""


def test_a_scripted_turn_costs_half_a_dollar():
    assert cost_usd(MODEL, Usage(**TURN_USAGE)) == pytest.approx(0.5)


def run(tmp_path: Path, server: AnthropicWireServer, instruction: str, display: bool) -> RunResult:
    config = RunConfig(
        instruction=instruction,
        models=RoleModels(main=f"anthropic:{MODEL}@{server.base_url}"),
        workdir=tmp_path / "home",
        runs_root=tmp_path / "runs",
        run_id="budget",
        display=display,
        max_usd=MAX_USD,
    )
    return execute(config)


def priced_turns(tool: str, tool_input: dict) -> list[dict]:
    """SCRIPTED_TURNS replies calling `tool`, each costing half a dollar."""
    return [anthropic_reply(tool_calls=[(tool, tool_input)], usage=TURN_USAGE) for _ in range(SCRIPTED_TURNS)]


def assert_cut_off_at_the_budget(result: RunResult, role: str) -> None:
    """The subloop made calls until the run's total reached MAX_USD, then the run ended `budget`."""
    by_role = result.spend["by_role"]
    assert result.status == "budget" and "dollar budget spent" in result.text
    assert by_role[role]["turns"] == 3  # $0.50, $1, then $1.50 >= $1.20: no fourth call
    assert by_role["main"]["turns"] == 1
    assert result.usd == pytest.approx(1.5, abs=0.01)
    responses = logged_events(Path(result.run_dir) / "events.jsonl", "response")
    assert [e.role for e in responses] == ["main", role, role, role]
    saved = json.loads((Path(result.run_dir) / "result.json").read_text(encoding="utf-8"))
    assert saved["status"] == "budget" and saved["spend"]["by_role"][role]["usd"] == pytest.approx(1.5)


@pytest.mark.apps
def test_gui_delegation_is_cut_off_at_the_run_budget_and_the_run_ends_budget(anthropic_server, tmp_path):
    server = anthropic_server(
        anthropic_reply(tool_calls=[("delegate_gui", {"subgoal": "Look at the screen."})]),
        *priced_turns("computer", {"action": "screenshot"}),
    )

    result = run(tmp_path, server, "Look at the screen and tell me what is on it.", display=True)

    assert_cut_off_at_the_budget(result, "gui")
    assert server.remaining == SCRIPTED_TURNS - 3
    (report,) = logged_events(Path(result.run_dir) / "events.jsonl", "gui_report")
    assert report.status == "INCOMPLETE" and "dollar budget spent" in report.remaining


@pytest.mark.slow
def test_gate_round_spends_from_the_run_budget_and_starts_no_fresh_round(anthropic_server, tmp_path):
    server = anthropic_server(
        anthropic_reply(tool_calls=[("finish", {"summary": "Printed the date."})]),
        *priced_turns("bash", {"command": "true"}),
    )

    result = run(tmp_path, server, "Print the date in a terminal.", display=False)

    assert_cut_off_at_the_budget(result, "gate")
    assert server.remaining == SCRIPTED_TURNS - 3
    assert [e.scope for e in logged_events(Path(result.run_dir) / "events.jsonl", "gate_start")] == ["gate#1"]
    assert not logged_events(Path(result.run_dir) / "events.jsonl", "gate_undecided")


@pytest.mark.parametrize(
    ("run_usd", "spent", "own_usd", "limit"),
    [(10.0, 4.0, None, 10.0), (10.0, 4.0, 2.0, 6.0), (10.0, 9.0, 2.0, 10.0), (None, 4.0, 2.0, 6.0)],
)
def test_a_loop_gets_its_own_cap_but_never_more_than_the_run_has_left(
    tmp_path, run_usd, spent, own_usd, limit
):
    meter = Meter()
    meter.add("main", Usage(), spent)
    models = RoleModels(main="scripted:none")
    context = RunContext(tmp_path, "task", None, RunLog(tmp_path / "run"), meter, models, run_usd)
    assert context.dollar_budget(own_usd) == pytest.approx(limit)
    assert context.dollars_spent is (run_usd is not None and spent >= run_usd)
