"""The open-document programs against a real LibreOffice window on a private Xvfb display."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from docx import Document

from stateact.sandbox.local import LocalSandbox
from tests.support.toolkit_helpers import kill_profile_processes, quiet_profile, run_tool

pytestmark = pytest.mark.apps

WINDOW_TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def desktop(tmp_path_factory):
    with LocalSandbox(tmp_path_factory.mktemp("desktop"), display=True) as box:
        yield box


@pytest.fixture
def open_odt(desktop, tmp_path):
    """An .odt written by LibreOffice, then opened in a LibreOffice window with a per-test profile."""
    home = Path(desktop.home)
    name = f"{tmp_path.name}.odt"
    source = home / f"{tmp_path.name}.docx"
    document = Document()
    document.add_heading("Minutes", 1)
    document.add_paragraph("Status: draft")
    document.save(source)
    assert run_tool(desktop, f"office-convert {source.name} odt").ok
    profile = quiet_profile(tmp_path / "profile")
    desktop.launch(f"soffice -env:UserInstallation={profile} --norestore {home / name}")
    try:
        wait_for(lambda: run_tool(desktop, f"office-open-check {name} && wmctrl -l | grep -q {name}").ok)
        yield home / name
    finally:
        kill_profile_processes(profile)


def wait_for(condition, timeout: float = WINDOW_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.5)


def paragraphs_after_libreoffice_saves(desktop, path: Path) -> str:
    """Press ctrl+s in the document's LibreOffice window, wait for the save, and return the file's text."""
    before = path.stat().st_mtime_ns
    time.sleep(1.1)  # a save in the same second would leave the mtime unchanged on coarse file systems
    assert run_tool(desktop, f"wmctrl -a {path.name} && sleep 0.5 && xdotool key ctrl+s").ok
    wait_for(lambda: path.stat().st_mtime_ns != before)
    wait_for(lambda: run_tool(desktop, f"docx-dump {path.name}").ok)
    return run_tool(desktop, f"docx-dump {path.name}").stdout


def test_reload_after_disk_edit_makes_libreoffice_save_the_new_content(desktop, open_odt):
    name = open_odt.name
    check = run_tool(desktop, f"office-open-check {name}")
    assert check.returncode == 0 and check.stdout.startswith("OPEN in LibreOffice"), check.output

    edit = run_tool(desktop, f"docx-edit {name} --replace draft approved")
    assert edit.ok and f"office-reload {open_odt}" in edit.stdout, edit.output

    reload = run_tool(desktop, f"office-reload {name}")
    assert reload.ok and "reloaded" in reload.stdout, reload.output
    assert run_tool(desktop, f"office-open-check {name}").returncode == 0

    text = paragraphs_after_libreoffice_saves(desktop, open_odt)
    assert "'Status: approved'" in text and "draft" not in text


def test_close_keeps_the_disk_edit_and_asks_before_dropping_window_changes(desktop, open_odt):
    name = open_odt.name
    assert run_tool(desktop, f"docx-edit {name} --replace draft final").ok
    assert run_tool(desktop, f"wmctrl -a {name} && sleep 0.5 && xdotool type typed-in-window && sleep 1").ok

    refused = run_tool(desktop, f"office-close {name}")
    assert refused.returncode == 2 and "--discard" in refused.stderr, refused.output
    assert run_tool(desktop, f"office-open-check {name}").returncode == 0  # still open, dialog cancelled
    assert "Save Document?" not in run_tool(desktop, "wmctrl -l").stdout

    closed = run_tool(desktop, f"office-close --discard {name}")
    assert closed.ok and "discarding" in closed.stdout, closed.output
    assert run_tool(desktop, f"office-open-check {name}").returncode == 1
    text = run_tool(desktop, f"docx-dump {name}").stdout
    assert "'Status: final'" in text and "typed-in-window" not in text
