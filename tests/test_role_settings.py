"""Per-role model settings: the roles file and flags, catalog defaults, and their effect on the wire."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.app.role_options import role_settings, settings_warnings
from stateact.kernel import settings
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec
from stateact.kernel.messages import Message, Usage
from stateact.kernel.meter import Meter
from stateact.kernel.models import create_model
from stateact.kernel.models.base import ContextLengthError
from stateact.kernel.models.role_settings import RoleSettings, max_output_tokens, model_info
from stateact.kernel.runtime import RoleModels
from tests.support.wire_servers import openai_reply
from tests.test_providers_wire import Echo, Finish, request_of

SMALL_WINDOW = 8192
LOCAL_MODEL = "qwen2.5-vl-7b-instruct"


def test_roles_file_and_flags_combine_and_bad_input_is_named(tmp_path):
    path = tmp_path / "roles.toml"
    path.write_text('[gui]\nmax_tokens = 1024\ncoordinates = "resized"\n[web]\ntemperature = 0.2\n')
    roles = role_settings(path, max_tokens=["gui=512"], context_window=["gui=8192"])
    assert roles["gui"].max_tokens == 512 and roles["gui"].context_window == 8192
    assert roles["gui"].coordinates == "resized" and roles["web"].temperature == 0.2
    path.write_text("[gui]\nmax_tokenz = 5\n")
    with pytest.raises(ValueError, match="max_tokenz"):
        role_settings(path)
    path.write_text("[painter]\nmax_tokens = 5\n")
    with pytest.raises(ValueError, match="unknown role"):
        role_settings(path)
    with pytest.raises(ValueError, match="ROLE=VALUE"):
        role_settings(None, max_tokens=["1024"])
    with pytest.raises(ValueError, match="greater than 0"):
        role_settings(None, max_tokens=["gui=0"])
    path.write_text('[gui]\naction_format = "uitars"\ntools_in_prompt = true\n')
    with pytest.raises(ValueError, match='tools_in_prompt is for action_format = "qwen_computer_use"'):
        role_settings(path)


def test_catalog_defaults_and_stated_window_and_price():
    assert model_info("gpt-4o", RoleSettings()).context_window == 128_000
    assert max_output_tokens("gpt-4o", RoleSettings(), 8192) == 8192
    unknown = model_info(LOCAL_MODEL, RoleSettings())
    assert (
        unknown.context_window == settings.UNKNOWN_CONTEXT_WINDOW
        and unknown.cost(Usage(input_tokens=10**6)) == 0
    )
    assert max_output_tokens(LOCAL_MODEL, RoleSettings(), 8192) == settings.UNKNOWN_MAX_OUTPUT_TOKENS
    stated = model_info(LOCAL_MODEL, RoleSettings(context_window=SMALL_WINDOW, input_usd=0.5, output_usd=2.0))
    assert stated.context_window == SMALL_WINDOW
    assert stated.cost(Usage(input_tokens=10**6, output_tokens=10**6)) == pytest.approx(2.5)


def test_unknown_model_warning_names_the_settings_to_change():
    specs = {"main": "scripted:quickstart", "gui": f"openai:{LOCAL_MODEL}@http://127.0.0.1:1/v1"}
    (warning,) = settings_warnings(specs, {})
    assert "role gui" in warning and "context_window (assumed 32768)" in warning
    assert "--max-tokens gui=N" in warning
    full = RoleSettings(context_window=8192, max_tokens=1024, input_usd=0, output_usd=0)
    assert settings_warnings(specs, {"gui": full}) == []


def test_settings_reach_the_openai_wire(openai_server):
    server = openai_server(openai_reply("hi"))
    options = RoleSettings(max_tokens=700, temperature=0.1, tool_choice="required")
    create_model(f"openai:gpt-4o@{server.base_url}", "gui", options).complete(
        request_of(Message.user_text("go"))
    )
    body = server.requests[0]
    assert (body["max_tokens"], body["temperature"], body["tool_choice"]) == (700, 0.1, "required")


def test_an_8k_server_works_once_max_tokens_is_set_for_the_role(openai_server, run_log):
    server = openai_server(
        openai_reply(tool_calls=[("echo", {"text": "hi"})]),
        openai_reply(tool_calls=[("finish", {"answer": "ok"})]),
        context_window=SMALL_WINDOW,
    )
    spec = f"openai:gpt-4o@{server.base_url}"
    with pytest.raises(ContextLengthError):  # the catalog's 8192 output tokens leave no room for a prompt
        create_model(spec, "gui").complete(request_of(Message.user_text("go")))
    loop = AgentLoop(
        LoopSpec(
            scope="gui",
            tools=[Echo(), Finish()],
            system_prompt="You are a test agent.",
            budget=Budget(max_turns=5, max_usd=None, max_seconds=None),
        ),
        model=create_model(spec, "gui", RoleSettings(max_tokens=1024, context_window=SMALL_WINDOW)),
        log=run_log,
        meter=Meter(),
    )
    assert loop.run("Echo, then finish.").status == "finished"
    assert [r.get("max_tokens") for r in server.requests] == [settings.MODEL_MAX_OUTPUT_TOKENS, 1024, 1024]


def test_run_config_keeps_role_settings_and_the_cli_rejects_bad_flags(tmp_path):
    models = RoleModels(main="scripted:quickstart", settings={"gui": RoleSettings(max_tokens=10)})
    assert RoleModels.model_validate_json(models.model_dump_json()).settings_for("gui").max_tokens == 10
    with pytest.raises(ValueError, match="unknown role"):
        RoleModels(main="scripted:quickstart", settings={"painter": RoleSettings()})
    result = CliRunner().invoke(app, ["run", "x", "--model", "scripted:quickstart", "--max-tokens", "gui"])
    assert result.exit_code == 2 and "ROLE=VALUE" in result.output
