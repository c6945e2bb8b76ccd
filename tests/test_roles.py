"""The role table: results keys stay what they were, and every role gets its model field and flag."""

import pytest
from typer.testing import CliRunner

from stateact.app.cli import app
from stateact.evals.running.results import model_key
from stateact.kernel.models import RoleSettings
from stateact.kernel.roles import (
    MAIN,
    is_numbered_scope,
    numbered_scope,
    other_roles,
    role_names,
    role_of_scope,
    roles,
)
from stateact.kernel.runtime import RoleModels
from stateact.subagents.screen_settings import ScreenSettings

LOCAL = "openai:small@http://127.0.0.1:1/v1"


@pytest.mark.parametrize(
    ("models", "key"),
    [
        (RoleModels(main="scripted:none"), "m"),
        (
            RoleModels(
                main="scripted:none", gui="openai:ui-tars@http://127.0.0.1:1/v1", judge="anthropic:claude-x"
            ),
            "m+roles-7fc91256",
        ),
        (
            RoleModels(
                main="scripted:none",
                compactor=LOCAL,
                settings={
                    "gui": ScreenSettings(coordinates="resized", max_tokens=512),
                    "web": RoleSettings(temperature=0.2),
                },
            ),
            "m+roles-2763fb17",
        ),
    ],
)
def test_results_keys_filed_before_keep_their_names(models: RoleModels, key: str) -> None:
    assert model_key("m", models) == key


def test_each_role_of_its_own_model_gets_its_own_results_key() -> None:
    keys = {model_key("m", RoleModels(main="scripted:none", **{role: LOCAL})) for role in other_roles()}
    assert len(keys) == len(other_roles()) and "m" not in keys


def test_a_relay_is_filed_under_relay_whatever_its_folder() -> None:
    """A relay's folder is where its files go, not a model: every relay run shares one results key."""
    assert (
        model_key("relay:/tmp/play/h1-calc/relay", RoleModels(main="relay:/tmp/play/h1-calc/relay"))
        == "relay"
    )
    keys = {
        model_key("relay:/tmp/a", RoleModels(main="relay:/tmp/a", gui=f"relay:/tmp/{folder}/gui"))
        for folder in ("one", "two")
    }
    assert len(keys) == 1 and next(iter(keys)).startswith("relay+roles-")
    assert model_key(LOCAL, RoleModels(main=LOCAL)) == LOCAL


def test_every_role_has_a_model_field_and_the_main_model_fills_the_rest() -> None:
    models = RoleModels(main="scripted:quickstart", web=LOCAL)
    assert set(role_names()) == {"main", "gui", "web", "gate", "compactor", "user", "judge"}
    assert models.spec_for("web") == LOCAL
    assert {models.spec_for(role) for role in role_names() if role != "web"} == {"scripted:quickstart"}
    assert models.others() == {role: (LOCAL if role == "web" else None) for role in other_roles()}
    with pytest.raises(ValueError, match="bad model spec"):
        RoleModels(main="scripted:quickstart", gate="nonsense")


def test_every_role_besides_main_has_a_model_flag_with_its_help() -> None:
    for command in (["run"], ["eval", "run"]):
        text = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "300"}).output
        for role in roles():
            flag = f"--{role.name}-model"
            assert (flag in text) == (role.name != MAIN), (command, flag)
        assert "Model spec of the best-of-N judge" in text


def test_scopes_name_their_role() -> None:
    assert role_of_scope("gui#3") == "gui"
    assert role_of_scope(MAIN) == MAIN
    assert role_of_scope(numbered_scope("gate", 12)) == "gate"
    assert is_numbered_scope("web#1") and not is_numbered_scope("web")
