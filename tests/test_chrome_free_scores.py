"""A do-nothing agent gets no free score on OSWorld's chrome/99146c54 ("delete my browsing data every time
I close the browser"): the sandbox's Chromium is stopped by the task's `pkill chrome` as Google Chrome is on
the VM, and the content-settings key it writes by itself in a fresh profile is not taken for the user's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.sandbox.local import LocalSandbox
from tests.support.osworld_agent import run_scripted_task

pytestmark = pytest.mark.apps

CHROME = "google-chrome --remote-debugging-port=1337"
DELETE_ON_CLOSE = {  # the shape of OSWorld's chrome/99146c54-4f37-4ab8-9327-5f3291665e1e
    "id": "99146c54-4f37-4ab8-9327-5f3291665e1e",
    "snapshot": "chrome",
    "instruction": "Please help me set Chrome to delete my browsing data automatically every time I close the browser.",
    "config": [
        {"type": "launch", "parameters": {"command": CHROME.split()}},
        {
            "type": "launch",
            "parameters": {"command": ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]},
        },
    ],
    "related_apps": ["chrome"],
    "evaluator": {
        "postconfig": [
            {"type": "launch", "parameters": {"command": ["pkill", "chrome"]}},
            {"type": "launch", "parameters": {"command": CHROME.split()}},
            {"type": "sleep", "parameters": {"seconds": 3}},
        ],
        "func": "exact_match",
        "result": {"type": "data_delete_automacally"},
        "expected": {"type": "rule", "rules": {"expected": "true"}},
    },
}
PREFERENCES = "~/.config/google-chrome/Default/Preferences"
SESSION_ONLY_COOKIES = (
    'pkill chrome; while pgrep -x chromium > /dev/null; do sleep 0.2; done; python3 -c "import json, os; '
    f"f = os.path.expanduser('{PREFERENCES}'); p = json.load(open(f)); "
    "p['profile'].setdefault('default_content_setting_values', {})['cookies'] = 4; json.dump(p, open(f, 'w'))\""
)
"""The setting the task asks for, made while the browser is stopped (cookies and site data kept for the
session only)."""


STOP_CHECK = "sleep 8; pkill chrome; sleep 3; pgrep -x chromium || echo stopped"
"""Run after scoring: the browser the postconfig started again is stopped by `pkill chrome`."""


def run(tmp_path: Path, commands: list[str], after: str = "") -> tuple[float | None, str]:
    """The task's score when the agent runs `commands`, and the output of `after` run in the sandbox then."""
    task = tmp_path / "chrome" / "delete-on-close.json"
    task.parent.mkdir(parents=True)
    task.write_text(json.dumps(DELETE_ON_CLOSE))
    with LocalSandbox(tmp_path / "home", display=True, isolation="bwrap") as sandbox:
        outcome = run_scripted_task(task, sandbox, tmp_path, commands)
        output = sandbox.run(after).stdout if after else ""
    return outcome.score, output


def test_doing_nothing_scores_zero_and_pkill_chrome_stops_the_browser(tmp_path):
    # the agent waits long enough for Chromium to write its Preferences
    score, stopped = run(tmp_path, ["sleep 12"], STOP_CHECK)
    assert score == 0.0
    assert stopped.strip() == "stopped"


def test_the_setting_the_task_asks_for_scores_one(tmp_path):
    score, _ = run(tmp_path, ["sleep 12", SESSION_ONLY_COOKIES])
    assert score == 1.0
