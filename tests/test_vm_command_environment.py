"""Every command path of a VM sees the toolkit: one-shot commands, python code, the gate's probes."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stateact.app.config import RunConfig
from stateact.gate.review.tools import InspectSpreadsheet
from stateact.kernel.runtime import RoleModels
from stateact.sandbox.toolkit.settings import TOOLKIT_REMOTE_LIB_DIR
from tests.support.osworld_vm_server import REAL_SERVER_VARIABLE, served_vm, vm_under_test
from tests.test_toolkit_files import make_formula_book

TOOLKIT_MODULES = ("openpyxl", "et_xmlfile")
"""What a pip install into the toolkit's folder would bring for spreadsheets (pure Python)."""


@pytest.fixture(scope="module")
def venv_vm(tmp_path_factory):
    """A VM whose python3 is a virtual environment without the spreadsheet modules, the toolkit's module
    folder holding them: the real server at OSWORLD_SERVER_URL (its start pip-installs them there), or
    the server double with a bare venv (no pip, no packages) and the modules in that folder, as
    `pip install --target` leaves them on a VM that can reach PyPI."""
    root = tmp_path_factory.mktemp("venv-vm")
    if os.environ.get(REAL_SERVER_VARIABLE):
        with vm_under_test(root / "home") as parts:
            yield parts[0]
        return
    venv = root / "venv"
    base_python = Path(sys.base_prefix) / "bin" / "python3"
    subprocess.run([str(base_python), "-m", "venv", "--without-pip", str(venv)], check=True)
    lib = root / "home" / TOOLKIT_REMOTE_LIB_DIR
    lib.mkdir(parents=True)
    for name in TOOLKIT_MODULES:
        (lib / name).symlink_to(Path(importlib.import_module(name).__file__).parent)
    with served_vm(root / "home", display=False, python_venv=venv) as parts:
        yield parts[0]


def place_formula_book(sandbox, path: str, tmp_path: Path) -> None:
    make_formula_book(tmp_path / "book.xlsx")
    sandbox.write_file(path, (tmp_path / "book.xlsx").read_bytes())


@pytest.mark.slow
def test_the_vm_python_is_a_bare_venv_and_the_toolkit_install_says_so(venv_vm):
    assert any("virtual environment" in warning for warning in venv_vm.warnings)
    bare = venv_vm.run("env -u PYTHONPATH python3 -c 'import openpyxl'")
    assert not bare.ok and "No module named 'openpyxl'" in bare.stderr


@pytest.mark.slow
def test_one_shot_commands_and_python_code_get_the_toolkit(venv_vm, tmp_path):
    place_formula_book(venv_vm, "~/book.xlsx", tmp_path)
    dump = venv_vm.run("xlsx-dump ~/book.xlsx")
    assert dump.ok and 'sheet "Sales"' in dump.stdout, dump.output
    assert "=SUM(D2:D3)" in dump.stdout, dump.stdout
    found = venv_vm.run("command -v xlsx-dump docx-dump")
    assert found.stdout.split() == [f"{venv_vm.toolkit_dir}/xlsx-dump", f"{venv_vm.toolkit_dir}/docx-dump"]
    code = venv_vm.run_python("import openpyxl; print(openpyxl.__name__)")
    assert code.ok and code.stdout.strip() == "openpyxl", code.output


@pytest.mark.slow
def test_the_gates_spreadsheet_probe_reads_the_cells_on_the_vm(venv_vm, tmp_path):
    place_formula_book(venv_vm, "~/probe.xlsx", tmp_path)
    answer = InspectSpreadsheet(venv_vm).run(InspectSpreadsheet.Input(path="~/probe.xlsx"))
    facts = json.loads(answer.text)
    assert not answer.is_error and "error" not in facts, facts
    assert facts["path"] == f"{venv_vm.home}/probe.xlsx" and facts["sheets"][0]["name"] == "Sales"
    assert facts["formulas_without_cached_value"] == ["D2", "D3", "D4"]
    assert {"cell": "D4", "value": None, "formula": "=SUM(D2:D3)"} in facts["cells"]


def test_a_vm_runs_config_records_no_local_isolation():
    models = RoleModels(main="scripted:x")
    vm_run = RunConfig(instruction="x", models=models, sandbox="osworld://127.0.0.1:5000", isolation="bwrap")
    assert vm_run.model_dump(mode="json")["isolation"] is None
    assert RunConfig(instruction="x", models=models).isolation == "bwrap"
