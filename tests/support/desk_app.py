"""The Desk form app (evals/fixtures/apps/desk.py) running on a real display for a test."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from stateact.evals.fixtures.build import PROGRAMS
from stateact.sandbox.local import LocalSandbox
from tests.support.docker_stand_in import free_port
from tests.test_gui_desktop import wait_for

DESK = next(p for p in PROGRAMS if p.name == "desk.py")
STATE_PORT = next(p for p in PROGRAMS if p.name == "state_port.py")
DESK_SCREEN = (1280, 800)


@contextmanager
def running_desk(
    tmp_path: Path, title: str, options: str, files: dict[str, bytes] | None = None
) -> Iterator[tuple[LocalSandbox, int]]:
    """A sandbox with the Desk titled `title` started with `options` (paths may use `{home}`) and its
    status port, its window focused; `files` are written into the home first. Yields the sandbox and
    the port."""
    sandbox = LocalSandbox(tmp_path / "home", display=True, size=DESK_SCREEN)
    sandbox.start()
    port = free_port()
    try:
        for name, data in {
            "desk.py": DESK.read_bytes(),
            "state_port.py": STATE_PORT.read_bytes(),
            **(files or {}),
        }.items():
            sandbox.write_file(f"{sandbox.home}/{name}", data)
        command = f"python3 {sandbox.home}/desk.py --title '{title}' {options.format(home=sandbox.home)} --port {port}"
        sandbox.launch(command)
        wait_for(lambda: title in sandbox.run("wmctrl -l").stdout, "the app's window")
        assert sandbox.run(f"sleep 0.5; wmctrl -a '{title}'").returncode == 0
        yield sandbox, port
    finally:
        sandbox.close()
