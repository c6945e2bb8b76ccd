"""Task files on desktops: LibreOffice windows on a LocalSandbox display and through the VM server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.setup import SetupContext, SetupError, run_steps, wait_for_window
from stateact.evals.osworld.task import Step
from stateact.evals.running.runner import run_task_file
from stateact.sandbox.local import LocalSandbox
from tests.support.docker_stand_in import free_port
from tests.support.osworld_agent import scripted_agent
from tests.support.osworld_vm_server import vm_under_test
from tests.test_osworld_tasks import FIXTURES, cache  # noqa: F401  (the cache fixture)

pytestmark = pytest.mark.apps

CLOSE_CALC = "wmctrl -c 'Sales.xlsx - LibreOffice Calc'; for i in $(seq 100); do wmctrl -l | grep -q Sales.xlsx || break; sleep 0.1; done"


def _run(task: str, sandbox, commands, root: Path, cache_dir: Path, screenshot: bool = False):
    return run_task_file(
        FIXTURES / task,
        sandbox,
        scripted_agent(root / "runs", commands, screenshot=screenshot),
        cache_dir=cache_dir,
        results_dir=root / "results",
        model="scripted:test",
    )


@pytest.fixture(scope="module")
def vm(tmp_path_factory):
    """The server double over a local desktop, or the real server at OSWORLD_SERVER_URL (no request log)."""
    with vm_under_test(tmp_path_factory.mktemp("vm") / "home") as parts:
        yield parts


def test_window_steps_on_a_local_display(tmp_path, cache):  # noqa: F811
    with LocalSandbox(tmp_path / "home", display=True) as sandbox:
        passed = _run("libreoffice_calc/window-steps.json", sandbox, ["true"], tmp_path / "pass", cache)
        failed = _run("libreoffice_calc/window-steps.json", sandbox, [CLOSE_CALC], tmp_path / "fail", cache)
    assert (passed.score, failed.score) == (1.0, 0.0)
    details = json.loads((passed.result_dir / "score.json").read_text())
    opened = next(step for step in details["setup"] if step["type"] == "open")
    assert opened["window"] == "Sales.xlsx - LibreOffice Calc"
    moved = [step for step in details["setup"] if step["type"] == "execute"][-1]
    assert "at 640 400 of 1280 800" in moved["output"]
    assert [step["type"] for step in details["postconfig"]] == ["close_window", "sleep"]


def test_window_steps_through_the_vm_server(vm, tmp_path, cache):  # noqa: F811
    sandbox, server, _ = vm
    outcome = _run("libreoffice_calc/window-steps.json", sandbox, ["true"], tmp_path, cache, screenshot=True)
    assert outcome.score == 1.0
    if server is not None:
        assert "POST /setup/launch" in server.requests and "POST /setup/open_file" not in server.requests
    steps = [json.loads(line) for line in (outcome.result_dir / "traj.jsonl").read_text().splitlines()]
    shot = steps[0]["screenshot_file"]
    assert shot.startswith("step_1_") and (outcome.result_dir / shot).read_bytes().startswith(b"\x89PNG")
    sandbox.run(CLOSE_CALC)


def test_file_tasks_through_the_vm_server(vm, tmp_path, cache):  # noqa: F811
    sandbox, server, _ = vm
    good = [
        "tr A-Z a-z < ~/input.csv > ~/report.csv",
        "printf 42 > ~/answer.txt",
        "cp ~/notes.txt ~/notes_out.txt",
    ]
    assert _run("os/report-files.json", sandbox, good, tmp_path / "pass", cache).score == 1.0
    assert sandbox.read_file("~/Desktop/launched.txt") == b"launched\n"
    no_notes = ["rm ~/notes_out.txt", *good[:2]]  # the VM keeps its files between tasks
    assert _run("os/report-files.json", sandbox, no_notes, tmp_path / "fail", cache).score == 0.0
    if server is not None:
        assert {"POST /setup/upload", "POST /file", "POST /setup/launch"} <= set(server.requests)


def test_chrome_open_tabs_shows_the_pages(tmp_path):
    """A chrome task's start: Chrome with a DevTools port, socat forwarding the sandbox's CDP port to
    it, then the step opens its tab over DevTools."""
    tab = "data:text/html,<title>probe-tab</title>"
    chrome_port = free_port()
    with LocalSandbox(tmp_path / "home", display=True) as sandbox:
        sandbox.cdp_port = free_port()
        context = SetupContext(cache=FileCache(tmp_path))
        launches = [
            f"google-chrome --remote-debugging-port={chrome_port}",
            f"socat tcp-listen:{sandbox.cdp_port},fork tcp:localhost:{chrome_port}",
        ]
        steps = [Step(type="launch", parameters={"command": command}) for command in launches]
        run_steps(
            [*steps, Step(type="chrome_open_tabs", parameters={"urls_to_open": [tab]})], sandbox, context
        )
        assert wait_for_window(sandbox, "probe-tab", timeout=60).startswith("probe-tab")
        with pytest.raises(SetupError, match="no window titled with 'other-tab'"):
            wait_for_window(sandbox, "other-tab", timeout=1)
        # the corpus's chrome tasks then raise the browser by Google Chrome's title, which Chromium lacks
        [raised] = run_steps(
            [Step(type="activate_window", parameters={"window_name": "Google Chrome"})], sandbox, context
        )
        assert raised["matched"] and "failed" not in raised
