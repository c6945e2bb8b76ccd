"""`stateact doctor` checks the real machine."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest
from rich.console import Console

from stateact.app.doctor import CHECKS, checks_for, run_checks
from stateact.sandbox import settings


@pytest.mark.apps
def test_doctor_passes_on_a_set_up_machine():
    console = Console(record=True, width=200)
    assert run_checks(console)
    text = console.export_text()
    for check in ("Xvfb", "LibreOffice", "Chromium", "display (Xvfb + screenshot)", "tiktoken offline"):
        assert check in text
    assert "no" not in [line.split("│")[2].strip() for line in text.splitlines() if line.count("│") >= 3]
    for check in ("ffmpeg", "pasta", "the sandbox's Python", "bubblewrap", "dbus and dconf", "xdotool"):
        assert check in text


def rows(checks) -> dict[str, tuple[str, str]]:
    """The doctor's table for `checks`: each check's (ok, fix)."""
    console = Console(record=True, width=400)
    run_checks(console, checks)
    table = {}
    for line in console.export_text().splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if len(cells) == 4 and cells[0]:
            table[cells[0]] = (cells[1], cells[3])
    return table


MACHINE_PIECES = {
    "bubblewrap (sandbox isolation)": "apt-get install -y bubblewrap",
    "pasta (the sandbox's network)": "apt-get install -y passt",
    "Xvfb": "apt-get install -y xvfb",
    "window manager": "apt-get install -y openbox",
    "xdotool": "apt-get install -y xdotool",
    "xclip": "apt-get install -y xclip",
    "ffmpeg (recordings)": "apt-get install -y ffmpeg",
    "dbus and dconf (gsettings)": "apt-get install -y dbus-daemon dconf-service",
}


def test_a_machine_without_its_programs_is_told_the_command_that_installs_each(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing is installed
    table = rows(tuple(check for check in CHECKS if check.name in MACHINE_PIECES))
    assert sorted(table) == sorted(MACHINE_PIECES)
    for name, fix in MACHINE_PIECES.items():
        assert table[name][0] == "no" and fix in table[name][1], (name, table[name])


def test_a_missing_sandbox_python_is_fixed_by_doctor_fix(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "RUNTIME_DIR", tmp_path / "not-built")
    (check,) = (check for check in CHECKS if check.name == "the sandbox's Python")
    assert rows((check,)) == {"the sandbox's Python": ("no", "stateact doctor --fix")}


def test_a_docker_pool_needs_the_docker_sdk(tmp_path, monkeypatch):
    pool = tmp_path / "pool.toml"
    pool.write_text('[[docker]]\nvm_image = "/vms/Ubuntu.qcow2"\nport = 15000\n')
    installed = importlib.metadata.version

    def version(name: str) -> str:
        if name == "docker":
            raise importlib.metadata.PackageNotFoundError(name)
        return installed(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    extra = checks_for(pool)[len(CHECKS) :]
    assert rows(extra) == {"docker SDK (docker pool slots)": ("no", "pip install docker")}
    assert checks_for(None) == CHECKS  # no pool: no docker check


def table_of(checks) -> dict[str, tuple[str, str, str]]:
    """The doctor's table for `checks`: each check's (ok, detail, fix), wide enough for whole paths."""
    console = Console(record=True, width=1000)
    run_checks(console, checks)
    cells = ([cell.strip() for cell in line.split("│")[1:-1]] for line in console.export_text().splitlines())
    return {row[0]: (row[1], row[2], row[3]) for row in cells if len(row) == 4 and row[0]}


def test_a_qemu_pool_needs_qemu_and_readable_images_each_with_its_fix(tmp_path, monkeypatch):
    image, kernel = tmp_path / "guest.qcow2", tmp_path / "vmlinuz"
    image.write_bytes(b"QFI\xfb")
    pool = tmp_path / "pool.toml"
    pool.write_text(f'[[qemu]]\nimage = "{image}"\nkernel = "{kernel}"\n[[qemu]]\nimage = "missing.qcow2"\n')
    table = table_of(checks_for(pool)[len(CHECKS) :])
    assert sorted(table) == ["KVM (qemu pool slots)", "qemu (qemu pool slots)", "qemu images"]
    ok, detail, fix = table["qemu images"]
    assert ok == "no" and f"each [[qemu]] entry in {pool}" in fix and "bash scripts/build_vm_guest.sh" in fix
    assert (
        detail
        == f"qemu1: no readable kernel at {kernel}; qemu2: no readable image at {tmp_path}/missing.qcow2"
    )
    assert table["qemu (qemu pool slots)"][0] == "yes" and table["KVM (qemu pool slots)"][0] == "yes"
    kernel.write_bytes(b"kernel")
    (tmp_path / "missing.qcow2").write_bytes(b"QFI\xfb")
    assert table_of(checks_for(pool)[len(CHECKS) :])["qemu images"][0] == "yes"

    monkeypatch.setenv("PATH", str(tmp_path))  # qemu is not installed
    ok, detail, fix = table_of(checks_for(pool)[len(CHECKS) :])["qemu (qemu pool slots)"]
    assert (ok, detail) == ("no", "not found: qemu-system-x86_64, qemu-img")
    assert fix.endswith("apt-get install -y qemu-system-x86 qemu-utils")


def test_a_pool_file_that_cannot_be_read_is_one_failed_check(tmp_path):
    pool = tmp_path / "pool.toml"
    pool.write_text("[[qemu]]\nmemory_mb = 512\n")
    ok, detail, fix = table_of(checks_for(pool)[len(CHECKS) :])["pool file"]
    assert ok == "no" and "needs `image`" in detail and "docs/osworld.md" in fix


def test_a_stateact_command_that_runs_another_or_a_removed_checkout_is_told_to_run_the_set_up(
    tmp_path, monkeypatch
):
    (check,) = [check for check in CHECKS if check.name == "the stateact command"]
    monkeypatch.setenv("PATH", str(tmp_path))
    command = tmp_path / "stateact"
    command.symlink_to(tmp_path / "gone" / ".venv" / "bin" / "stateact")  # its checkout was removed
    assert rows((check,))[check.name][0] == "no" and "scripts/setup.sh" in rows((check,))[check.name][1]
    command.unlink()
    command.symlink_to(sys.executable)  # another installation's program
    assert rows((check,))[check.name][0] == "no"
    command.unlink()
    command.symlink_to(Path(sys.executable).parent / "stateact")  # what the set-up links
    assert rows((check,))[check.name][0] == "yes"
