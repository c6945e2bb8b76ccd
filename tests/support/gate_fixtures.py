"""Fixtures shared by the gate tests."""

import pytest

from stateact.sandbox.local import LocalSandbox


@pytest.fixture
def sandbox(tmp_path):
    """A started local sandbox (no display) whose home is a fresh folder; closed after the test."""
    box = LocalSandbox(tmp_path / "home")
    box.start()
    try:
        yield box
    finally:
        box.close()
