"""A local sandbox's home gets the settings of OSWorld's VM image that checkers read: a do-nothing agent gets no
free score from VLC being the one video player installed here, and VLC's HTTP interface answers its getter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.evals.osworld.getters_vm import VIDEO_TYPES
from stateact.sandbox.local import LocalSandbox
from tests.support.osworld_agent import run_scripted_task

pytestmark = [pytest.mark.apps, pytest.mark.slow]

VLC_DEFAULT = {
    "id": "vlc-default",
    "instruction": "Make VLC the program my videos open with.",
    "config": [],
    "evaluator": {
        "func": "check_include_exclude",
        "result": {"type": "default_video_player"},
        "expected": {"type": "rule", "rules": {"include": ["vlc.desktop"]}},
    },
}
VLC_PLAYING = {
    "id": "vlc-playing",
    "instruction": "Play ~/clip.mp4 in VLC.",
    "config": [
        {"type": "launch", "parameters": {"command": "vlc"}},
        {"type": "sleep", "parameters": {"seconds": 3}},
    ],
    "evaluator": {
        "func": "is_vlc_playing",
        "result": {"type": "vlc_playing_info", "dest": "status.xml"},
        "expected": {"type": "rule", "rules": {"type": "file", "file_name": "clip.mp4"}},
    },
}
MAKE_VLC_DEFAULT = "xdg-mime default vlc.desktop " + " ".join(f"video/{name}" for name in VIDEO_TYPES)


def run(tmp_path: Path, task: dict, commands: list[str]) -> float | None:
    path = tmp_path / "multi_apps" / f"{task['id']}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(task))
    with LocalSandbox(tmp_path / "home", display=True, isolation="bwrap") as sandbox:
        outcome = run_scripted_task(path, sandbox, tmp_path, commands)
    return outcome.score


def test_doing_nothing_leaves_the_images_default_player_and_scores_zero(tmp_path):
    assert run(tmp_path, VLC_DEFAULT, ["true"]) == 0.0


def test_making_vlc_the_default_scores_one(tmp_path):
    assert run(tmp_path, VLC_DEFAULT, [MAKE_VLC_DEFAULT]) == 1.0


def test_vlcs_http_interface_answers_its_getter(tmp_path):
    assert run(tmp_path, VLC_PLAYING, ["true"]) == 0.0  # not playing: scored, not a getter error
