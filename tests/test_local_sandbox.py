"""LocalSandbox on a real Xvfb display: commands, files, screenshots, and a clean close."""

from __future__ import annotations

import io
import os
import signal
import time

import pytest
from PIL import Image

from stateact.sandbox.base import SandboxError
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.processes import tagged_pids

APP_FIXTURES = frozenset({"desktop"})


@pytest.fixture
def desktop(tmp_path):
    box = LocalSandbox(tmp_path / "home", display=True)
    box.start()
    try:
        yield box
    finally:
        box.close()


def test_screenshot_is_a_png_of_the_display_size(desktop):
    png = desktop.screenshot()
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    assert image.size == desktop.screen_size() == (1280, 800)


def test_home_is_the_work_folder_and_tilde_resolves(desktop):
    result = desktop.run("echo $HOME; pwd; echo $DISPLAY")
    home, cwd, display = result.stdout.split()
    assert home == cwd == desktop.home
    assert display == desktop.display
    desktop.write_file("~/docs/a.txt", b"hello")
    assert desktop.read_file(f"{desktop.home}/docs/a.txt") == b"hello"
    assert desktop.read_file("docs/a.txt") == b"hello"
    with pytest.raises(FileNotFoundError):
        desktop.read_file("~/missing.txt")


def test_one_shot_command_timeout_kills_the_group(desktop):
    result = desktop.run("sleep 30 & sleep 30", timeout=1)
    assert result.returncode == 124
    assert "timed out" in result.stderr


def test_gui_python_runs_on_the_display(desktop):
    result = desktop.run_python("import os; print(os.environ['DISPLAY'])")
    assert result.stdout.strip() == desktop.display


@pytest.mark.apps
def test_close_ends_every_process_it_started(tmp_path):
    box = LocalSandbox(tmp_path / "home", display=True)
    box.start()
    shell = box.open_shell(tmp_path / "scratch")
    shell.run("sleep 300 &", timeout=5)
    shell.run("(setsid sleep 301 &)", timeout=5)
    box.launch("sleep 302")
    xvfb_display = box.display
    deadline = time.monotonic() + 5
    while len(tagged_pids(box.tag)) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(tagged_pids(box.tag)) >= 5  # bash, 3 sleeps, Xvfb, openbox...
    box.close()
    assert tagged_pids(box.tag) == []
    assert not os.path.exists(f"/tmp/.X11-unix/X{xvfb_display.lstrip(':')}")


def test_close_after_interrupt_signal_still_cleans_up(tmp_path):
    box = LocalSandbox(tmp_path / "home", display=False)
    with pytest.raises(KeyboardInterrupt), box:
        box.launch("sleep 303")
        signal.raise_signal(signal.SIGINT)
    assert tagged_pids(box.tag) == []


def test_display_required_for_screenshots(tmp_path):
    with (
        LocalSandbox(tmp_path / "home", display=False) as box,
        pytest.raises(SandboxError, match="no display"),
    ):
        box.screenshot()
