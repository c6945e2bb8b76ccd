"""`stateact doctor`: what the harness needs on this machine, checked for real."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

PACKAGES = (
    "anthropic",
    "openai",
    "pexpect",
    "playwright",
    "markdownify",
    "pyautogui",
    "pillow",
    "tiktoken",
    "pydantic",
    "openpyxl",
    "python-docx",
    "python-pptx",
    "pandas",
)
CHROMIUM = "/usr/bin/chromium"


def _which(program: str) -> Callable[[], tuple[bool, str]]:
    def check() -> tuple[bool, str]:
        path = shutil.which(program)
        return (path is not None, path or "not found")

    return check


def _soffice() -> tuple[bool, str]:
    path = shutil.which("soffice")
    if not path:
        return False, "not found (apt: libreoffice-calc libreoffice-writer libreoffice-impress)"
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    return True, out.stdout.strip() or path


def _chromium() -> tuple[bool, str]:
    if not os.path.exists(CHROMIUM):
        return False, f"{CHROMIUM} not found (apt: chromium)"
    out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=60)
    return True, out.stdout.strip()


def _display() -> tuple[bool, str]:
    from stateact.sandbox.local import LocalSandbox

    with tempfile.TemporaryDirectory() as home, LocalSandbox(Path(home), display=True) as box:
        png = box.screenshot()
        return png.startswith(b"\x89PNG"), f"Xvfb {box.display}, screenshot {len(png)} bytes"


def _isolation() -> tuple[bool, str]:
    from stateact.sandbox.isolation import bwrap_problem
    from stateact.sandbox.local import LocalSandbox
    from stateact.sandbox.runtime import runtime_ready

    problem = bwrap_problem() or (
        "" if runtime_ready() else "the sandbox Python is not built (scripts/setup.sh)"
    )
    if problem:
        return False, problem
    with tempfile.TemporaryDirectory() as home, LocalSandbox(Path(home), isolation="bwrap") as box:
        out = box.run("ps -e -o comm= | sort -u | tr '\\n' ' '; echo; printf %s \"$HOME\"")
        return out.ok and out.stdout.endswith("/home/user"), f"bwrap sandbox sees: {out.stdout.strip()}"


def _sandbox_limits() -> tuple[bool, str]:
    from stateact.sandbox.cgroups import UNAVAILABLE_WARNING, CgroupError, places

    try:
        found = places()
    except (OSError, CgroupError) as exc:
        return False, UNAVAILABLE_WARNING.format(reason=exc)
    return True, "; ".join(f"cgroup v{p.version} {'+'.join(p.controllers)} under {p.parent}" for p in found)


def _disk_caps() -> tuple[bool, str]:
    from stateact.sandbox.local import LocalSandbox
    from stateact.sandbox.mounts import mount_problem

    problem = mount_problem()
    if problem:
        return False, f"no disk caps for a sandbox's home and /tmp, host paths in its mountinfo: {problem}"
    with tempfile.TemporaryDirectory() as home, LocalSandbox(Path(home), isolation="bwrap") as box:
        out = box.run(
            "df -h --output=target,fstype,size /home/user /tmp /dev/shm | tail -n +2 | tr -s ' \\n' ' '"
        )
        return out.ok, f"capped in the sandbox: {out.stdout.strip()}"


def _tiktoken() -> tuple[bool, str]:
    from stateact.kernel.context.token_counter import ENCODING, counter

    return True, f"{ENCODING}: {counter().text('hello world')} tokens for 'hello world'"


def _keys() -> tuple[bool, str]:
    found = [k for k in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY") if os.environ.get(k)]
    return True, ", ".join(
        found
    ) if found else "none set (only scripted: and keyless local servers will work)"


def _versions() -> tuple[bool, str]:
    parts, missing = [], []
    for name in PACKAGES:
        try:
            parts.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    text = f"python {sys.version.split()[0]}; " + ", ".join(parts)
    return not missing, text + (f"; MISSING: {', '.join(missing)}" if missing else "")


CHECKS: dict[str, Callable[[], tuple[bool, str]]] = {
    "python packages": _versions,
    "Xvfb": _which("Xvfb"),
    "window manager": _which("openbox"),
    "xdotool": _which("xdotool"),
    "xclip": _which("xclip"),
    "display (Xvfb + screenshot)": _display,
    "isolation (bubblewrap sandbox)": _isolation,
    "sandbox limits (processes, memory)": _sandbox_limits,
    "disk caps (sandbox home, /tmp)": _disk_caps,
    "LibreOffice": _soffice,
    "Chromium": _chromium,
    "tiktoken offline": _tiktoken,
    "API keys": _keys,
}


def run_checks(console: Console) -> bool:
    """Run every check, print a table, and say whether all passed."""
    table = Table("check", "ok", "detail")
    all_ok = True
    for name, check in CHECKS.items():
        try:
            ok, detail = check()
        except Exception as exc:
            ok, detail = False, f"{type(exc).__name__}: {exc}"
        all_ok &= ok
        table.add_row(name, "[green]yes[/green]" if ok else "[red]no[/red]", detail)
    console.print(table)
    return all_ok
