"""The kernel type-checks clean: mypy, strict, over `stateact/kernel/` as pyproject.toml's `[tool.mypy]`
configures it (the modules it imports from other packages are read for their types, not reported)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "stateact" / "kernel"
MYPY_TIMEOUT_S = 240

pytestmark = pytest.mark.slow


def test_the_kernel_is_clean_under_strict_mypy():
    result = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=MYPY_TIMEOUT_S
    )
    assert result.returncode == 0, result.stdout + result.stderr
    checked = re.search(r"no issues found in (\d+) source files", result.stdout)
    assert checked and int(checked.group(1)) >= len(list(KERNEL.rglob("*.py"))), result.stdout
