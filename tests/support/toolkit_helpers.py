"""Shared helpers of the office-toolkit tests: running programs in a sandbox, LibreOffice profiles."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

from stateact.sandbox.base import CommandResult, Sandbox
from stateact.sandbox.toolkit import TOOLKIT_BIN

sys.path.insert(0, str(TOOLKIT_BIN))
from _officekit import soffice_processes  # noqa: E402

QUIET_PROFILE_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse">\
<value>false</value></prop></item>
</oor:items>
"""


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
    argument = f"-env:UserInstallation={profile_url}"
    for pid, argv in soffice_processes():
        if argument in argv:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
