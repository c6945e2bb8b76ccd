"""An isolated local sandbox holds what a task on OSWorld's VM image finds: the user `user`, the home's
folders, a session D-Bus with dconf, `sudo` with the image's password; a task that needs more is refused
before its setup runs, and an agent that only finishes solves none of these tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateact.evals.osworld.cache import FileCache
from stateact.evals.osworld.needs import missing_needs
from stateact.evals.osworld.setup import SetupContext, run_steps, wait_for_window
from stateact.evals.osworld.task import Step, load_task
from stateact.sandbox.isolation import bwrap_problem
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.runtime import runtime_ready
from tests.test_setup_honesty import IMAGE_TASKS, command_task, finish_only

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(bwrap_problem()) or not runtime_ready(),
        reason="bubblewrap or the sandbox Python is not available",
    ),
]


@pytest.fixture
def box(tmp_path):
    with LocalSandbox(tmp_path / "home", isolation="bwrap") as sandbox:
        yield sandbox


def test_the_user_is_user_with_the_images_home_and_hostname(box):
    assert box.run("whoami; id -gn; echo ~user; getent passwd user | cut -d: -f6,7").stdout.split() == [
        "user",
        "user",
        "/home/user",
        "/home/user:/bin/bash",
    ]
    assert box.run("hostname").stdout == box.run("cat /etc/hostname").stdout
    folders = box.run("ls ~ && xdg-user-dir DESKTOP && xdg-user-dir DOWNLOAD").stdout.split()
    assert {"Desktop", "Documents", "Downloads", "Music", "Pictures", "Public", "Templates", "Videos"} <= set(
        folders
    )
    assert folders[-2:] == ["/home/user/Desktop", "/home/user/Downloads"]


def test_a_gsettings_change_reads_back_from_a_new_shell(box, tmp_path):
    assert box.run("gsettings set org.gnome.desktop.interface text-scaling-factor 1.25").ok
    shell = box.open_shell(tmp_path / "scratch")
    read = shell.run("gsettings get org.gnome.desktop.interface text-scaling-factor", timeout=20)
    assert read.output.strip() == "1.25"
    assert (
        box.run("gsettings get org.gnome.desktop.screensaver lock-enabled").stdout == "false\n"
    )  # the image's


def test_settings_persist_in_the_home_across_sandboxes(tmp_path):
    with LocalSandbox(tmp_path / "home", isolation="bwrap") as first:
        assert first.run("gsettings set org.gnome.desktop.screensaver lock-enabled true").ok
    with LocalSandbox(tmp_path / "home", isolation="bwrap") as second:  # kept, not seeded again
        assert second.run("gsettings get org.gnome.desktop.screensaver lock-enabled").stdout == "true\n"


def test_sudo_takes_the_images_password_and_refuses_system_changes(box):
    root = box.run("echo password | sudo -S sh -c 'id -u; touch ~/made-as-root'")
    assert root.ok and root.stdout == "0\n", root.output
    assert box.run("stat -c %U ~/made-as-root").stdout == "user\n"  # root of the sandbox's own namespace
    wrong = box.run("echo guess | sudo -S id")
    assert not wrong.ok and "incorrect password" in wrong.stderr
    install = box.run("echo password | sudo -S apt-get install -y zsh")
    assert not install.ok and "needs a VM: `apt-get install -y zsh`" in install.stderr
    no_terminal = box.run("sudo id")
    assert not no_terminal.ok and "use the -S option" in no_terminal.stderr


@pytest.mark.parametrize(
    ("task", "outcome"),
    [
        ("default-shell.json", "needs a VM: the setup runs `sudo apt-get`"),
        ("install-module.json", "needs a VM: the setup runs `sudo apt-get`"),
        ("remove-package.json", "needs a VM: the checker reads the installed packages"),
        ("terminal-size.json", "needs a VM: the checker reads the desktop's accessibility tree"),
        ("unreachable-site.json", "this machine lacks what the task needs: network: https://shop.invalid/"),
        ("end-background-job.json", 0.0),
        ("screen-lock.json", 0.0),
    ],
)
def test_a_finish_only_agent_solves_none_of_the_image_tasks(task, outcome, box, tmp_path):
    result = finish_only(IMAGE_TASKS / task, box, tmp_path)
    if isinstance(outcome, float):
        assert result.failure is None and result.score == outcome
    else:
        assert result.score is None and result.failure.stage == "setup"
        assert result.failure.error.startswith(outcome)
        assert json.loads((result.result_dir / "error.json").read_text())["error"].startswith(outcome)


def test_a_vm_is_asked_for_no_needs(tmp_path):
    from stateact.sandbox.osworld import OSWorldSandbox

    task = load_task(IMAGE_TASKS / "default-shell.json")
    assert missing_needs(task, OSWorldSandbox("http://127.0.0.1:9")) == ""
    assert missing_needs(load_task(IMAGE_TASKS / "screen-lock.json"), LocalSandbox(tmp_path)) == ""


def test_the_setup_of_a_task_runs_with_the_images_tools(box, tmp_path):
    setup = "echo {CLIENT_PASSWORD} | sudo -S sh -c 'echo hi > ~/Desktop/note.txt'"
    task = command_task(tmp_path / "desktop-note.json", [setup], "cat ~/Desktop/note.txt", "hi\n")
    assert finish_only(task, box, tmp_path).score == 1.0
    assert Path(box.host_home, "Desktop", "note.txt").read_text() == "hi\n"


@pytest.mark.apps
def test_ctrl_alt_t_opens_the_terminal_a_task_activates(tmp_path):
    press = Step(type="execute", parameters={"command": ["xdotool", "key", "ctrl+alt+t"]})
    activate = Step(type="activate_window", parameters={"window_name": "Terminal"})
    with LocalSandbox(tmp_path / "home", display=True, isolation="bwrap") as box:
        context = SetupContext(cache=FileCache(tmp_path))
        run_steps([press], box, context)
        assert wait_for_window(box, "Terminal", 30) == "Terminal"
        assert run_steps([activate], box, context)[0]["matched"] is True
