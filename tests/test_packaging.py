"""The wheel installs one top-level package, `stateact`, so it lives beside any other package in one
environment: one that owns the import name `evals` (a well-known evaluation package does) included."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
OTHER_EVALS = """[project]
name = "other-evals"
version = "1.0"

[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"
"""
PROBE = """
import importlib.util, json, evals, stateact
print(json.dumps({
    "evals": evals.OWNER,
    "stateact.evals": importlib.util.find_spec("stateact.evals").origin,
    "top": {name: importlib.util.find_spec(name) is not None for name in ("sandbox", "gate", "subagents")},
}))
"""


def build_wheel(source: Path, out: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = out.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(ROOT, tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_stateact_and_nothing_else_at_the_top(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"stateact", wheel.name.split("-py3")[0] + ".dist-info"}
    assert "stateact/sandbox/toolkit/bin/xlsx-dump" in names and "stateact/evals/cli.py" in names
    assert not any(name.startswith("stateact/tests") or "metrics_corpus" in name for name in names)


def test_it_installs_beside_a_package_that_owns_evals(wheel, tmp_path):
    other = tmp_path / "other_evals"
    (other / "evals").mkdir(parents=True)
    (other / "evals" / "__init__.py").write_text('OWNER = "other"\n')
    (other / "pyproject.toml").write_text(OTHER_EVALS)
    other_wheel = build_wheel(other, tmp_path / "other-wheel")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    for package in (other_wheel, wheel):  # stateact last: it must not overwrite the other's `evals`
        installed = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(package)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert installed.returncode == 0, installed.stderr
    probe = subprocess.run(
        [str(python), "-c", PROBE], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    assert found["evals"] == "other"
    assert found["stateact.evals"].startswith(str(venv)) and found["stateact.evals"].endswith(
        "evals/__init__.py"
    )
    assert found["top"] == {"sandbox": False, "gate": False, "subagents": False}
