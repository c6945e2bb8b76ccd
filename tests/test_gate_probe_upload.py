"""The gate's probe code is placed in the sandbox once and then called by name, on both backends."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from stateact.gate.inspect.deliverables import MentionedPath
from stateact.gate.inspect.pregate import run_pregate
from stateact.gate.inspect.probes import PRIVATE_COPY, PROBE_FILE, ProbeError, run_probe
from tests.support.osworld_vm_server import REAL_SERVER_VARIABLE, served_vm, vm_under_test

pytest_plugins = ["tests.support.gate_fixtures"]

PROBE_CALL_MAX_BYTES = 2048
"""What one probe call may send to the VM once the probe code is there."""


@pytest.fixture
def vm(tmp_path):
    """The server double, or the real server at OSWORLD_SERVER_URL (no request log: those checks skip)."""
    if os.environ.get(REAL_SERVER_VARIABLE):
        with vm_under_test(tmp_path / "home") as parts:
            yield parts
        return
    with served_vm(tmp_path / "home", display=False) as parts:
        yield parts


def write_notes(sandbox) -> None:
    sandbox.write_file("~/notes.txt", b"two\nlines\n")


def sent_during(server, call: Callable[[], dict]) -> tuple[dict, list[tuple[str, int]]]:
    """The call's result and the (route, body size) of each request the VM server received meanwhile."""
    start = len(server.requests)
    result = call()
    return result, list(zip(server.requests[start:], server.body_bytes[start:], strict=True))


def notes_facts(sandbox) -> dict:
    return run_probe(sandbox, "file_facts", paths=["~/notes.txt"])["files"][0]


@pytest.mark.slow
def test_vm_gets_the_probe_code_with_the_toolkit_and_each_call_sends_only_the_request(vm):
    sandbox, server, _ = vm
    if server is None:
        pytest.skip("counts the double's requests")
    write_notes(sandbox)

    first, first_sent = sent_during(server, lambda: notes_facts(sandbox))
    later, later_sent = sent_during(server, lambda: notes_facts(sandbox))

    assert [route for route, _ in first_sent] == ["POST /execute"]  # the toolkit's upload at start brought it
    assert [route for route, _ in later_sent] == ["POST /execute"]
    assert first_sent[0][1] < PROBE_CALL_MAX_BYTES
    assert later_sent[0][1] < PROBE_CALL_MAX_BYTES
    assert first["exists"] and first["size"] == 10 and later == first
    copy = Path(sandbox.toolkit_dir, PROBE_FILE.name)
    assert copy.read_bytes() == PROBE_FILE.read_bytes()
    assert not list(Path(sandbox.toolkit_dir).glob("__pycache__"))


@pytest.mark.parametrize("damage", ["rm -f {copy}", "echo 'old probes' > {copy}", "rm -rf {toolkit}"])
@pytest.mark.slow
def test_vm_gets_the_probe_code_again_when_its_copy_is_missing_or_differs(vm, damage):
    sandbox, server, _ = vm
    write_notes(sandbox)
    notes_facts(sandbox)
    copy = f"{sandbox.toolkit_dir}/{PROBE_FILE.name}"
    assert sandbox.run(damage.format(copy=copy, toolkit=sandbox.toolkit_dir)).ok

    if server is None:
        facts = notes_facts(sandbox)
    else:
        facts, sent = sent_during(server, lambda: notes_facts(sandbox))
        assert "POST /setup/upload" in [route for route, _ in sent]

    assert facts["size"] == 10
    assert sandbox.read_file(copy) == PROBE_FILE.read_bytes()
    assert sandbox.exists(f"{sandbox.toolkit_dir}/docx-dump")


def test_local_sandbox_uses_the_probe_code_in_place(sandbox):
    Path(sandbox.home, "notes.txt").write_text("two\nlines\n")

    assert notes_facts(sandbox)["size"] == 10
    assert [p.name for p in Path(sandbox.home).rglob("*.py")] == []


def test_local_sandbox_without_the_toolkit_says_so(sandbox, tmp_path):
    sandbox.toolkit_dir = str(tmp_path / "no-toolkit")

    with pytest.raises(ProbeError, match="cannot read the toolkit code at .*/no-toolkit"):
        run_probe(sandbox, "home_state")


def test_a_checkout_updated_during_the_run_leaves_the_probes_working(sandbox, tmp_path):
    """The toolkit folder's probe code changed after this harness loaded its own: ours goes to /tmp."""
    toolkit = tmp_path / "toolkit"
    shutil.copytree(PROBE_FILE.parent, toolkit)
    (toolkit / PROBE_FILE.name).write_text("raise SystemExit('a newer probe file')\n")
    sandbox.toolkit_dir = str(toolkit)
    write_notes(sandbox)

    assert notes_facts(sandbox)["size"] == 10
    assert sandbox.read_file(PRIVATE_COPY) == PROBE_FILE.read_bytes()
    assert notes_facts(sandbox)["size"] == 10  # the uploaded copy is found at once


def test_a_file_check_that_cannot_run_says_so_in_the_gates_notes(sandbox, tmp_path):
    sandbox.toolkit_dir = str(tmp_path / "no-toolkit")

    result = run_pregate(sandbox, [MentionedPath("~/notes.txt", output=True)], None)

    assert result.findings == [] and "file check failed" in result.facts[0]["error"]
    assert result.notes and result.notes[0].startswith("The file check could not run")
