"""The pre-gate's rule on open documents against a real LibreOffice window on a private Xvfb display:
a window that shows the saved file is no failure; one whose file was edited on disk behind it is,
until `office-reload` shows the file again; a save from the window leaves it showing the saved file."""

from __future__ import annotations

import os
import time

import pytest
from test_toolkit_open_documents import desktop, open_odt, paragraphs_after_libreoffice_saves  # noqa: F401

from stateact.gate import settings
from stateact.gate.inspect.deliverables import MentionedPath
from stateact.gate.inspect.pregate import run_pregate
from tests.support.toolkit_helpers import run_tool

pytestmark = pytest.mark.apps


def check(desktop, document):  # noqa: F811
    return run_pregate(desktop, [MentionedPath(str(document), True)], time.time() - 3600)


def test_stale_window_fails_until_reloaded_and_a_save_from_the_window_is_no_failure(desktop, open_odt):  # noqa: F811
    lock = open_odt.parent / f".~lock.{open_odt.name}#"

    opened = check(desktop, open_odt)
    assert opened.findings == [] and "is open in LibreOffice" in opened.notes[0]

    assert run_tool(desktop, f"docx-edit {open_odt.name} --replace draft approved").ok
    behind = open_odt.stat().st_mtime - settings.GATE_OPEN_SAVE_GRACE_S - 5
    os.utime(lock, (behind, behind))  # the window was opened longer ago than a save takes
    stale = check(desktop, open_odt)
    [finding] = stale.findings
    assert (
        f"office-reload {open_odt}" in finding.problem and "do not save from that window" in finding.problem
    )

    assert run_tool(desktop, f"office-reload {open_odt.name}").ok
    reloaded = check(desktop, open_odt)
    assert reloaded.findings == [] and "after the file's last write" in reloaded.notes[0]

    assert "'Status: approved'" in paragraphs_after_libreoffice_saves(desktop, open_odt)
    saved = check(desktop, open_odt)
    assert saved.findings == [] and "is open in LibreOffice" in saved.notes[0]
