"""Every command path of a VM sees the toolkit: one-shot commands, python code, the gate's probes."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from gate.probes import run_probe
from sandbox.toolkit.settings import TOOLKIT_REMOTE_LIB_DIR
from stateact.app.config import RunConfig
from stateact.runtime import RoleModels
from tests.osworld_vm_server import served_vm
from tests.test_toolkit_files import make_formula_book

TOOLKIT_MODULES = ("openpyxl", "et_xmlfile")
"""What a pip install into the toolkit's folder would bring for spreadsheets (pure Python)."""


@pytest.fixture(scope="module")
def venv_vm(tmp_path_factory):
    """A VM whose python3 is a bare virtual environment (no pip, no packages); the toolkit's module folder
    holds the spreadsheet modules, as `pip install --target` leaves them on a VM that can reach PyPI."""
    root = tmp_path_factory.mktemp("venv-vm")
    venv = root / "venv"
    base_python = Path(sys.base_prefix) / "bin" / "python3"
    subprocess.run([str(base_python), "-m", "venv", "--without-pip", str(venv)], check=True)
    lib = root / "home" / TOOLKIT_REMOTE_LIB_DIR
    lib.mkdir(parents=True)
    for name in TOOLKIT_MODULES:
        (lib / name).symlink_to(Path(importlib.import_module(name).__file__).parent)
    with served_vm(root / "home", display=False, python_venv=venv) as parts:
        yield parts


def test_the_vm_python_is_a_bare_venv_and_the_toolkit_install_says_so(venv_vm):
    sandbox, _, _ = venv_vm
    assert any("virtual environment" in warning for warning in sandbox.warnings)
    bare = sandbox.run("env -u PYTHONPATH python3 -c 'import openpyxl'")
    assert not bare.ok and "No module named 'openpyxl'" in bare.stderr


def test_one_shot_commands_and_python_code_get_the_toolkit(venv_vm):
    sandbox, _, local = venv_vm
    make_formula_book(Path(local.home) / "book.xlsx")
    dump = sandbox.run("xlsx-dump ~/book.xlsx")
    assert dump.ok and 'sheet "Sales"' in dump.stdout, dump.output
    found = sandbox.run("command -v xlsx-dump docx-dump")
    assert found.stdout.split() == [f"{sandbox.toolkit_dir}/xlsx-dump", f"{sandbox.toolkit_dir}/docx-dump"]
    code = sandbox.run_python("import openpyxl; print(openpyxl.__name__)")
    assert code.ok and code.stdout.strip() == "openpyxl", code.output


def test_the_gates_spreadsheet_probe_reads_the_cells_on_the_vm(venv_vm):
    sandbox, _, local = venv_vm
    make_formula_book(Path(local.home) / "probe.xlsx")
    facts = run_probe(sandbox, "spreadsheet", path="~/probe.xlsx")
    assert "error" not in facts, facts
    assert facts["sheets"][0]["name"] == "Sales"


def test_a_vm_runs_config_records_no_local_isolation():
    models = RoleModels(main="scripted:x")
    vm_run = RunConfig(instruction="x", models=models, sandbox="osworld://127.0.0.1:5000", isolation="bwrap")
    assert vm_run.model_dump(mode="json")["isolation"] is None
    assert RunConfig(instruction="x", models=models).isolation == "bwrap"
