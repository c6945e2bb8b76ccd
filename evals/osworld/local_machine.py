"""What a local sandbox on this machine can give a task: sudo, a GNOME session, the applications installed.

`local_gap(need)` says why a local sandbox cannot provide one need of a task
(`sudo`, `gnome`, `systemd`, `pulseaudio`, `app:<name>`; evals/running/check.py derives a task's needs), or ''
when it can; what only a whole machine can do (installing packages) is judged by
evals/osworld/needs.py. Network needs are judged by evals/running/check.py, which probes the URLs.
"""

from __future__ import annotations

import shutil

SUDO = True
"""Whether the local sandbox's user may run `sudo` with the VM image's password (`password`): it may, as
root of the sandbox's user namespace; what would change the installed system needs a VM (evals/osworld/needs.py)."""
GNOME = True
"""Whether GNOME's settings work in the local sandbox: `gsettings`/`dconf` persist through its session
D-Bus (it runs Xvfb and openbox, not GNOME Shell)."""

APP_PROGRAMS: dict[str, tuple[str, ...]] = {
    "chrome": ("google-chrome", "chromium", "chromium-browser"),
    "libreoffice": ("soffice", "libreoffice"),
    "gimp": ("gimp",),
    "vlc": ("vlc",),
    "thunderbird": ("thunderbird",),
    "vs code": ("code",),
    "nautilus": ("nautilus",),
    "terminal": ("gnome-terminal", "x-terminal-emulator", "xterm"),
    "socat": ("socat",),
    "picard": ("picard",),
    "totem": ("totem",),
}
"""The applications tasks use, and the programs any one of which provides each."""

NEED_SUDO = "sudo"
NEED_GNOME = "gnome"
NEED_SYSTEMD = "systemd"
NEED_PULSEAUDIO = "pulseaudio"
MACHINE_SERVICES = {
    NEED_SYSTEMD: "the local sandbox runs no systemd (timedatectl, systemctl and the like fail there)",
    NEED_PULSEAUDIO: "the local sandbox runs no PulseAudio sound server (pactl fails there)",
}
"""Services of a whole machine that a local sandbox does not run, and why a task needing one fails there."""
NEED_VM = "vm"
APP_PREFIX = "app:"


def app_available(app: str) -> bool:
    """Whether one of the app's programs is on this machine's PATH."""
    return any(shutil.which(program) for program in APP_PROGRAMS.get(app, (app,)))


def local_gap(need: str) -> str:
    """Why a local sandbox on this machine cannot provide `need`, or '' when it can."""
    if need == NEED_SUDO:
        return "" if SUDO else "sudo: the local sandbox's user cannot run sudo"
    if need == NEED_GNOME:
        return "" if GNOME else "gnome: the local sandbox runs no GNOME session"
    if need in MACHINE_SERVICES:
        return f"{need}: {MACHINE_SERVICES[need]}"
    if need.startswith(APP_PREFIX):
        app = need.removeprefix(APP_PREFIX)
        programs = APP_PROGRAMS.get(app, (app,))
        return "" if app_available(app) else f"{need}: none of {', '.join(programs)} is installed here"
    raise ValueError(f"unknown need {need!r}")
