"""`stateact doctor`: every outside piece a feature uses, checked for real on this machine, each with
the command that fixes it (`--fix` builds the sandbox's Python; system packages need apt)."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:
    from stateact.sandbox.pool_docker import DockerSlot
    from stateact.sandbox.pool_qemu import QemuSlot

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


CheckResult = tuple[bool, str]


def apt(*packages: str) -> str:
    """The command that installs Debian packages, as this user runs it."""
    return f"{'' if os.geteuid() == 0 else 'sudo '}apt-get install -y {' '.join(packages)}"


SETUP = "bash scripts/setup.sh (from the checkout)"
GUEST_SCRIPT = "scripts/build_vm_guest.sh"


def _which(*programs: str) -> Callable[[], CheckResult]:
    """A check that each of `programs` is on PATH (or is an absolute path that exists)."""

    def check() -> CheckResult:
        found = {p: shutil.which(p) for p in programs}
        missing = [p for p, path in found.items() if path is None]
        if missing:
            return False, f"not found: {', '.join(missing)}"
        return True, ", ".join(str(path) for path in found.values())

    return check


def _stateact_command() -> CheckResult:
    """`stateact` on PATH runs this installation (a link left by the set-up of a removed or other
    checkout runs nothing, or other code)."""
    ours = Path(sys.executable).parent / "stateact"
    found = shutil.which("stateact")
    if found is None:
        return False, "not found on PATH (or it links to a checkout that is gone)"
    if Path(found).resolve() != ours.resolve():
        return False, f"{found} runs {Path(found).resolve()}, not this installation's {ours}"
    return True, found


def _soffice() -> CheckResult:
    path = shutil.which("soffice")
    if not path:
        return False, "soffice not found"
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    return True, out.stdout.strip() or path


def _chromium() -> CheckResult:
    if not os.path.exists(CHROMIUM):
        return False, f"{CHROMIUM} not found"
    out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=60)
    return True, out.stdout.strip()


def _display() -> CheckResult:
    from stateact.sandbox.local import LocalSandbox

    with tempfile.TemporaryDirectory() as home, LocalSandbox(Path(home), display=True) as box:
        png = box.screenshot()
        return png.startswith(b"\x89PNG"), f"Xvfb {box.display}, screenshot {len(png)} bytes"


def _sandbox_python() -> CheckResult:
    from stateact.sandbox import settings
    from stateact.sandbox.runtime import runtime_ready

    root = settings.RUNTIME_DIR
    if not runtime_ready(root):
        return False, f"not built at {root}"
    out = subprocess.run(
        [str(root / "bin" / "python3"), "--version"], capture_output=True, text=True, timeout=60
    )
    return out.returncode == 0, f"{out.stdout.strip() or out.stderr.strip()} at {root}"


def _dbus_dconf() -> CheckResult:
    """The sandbox's session bus and the dconf service that keeps `gsettings` changes."""
    found = _which("dbus-daemon", "gsettings")()
    if not found[0]:
        return found
    service = next((p for p in DCONF_SERVICES if Path(p).exists()), None)
    if service is None:
        return False, f"dconf-service not found ({', '.join(DCONF_SERVICES)})"
    return True, f"{found[1]}, {service}"


DCONF_SERVICES = ("/usr/libexec/dconf-service", "/usr/lib/dconf/dconf-service")


def _isolation() -> CheckResult:
    from stateact.sandbox import settings
    from stateact.sandbox.isolation import bwrap_problem
    from stateact.sandbox.local import LocalSandbox
    from stateact.sandbox.runtime import runtime_ready

    problem = bwrap_problem() or (
        "" if runtime_ready(settings.RUNTIME_DIR) else "the sandbox Python is not built"
    )
    if problem:
        return False, problem
    with tempfile.TemporaryDirectory() as home, LocalSandbox(Path(home), isolation="bwrap") as box:
        out = box.run("ps -e -o comm= | sort -u | tr '\\n' ' '; echo; printf %s \"$HOME\"")
        return out.ok and out.stdout.endswith("/home/user"), f"bwrap sandbox sees: {out.stdout.strip()}"


def _sandbox_limits() -> CheckResult:
    from stateact.sandbox.cgroups import UNAVAILABLE_WARNING, CgroupError, places

    try:
        found = places()
    except (OSError, CgroupError) as exc:
        return False, UNAVAILABLE_WARNING.format(reason=exc)
    return True, "; ".join(f"cgroup v{p.version} {'+'.join(p.controllers)} under {p.parent}" for p in found)


def _disk_caps() -> CheckResult:
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


def _tiktoken() -> CheckResult:
    from stateact.kernel.context.token_counter import ENCODING, counter

    return True, f"{ENCODING}: {counter().text('hello world')} tokens for 'hello world'"


def _keys() -> CheckResult:
    found = [k for k in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY") if os.environ.get(k)]
    return True, ", ".join(
        found
    ) if found else "none set (only scripted: and keyless local servers will work)"


def _versions() -> CheckResult:
    parts, missing = [], []
    for name in PACKAGES:
        try:
            parts.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    text = f"python {sys.version.split()[0]}; " + ", ".join(parts)
    return not missing, text + (f"; MISSING: {', '.join(missing)}" if missing else "")


def docker_check(slots: list[DockerSlot]) -> Callable[[], CheckResult]:
    """The docker SDK for a pool's docker slots `slots`."""

    def check() -> CheckResult:
        try:
            return True, f"docker {importlib.metadata.version('docker')} for {len(slots)} docker slot(s)"
        except importlib.metadata.PackageNotFoundError:
            return False, f"{len(slots)} docker slot(s); the docker SDK is not installed"

    return check


def qemu_files_check(slots: list[QemuSlot]) -> Callable[[], CheckResult]:
    """The image of each qemu slot in `slots`, and its kernel and initrd when it names them, readable."""

    def check() -> CheckResult:
        named = [
            (slot.name, key, getattr(slot, key)) for slot in slots for key in ("image", "kernel", "initrd")
        ]
        files = [(name, key, path) for name, key, path in named if path]
        unreadable = [
            f"{name}: no readable {key} at {path}"
            for name, key, path in files
            if not (os.path.isfile(path) and os.access(path, os.R_OK))
        ]
        if unreadable:
            return False, "; ".join(unreadable)
        return True, ", ".join(sorted({path for _, _, path in files}))

    return check


def kvm_note(slots: list[QemuSlot]) -> Callable[[], CheckResult]:
    """Whether the qemu slots `slots` get KVM or TCG here: a note, never a failure (TCG works, slower)."""

    def check() -> CheckResult:
        from stateact.sandbox.pool_qemu import KVM_DEVICE, kvm_verdict

        chosen = sorted({slot.accel for slot in slots} - {"auto"})
        fixed = f"; accel = {', '.join(chosen)} in the pool file" if chosen else ""
        if not os.access(KVM_DEVICE, os.R_OK | os.W_OK):
            return (
                True,
                f"{KVM_DEVICE} is not usable here: qemu slots use TCG (pure emulation, slower){fixed}",
            )
        verdict = kvm_verdict(slots[0].qemu)
        if verdict is None:
            return True, f"{KVM_DEVICE} is usable; the first boot tries KVM, TCG if it fails{fixed}"
        why = f" ({' '.join(verdict['note'].split())})" if verdict.get("note") else ""
        return True, f"probed here: {verdict['accel']}{why}{fixed}"

    return check


@dataclass(frozen=True)
class Check:
    """One row of the doctor's table: what it checks, how, and the command that fixes it."""

    name: str
    run: Callable[[], CheckResult]
    fix: str


CHECKS: tuple[Check, ...] = (
    Check("python packages", _versions, f"{sys.executable} -m pip install -e . (from the checkout)"),
    Check("the stateact command", _stateact_command, SETUP),
    Check("bubblewrap (sandbox isolation)", _which("bwrap"), apt("bubblewrap")),
    Check("pasta (the sandbox's network)", _which("pasta"), apt("passt")),
    Check("the sandbox's Python", _sandbox_python, "stateact doctor --fix"),
    Check("Xvfb", _which("Xvfb"), apt("xvfb")),
    Check("window manager", _which("openbox"), apt("openbox")),
    Check("xdotool", _which("xdotool"), apt("xdotool")),
    Check("xclip", _which("xclip"), apt("xclip")),
    Check("ffmpeg (recordings)", _which("ffmpeg"), apt("ffmpeg")),
    Check(
        "dbus and dconf (gsettings)",
        _dbus_dconf,
        apt("dbus-daemon", "dconf-service", "dconf-gsettings-backend", "gsettings-desktop-schemas"),
    ),
    Check("display (Xvfb + screenshot)", _display, apt("xvfb", "openbox")),
    Check("isolation (bubblewrap sandbox)", _isolation, f"{apt('bubblewrap')}; stateact doctor --fix"),
    Check(
        "sandbox limits (processes, memory)",
        _sandbox_limits,
        "run as root, or: systemd-run --user --scope -p Delegate=yes stateact ...",
    ),
    Check("disk caps (sandbox home, /tmp)", _disk_caps, "run as root"),
    Check("LibreOffice", _soffice, apt("libreoffice-calc", "libreoffice-writer", "libreoffice-impress")),
    Check("Chromium", _chromium, apt("chromium")),
    Check("tiktoken offline", _tiktoken, SETUP),
    Check("API keys", _keys, "export ANTHROPIC_API_KEY=... (or OPENAI_API_KEY=...)"),
)
"""Every check, in the order the table shows them."""


def pool_checks(pool: Path) -> tuple[Check, ...]:
    """What the slots of the pool file `pool` need: the docker SDK; qemu, its images and the KVM verdict."""
    from stateact.sandbox.pool_docker import DockerSlot
    from stateact.sandbox.pool_file import PoolError, load_pool
    from stateact.sandbox.pool_qemu import QemuSlot

    try:
        slots = load_pool(pool)
    except PoolError as exc:
        problem = str(exc)
        return (Check("pool file", lambda: (False, problem), "fix the pool file (docs/osworld.md)"),)
    checks: list[Check] = []
    containers = [slot for slot in slots if isinstance(slot, DockerSlot)]
    if containers:
        checks.append(Check("docker SDK (docker pool slots)", docker_check(containers), "pip install docker"))
    guests = [slot for slot in slots if isinstance(slot, QemuSlot)]
    if guests:
        programs = [*sorted({slot.qemu for slot in guests}), "qemu-img"]
        images = f"point the image (kernel, initrd) of each [[qemu]] entry in {pool} at a readable file"
        checks += [
            Check("qemu (qemu pool slots)", _which(*programs), apt("qemu-system-x86", "qemu-utils")),
            Check("qemu images", qemu_files_check(guests), f"{images}; a test guest: bash {GUEST_SCRIPT}"),
            Check("KVM (qemu pool slots)", kvm_note(guests), 'accel = "tcg" in the pool file'),
        ]
    return tuple(checks)


def checks_for(pool: Path | None = None) -> tuple[Check, ...]:
    """The checks of this machine; with a pool file, also what its slots need."""
    return CHECKS if pool is None else (*CHECKS, *pool_checks(pool))


def run_checks(console: Console, checks: tuple[Check, ...] = CHECKS) -> bool:
    """Run every check, print a table (with the fixing command of each that failed), and say whether
    all passed."""
    table = Table("check", "ok", "detail", "fix")
    all_ok = True
    for check in checks:
        try:
            ok, detail = check.run()
        except Exception as exc:
            ok, detail = False, f"{type(exc).__name__}: {exc}"
        all_ok &= ok
        verdict = "[green]yes[/green]" if ok else "[red]no[/red]"
        table.add_row(check.name, verdict, escape(detail), "" if ok else escape(check.fix))
    console.print(table)
    return all_ok


def fix_sandbox_python(say: Callable[[str], None]) -> bool:
    """Build the sandbox's Python when it is missing (the one fix that needs no system packages)."""
    from stateact.sandbox import settings
    from stateact.sandbox.base import SandboxError
    from stateact.sandbox.runtime import build_runtime, runtime_ready

    if runtime_ready(settings.RUNTIME_DIR):
        return True
    say(f"building the sandbox's Python at {settings.RUNTIME_DIR} ...")
    try:
        build_runtime(settings.RUNTIME_DIR)
    except SandboxError as exc:
        say(f"error: {exc}")
        return False
    return True
