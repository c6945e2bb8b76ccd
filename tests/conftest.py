"""Shared fixtures: local model API servers, a run log in a temporary folder, a started local sandbox,
the office suites' generated files.

Tests that start a real application (LibreOffice, Chromium, an X display, a Ray cluster) carry the
`apps` marker; those that take seconds (the command line as a process, whole runs, gate rounds, VM
doubles, bubblewrap checks, real timeouts) carry the `slow` marker, and those that boot the test guest
(a qemu VM) the `vm` marker; `pytest -m "not apps and not slow"`
is the fast subset. A test module marks them with `pytestmark` or a decorator; `apps` also by naming
the fixtures that start them in `APP_FIXTURES` (every test using one of those, directly or through
another fixture, gets the marker)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from stateact.evals.fixtures.build import build_fixtures
from stateact.kernel.runlog import RunLog
from stateact.sandbox.local import LocalSandbox
from tests.support.vm_guest import SharedGuest, guest_image
from tests.support.wire_servers import AnthropicWireServer, OpenAIWireServer, Turn, WireServer


def _server_factory(kind: type[WireServer]) -> Iterator[Callable[..., WireServer]]:
    """Start servers on demand; stop them all afterwards and fail on any invalid request."""
    started: list[WireServer] = []

    def start(*turns: Turn, **options) -> WireServer:
        server = kind(turns, **options).start()
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()
    for server in started:
        server.check()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        app_fixtures = getattr(getattr(item, "module", None), "APP_FIXTURES", frozenset())
        if app_fixtures & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.apps)


@pytest.fixture
def anthropic_server() -> Iterator[Callable[..., AnthropicWireServer]]:
    """`anthropic_server(*turns)` starts an AnthropicWireServer playing those turns."""
    yield from _server_factory(AnthropicWireServer)


@pytest.fixture
def openai_server() -> Iterator[Callable[..., OpenAIWireServer]]:
    """`openai_server(*turns, strict_alternation=True)` starts an OpenAIWireServer playing those turns."""
    yield from _server_factory(OpenAIWireServer)


@pytest.fixture
def run_log(tmp_path) -> Iterator[RunLog]:
    log = RunLog(tmp_path / "run")
    try:
        yield log
    finally:
        log.close()


@pytest.fixture
def local(tmp_path) -> Iterator[LocalSandbox]:
    """A started local sandbox (no display) whose home is `tmp_path/home`; closed after the test."""
    sandbox = LocalSandbox(tmp_path / "home")
    try:
        sandbox.start()
        yield sandbox
    finally:
        sandbox.close()


@pytest.fixture(scope="session")
def built_fixtures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The office suites' generated files (`evals.fixtures.build`), built once for every test that reads them."""
    folder = tmp_path_factory.mktemp("fixtures")
    build_fixtures(folder)
    return folder


@pytest.fixture(scope="session")
def vm_guest_image() -> Path:
    """The test guest's folder (guest.qcow2, vmlinuz, initrd.img): built by scripts/build_vm_guest.sh on first
    use, then cached by the script's content hash (tests/support/vm_guest.py)."""
    return guest_image()


@pytest.fixture(scope="session")
def vm_guest(vm_guest_image: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedGuest]:
    """The test guest booted once for the run, for the tests that need only a started session on it."""
    guest = SharedGuest(vm_guest_image, tmp_path_factory.mktemp("shared-guest"))
    try:
        yield guest
    finally:
        guest.close()
