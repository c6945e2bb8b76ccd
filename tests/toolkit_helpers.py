"""Shared helpers of the office-toolkit tests: running programs in a sandbox, LibreOffice profiles."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from sandbox.base import CommandResult, Sandbox, SandboxError
from sandbox.local import LocalSandbox

QUIET_PROFILE_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse">\
<value>false</value></prop></item>
</oor:items>
"""


DESKTOP_START_ATTEMPTS = 3
"""Display :0 may be served by a foreign X server in another mount namespace, which makes the window
manager fail on our Xvfb there now and then; a new start picks again."""


def start_desktop(home: Path) -> LocalSandbox:
    """A started LocalSandbox with its own Xvfb display and window manager."""
    for attempt in range(DESKTOP_START_ATTEMPTS):
        box = LocalSandbox(home, display=True)
        try:
            box.start()
            return box
        except SandboxError:
            if attempt == DESKTOP_START_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def run_tool(sandbox: Sandbox, command: str, timeout: float = 120.0) -> CommandResult:
    """Run a toolkit command line in the sandbox; a traceback is never an acceptable answer."""
    result = sandbox.run(command, timeout=timeout)
    assert "Traceback" not in result.output, result.output
    return result


def quiet_profile(folder: Path) -> str:
    """A fresh LibreOffice user profile without first-start dialogs; returns its URL."""
    user = folder / "user"
    user.mkdir(parents=True)
    (user / "registrymodifications.xcu").write_text(QUIET_PROFILE_XCU, encoding="utf-8")
    return folder.as_uri()


def kill_profile_processes(profile_url: str) -> None:
    """End the LibreOffice processes a test started with its own profile."""
    needle = f"-env:UserInstallation={profile_url}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if needle in argv:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(entry.name), signal.SIGKILL)
