"""Sandbox specs and the backend registry (sandbox/backends.py): parsing, the factory, the capabilities."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.app.config import RunConfig
from stateact.kernel.runtime import RoleModels
from stateact.sandbox import backends
from stateact.sandbox.backends import Backend, SandboxOptions, make_sandbox, parse_spec
from stateact.sandbox.base import BrowserPlace, SandboxError
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.osworld import OSWorldSandbox


def config(**fields) -> RunConfig:
    return RunConfig(instruction="x", models=RoleModels(main="scripted:x.json"), **fields)


def test_specs_are_read_by_the_backend_of_their_scheme():
    assert (parse_spec("local").scheme, parse_spec("local").address) == ("local", "")
    vm = parse_spec("osworld://10.0.0.5")
    assert (vm.scheme, vm.address, str(vm)) == ("osworld", "http://10.0.0.5:5000", "osworld://10.0.0.5")
    with pytest.raises(SandboxError, match=r"unknown sandbox 'vm://x': use `local` or `osworld://HOST:PORT`"):
        parse_spec("vm://x")
    with pytest.raises(SandboxError, match="bad port"):
        parse_spec("osworld://host:abc")
    with pytest.raises(SandboxError, match="the local sandbox takes no address"):
        parse_spec("local://elsewhere")


def test_the_factory_builds_each_backend_from_the_spec_and_its_options(tmp_path):
    local = make_sandbox("local", SandboxOptions(tmp_path / "home", isolation="bwrap"))
    assert isinstance(local, LocalSandbox) and local.home == "/home/user" and local.tag
    assert local.browser_place() is BrowserPlace.INSIDE
    plain = make_sandbox(parse_spec("local"), SandboxOptions(tmp_path / "home", isolation="none"))
    assert plain.home == str((tmp_path / "home").resolve()) and plain.browser_place() is BrowserPlace.HOST
    vm = make_sandbox("osworld://127.0.0.1:5001", SandboxOptions(tmp_path, cdp_url="http://127.0.0.1:9"))
    assert isinstance(vm, OSWorldSandbox) and vm.base_url == "http://127.0.0.1:5001"
    assert (vm.browser_place(), vm.web_browser_url) == (BrowserPlace.ATTACHED, "http://127.0.0.1:9")
    assert (vm.tag, vm.full_system) == (None, True)


def test_a_config_holds_the_parsed_spec_and_saves_its_text(tmp_path):
    vm = config(sandbox="osworld://vmhost:5002", cdp_url="http://vmhost:9222")
    assert vm.sandbox.address == "http://vmhost:5002" and vm.isolation is None
    saved = json.loads(json.dumps(vm.model_dump(mode="json")))
    assert saved["sandbox"] == "osworld://vmhost:5002"
    assert RunConfig.model_validate(saved).sandbox == vm.sandbox
    assert vm.make_sandbox(tmp_path).web_browser_url == "http://vmhost:9222"
    local = config(workdir=tmp_path / "home", isolation="bwrap")
    assert local.sandbox_options(tmp_path / "home").hidden == (local.runs_root,)
    assert local.sandbox_home(tmp_path / "home") == "/home/user"
    with pytest.raises(ValueError, match="unknown sandbox 'vm://x'"):
        config(sandbox="vm://x")


def test_a_registered_backend_is_taken_by_the_config_and_the_factory(tmp_path, monkeypatch):
    def build(spec, options):
        return LocalSandbox(Path(options.workdir) / spec.address, isolation="none")

    twin = Backend("twin", "twin://FOLDER", lambda text: text.removeprefix("twin://"), build)
    monkeypatch.setitem(backends._BACKENDS, "twin", twin)
    made = config(sandbox="twin://inner", cdp_url="ws://127.0.0.1:1").make_sandbox(tmp_path)
    assert made.home == str(tmp_path / "inner") and made.browser_place() is BrowserPlace.ATTACHED
    with pytest.raises(SandboxError, match=r"use `local` or `osworld://HOST:PORT` or `twin://FOLDER`"):
        parse_spec("vm://x")
