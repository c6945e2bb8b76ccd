"""The isolated local sandbox (real bubblewrap): what the agent's processes can see and do."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from stateact.sandbox import settings as sandbox_settings
from stateact.sandbox.isolation import CHECKOUT, bwrap_problem
from stateact.sandbox.limits import SandboxLimits
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.runtime import runtime_ready
from stateact.sandbox.toolkit import TOOLKIT_BIN

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(bwrap_problem()) or not runtime_ready(),
        reason="bubblewrap or the sandbox Python is not available",
    ),
]


@pytest.fixture
def box(tmp_path):
    run_folder = tmp_path / "runs" / "r1"
    run_folder.mkdir(parents=True)
    (run_folder / "task.json").write_text('{"answer": 42}')
    with LocalSandbox(tmp_path / "home", isolation="bwrap", hidden=[tmp_path / "runs"]) as sandbox:
        sandbox.run_folder = run_folder
        yield sandbox


@pytest.fixture
def shell(box, tmp_path):
    return box.open_shell(tmp_path / "scratch")


def test_ps_shows_only_the_sandbox_processes(box, shell):
    box.launch("sleep 300")
    out = shell.run("ps -e -o pid=,comm=", timeout=10).output
    names = {line.split()[1] for line in out.splitlines() if line.strip()}
    assert "sleep" in names and "bash" in names
    assert not names & {"python", "pytest", "Xvfb", "bwrap-parent"} - {"bwrap"}
    assert str(os.getpid()) not in out.split()


def test_harness_files_are_hidden(box, shell):
    for path in (CHECKOUT / "README.md", box.run_folder / "task.json"):
        out = shell.run(f"cat {path}; echo rc=$?", timeout=10).output
        assert "rc=1" in out, out
        with pytest.raises((PermissionError, FileNotFoundError)):
            box.read_file(str(path))
    assert shell.run("echo $HOME; pwd", timeout=10).output.split() == ["/home/user", "/home/user"]


def test_only_the_installed_system_of_the_host_is_there(box, shell):
    top = set(shell.run("ls -A /", timeout=10).output.split())
    runtime = {Path(sandbox_settings.RUNTIME_DIR).parts[1]}
    system = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "opt", "var", "sys"}
    assert top <= system | {"dev", "proc", "run", "tmp", "home"} | runtime, top
    assert {"usr", "etc", "home", "tmp"} <= top
    usable = "ls /var/lib /var/cache /opt >/dev/null && touch /var/tmp/t /tmp/t && echo usable"
    assert shell.run(usable, timeout=10).output.split() == ["usable"]  # as the sandbox's user
    for folder in (CHECKOUT, CHECKOUT.parent):  # the checkout, and other checkouts beside it
        assert shell.run(f"ls -A {folder} 2>/dev/null | wc -l", timeout=10).output.split()[0] == "0"
    toolkit = shell.run("command -v docx-dump", timeout=10).output.split()[0]
    assert (
        toolkit == f"{sandbox_settings.SANDBOX_TOOLKIT}/docx-dump"
        and box.resolve(toolkit) == TOOLKIT_BIN / "docx-dump"
    )
    assert shell.run("ls /root /mnt /srv 2>&1 | grep -c 'No such file'", timeout=10).output.split()[0] == "3"
    with pytest.raises(PermissionError):
        box.resolve("/srv/elsewhere.txt")  # a host folder the sandbox does not show


def test_writes_land_in_home_and_tmp_only(box, shell):
    out = shell.run(
        "echo a > ~/a.txt && echo b > /tmp/b.txt && echo ok; touch /etc/x /usr/x 2>&1", timeout=10
    )
    assert out.output.count("Read-only file system") == 2, out.output
    assert (Path(box.host_home) / "a.txt").read_text() == "a\n"
    assert box.read_file("/tmp/b.txt") == b"b\n"
    assert box.run("cat /tmp/b.txt").stdout == "b\n"  # one /tmp for every process of the sandbox


def test_kill_cannot_reach_the_harness(shell):
    out = shell.run(f"kill -9 {os.getpid()}; echo rc=$?", timeout=10).output
    assert "rc=1" in out and "No such process" in out


def test_fork_bomb_and_memory_hog_are_contained(tmp_path):
    with LocalSandbox(tmp_path / "home", isolation="bwrap", limits=SandboxLimits(processes=64)) as box:
        shell = box.open_shell(tmp_path / "scratch")
        bomb = box.run("bomb() { bomb | bomb & }; bomb; sleep 2; echo survived", timeout=8)
        assert "Resource temporarily unavailable" in bomb.stderr  # forks beyond the limit were refused
        hog = box.run("python3 -c 'x = bytearray(10**10)'")
        assert hog.returncode != 0 and "MemoryError" in hog.stderr
        assert (
            shell.run("python3 -c 'x = bytearray(10**10)' 2>&1 | tail -1", timeout=30).output.strip()
            == "MemoryError"
        )
        assert box.run("echo next").stdout == "next\n"


def test_python_inside_is_the_sandbox_runtime(box):
    out = box.run("command -v python3; python3 -c 'import openpyxl, docx, pptx, pandas'; echo rc=$?")
    assert out.stdout.splitlines() == [str(sandbox_settings.RUNTIME_DIR / "bin/python3"), "rc=0"], out.output


def test_the_pdf_tools_of_a_desktop_work_inside(box, tmp_path):
    """pdftotext and pdfinfo, as a desktop VM has them (an agent's first reach for a PDF's text)."""
    from PIL import Image, ImageDraw

    page = Image.new("RGB", (400, 200), "white")
    ImageDraw.Draw(page).text((20, 20), "scan", fill="black")
    page.save(Path(box.host_home) / "page.pdf", format="PDF")
    out = box.run("pdfinfo ~/page.pdf | grep -c '^Pages: *1$'; pdftotext -layout ~/page.pdf - | wc -c")
    assert out.stdout.split() == ["1", "1"], out.output  # one page, no text layer: a form feed alone


def test_the_office_toolkit_and_the_gate_probes_run_inside(box):
    """The toolkit's folder sits inside the hidden checkout: every folder on the way must be traversable."""
    import openpyxl

    from stateact.gate.inspect.probes import run_probe

    book = openpyxl.Workbook()
    book.active["A1"] = "inside"
    book.save(Path(box.host_home) / "book.xlsx")
    listed = box.run("xlsx-dump ~/book.xlsx")
    facts = run_probe(box, "file_facts", paths=["~/book.xlsx"], since=0)

    assert listed.ok and "inside" in listed.stdout, listed.output
    (fact,) = facts["files"]
    assert fact["exists"] and fact["resolved"] == "/home/user/book.xlsx", facts


@pytest.mark.apps
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_converts_inside(box):
    box.write_file("~/note.txt", b"hello inside\n")
    done = box.run("soffice --headless --convert-to pdf note.txt >/dev/null 2>&1; ls note.pdf", timeout=120)
    assert done.stdout.strip() == "note.pdf", done.output
    assert (Path(box.host_home) / "note.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.apps
@pytest.mark.skipif(shutil.which("Xvfb") is None or shutil.which("xdotool") is None, reason="no Xvfb/xdotool")
def test_display_works_inside(tmp_path):
    with LocalSandbox(tmp_path / "home", display=True, isolation="bwrap") as box:
        moved = box.run("xdotool mousemove 40 50 && xdotool getmouselocation --shell | head -2")
        assert moved.stdout.split() == ["X=40", "Y=50"], moved.output
        clicked = box.run_python("import pyautogui; pyautogui.moveTo(70, 80); print(pyautogui.position())")
        assert "x=70, y=80" in clicked.stdout, clicked.output
        assert box.screenshot().startswith(b"\x89PNG")


@pytest.mark.apps
def test_the_window_manager_and_what_its_menus_start_run_inside(tmp_path):
    with LocalSandbox(tmp_path / "home", display=True, isolation="bwrap") as box:
        inside = box.run("ps -eo comm=").stdout.split()
        assert "openbox" in inside
        managed = box.run("xprop -root _NET_SUPPORTING_WM_CHECK")
        assert "window id" in managed.stdout, managed.output
