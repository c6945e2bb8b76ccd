"""Paths given to a sandbox: `~`, `$VARS` and relative paths name the same file on every backend."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.paths import expand_path
from tests.support.osworld_vm_server import served_vm

PATHS = [
    ("~/a b.txt", "a b.txt"),
    ("$HOME/x", "x"),
    ("${HOME}/x", "x"),
    ("{home}/abs/y.txt", "abs/y.txt"),
    ("docs/x", "docs/x"),
    ("price$5.txt", "price$5.txt"),
    ("a$UNDEFINED_VAR_XYZ.txt", "a$UNDEFINED_VAR_XYZ.txt"),
    ("~/sub/${UNDEFINED_VAR_XYZ}/$", "sub/${UNDEFINED_VAR_XYZ}/$"),
]
"""How a path is spelled (`{home}`: the sandbox's home) -> where the file is, relative to the home."""


@pytest.fixture(scope="module", params=["local", "osworld"])
def backend(request, tmp_path_factory):
    """(sandbox, its home folder on this machine) for each backend."""
    home = tmp_path_factory.mktemp(request.param) / "home"
    if request.param == "local":
        with LocalSandbox(home) as sandbox:
            yield sandbox, Path(sandbox.home)
    else:
        with served_vm(home, display=False) as (sandbox, _, local):
            yield sandbox, Path(local.home)


@pytest.mark.parametrize(("spelled", "where"), PATHS)
def test_every_backend_finds_the_same_file(backend, spelled, where):
    sandbox, home = backend
    path, on_disk = spelled.replace("{home}", sandbox.home), home / where
    on_disk.unlink(missing_ok=True)
    assert sandbox.expand(path) == str(on_disk)
    assert not sandbox.exists(path)
    with pytest.raises(FileNotFoundError):
        sandbox.read_file(path)

    written = secrets.token_bytes(32)
    sandbox.write_file(path, written)
    assert on_disk.read_bytes() == written
    assert sandbox.exists(path)

    changed = secrets.token_bytes(32)
    on_disk.write_bytes(changed)
    assert sandbox.read_file(path) == changed


def test_the_home_itself_is_a_folder_on_every_backend(backend):
    sandbox, home = backend
    assert sandbox.expand("~") == sandbox.expand("$HOME") == str(home)
    assert sandbox.exists("~") and sandbox.exists("${HOME}")
    with pytest.raises(IsADirectoryError):
        sandbox.read_file("~")
    with pytest.raises(IsADirectoryError):
        sandbox.write_file("~", b"x")


def test_variables_come_from_the_sandbox_environment(backend):
    sandbox, home = backend
    assert sandbox.run('printf %s "$HOME"').stdout == str(home)
    search_path = sandbox.run('printf %s "$PATH"').stdout
    expanded = sandbox.expand("/x/$PATH").removeprefix("/x/")
    # a VM expands paths in its server's environment; its commands also get the toolkit first on PATH
    assert expanded and search_path.endswith(expanded)


@pytest.mark.parametrize(
    "path",
    [
        "~",
        "~/a b.txt",
        "$HOME/x",
        "${HOME}/x",
        "/abs/$DEFINED_VAR/y",
        "price$5.txt",
        "a$UNDEFINED_VAR_XYZ.txt",
        "/$",
        "/a/${UNCLOSED",
        "/a/${}/b",
        "~other/x",
        "/v/$DEFINED_VAR$DEFINED_VAR",
        "/$HOME_NOT_HOME/x",
    ],
)
def test_the_rule_is_the_vm_servers(path, monkeypatch):
    """Where the VM server's `os.path.expandvars(os.path.expanduser(path))` is absolute, ours agrees."""
    monkeypatch.setenv("HOME", "/home/user")
    monkeypatch.setenv("DEFINED_VAR", "v$HOME")  # a value is not expanded again
    monkeypatch.delenv("UNDEFINED_VAR_XYZ", raising=False)
    monkeypatch.delenv("HOME_NOT_HOME", raising=False)
    server = os.path.expandvars(os.path.expanduser(path))
    ours = expand_path(path, "/home/user", dict(os.environ))
    assert ours == (server if server.startswith("/") else f"/home/user/{server}")


def test_relative_paths_and_bad_input():
    assert expand_path("docs/x", "/home/user/", {}) == "/home/user/docs/x"
    assert expand_path("~/x", "/", {}) == "/x" and expand_path("~", "/", {}) == "/"
    assert expand_path("$HOME/x", "/work/h", {"HOME": "/elsewhere"}) == "/work/h/x"  # HOME is the home
    assert expand_path("~other/x", "/work/h", {}) == "/work/h/~other/x"  # other users' homes are not ours
    with pytest.raises(ValueError, match="empty path"):
        expand_path("", "/home/user", {})
