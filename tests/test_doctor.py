"""`stateact doctor` checks the real machine."""

from __future__ import annotations

import pytest
from rich.console import Console

from stateact.app.doctor import run_checks


@pytest.mark.apps
def test_doctor_passes_on_a_set_up_machine():
    console = Console(record=True, width=200)
    assert run_checks(console)
    text = console.export_text()
    for check in ("Xvfb", "LibreOffice", "Chromium", "display (Xvfb + screenshot)", "tiktoken offline"):
        assert check in text
    assert "no" not in [line.split("│")[2].strip() for line in text.splitlines() if line.count("│") >= 3]
