"""A pool slot that boots a qcow2 VM image with qemu, reverted by dropping its copy-on-write overlay.

    slot = QemuSlot.create("q1", image="/vms/Ubuntu.qcow2")          # free loopback ports picked here
    slot = QemuSlot.create("q1", image="guest.qcow2", kernel="vmlinuz", initrd="initrd.img")

Every lease kills the slot's qemu (if any), deletes its overlay, makes a new one over the base image
(`qemu-img create -b`: the base is only ever read) and boots it: user-mode networking forwards the VM
server's port 5000 and Chromium's DevTools port 9222 to `port` and `cdp_port` on 127.0.0.1. Then the
slot waits for the server and checks a fresh state like a VMSlot. A qemu that dies mid-task makes the
slot unhealthy, so the job runs again on another slot.

KVM is used when it works: the first boot of a process tries it (when /dev/kvm is usable) and, when the
server does not answer within QEMU_KVM_PROBE_S (a guest that stalls in early boot under partial nested
virtualization), notes why, kills that boot and boots with TCG (pure emulation); the verdict is kept in
the state folder, so it is probed once per machine. `accel = "kvm"` or `"tcg"` skips the probe.
qemu runs daemonized (its pid in the slot's state folder), so a slot holds no process handle and can be
sent to other processes like the other slots.

A qemu never outlives the harness process that booted it: each boot has a tag, carried in qemu's
environment, and a guard (sandbox/guard.py) that ends the tagged processes when that process dies, however
it dies. The boot is recorded in the leftovers registry (sandbox/leftovers.py) with its overlay (named after
the tag), so what a dead harness left (the overlay; the qemu too if its guard died with it) is removed by
the next lease of any qemu slot, the next local sandbox's start, or `stateact cleanup --remove`.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import secrets
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from stateact.sandbox import settings
from stateact.sandbox.base import Sandbox
from stateact.sandbox.guard import Guard
from stateact.sandbox.leftovers import register, release, remove_stale
from stateact.sandbox.pool import SlotRetired, VMSlot
from stateact.sandbox.processes import TAG_VARIABLE

GUEST_SERVER_PORT = 5000
GUEST_CDP_PORT = 9222
ACCELERATORS = ("auto", "kvm", "tcg")
KVM_DEVICE = Path("/dev/kvm")
VERDICT_FILE = "kvm-verdict.json"
CONSOLE_TAIL_CHARS = 600
"""How much of the guest's console a retirement reason quotes."""
OVERLAY_PREFIX = "overlay-"
LEFTOVER_KIND = "qemu guest"

_GUARDS: dict[str, tuple[Path, Guard]] = {}
"""The slot folder and guard of each boot this process made and has not ended, by the boot's tag."""
_GUARDS_LOCK = threading.Lock()
"""Held while `_GUARDS` changes or is read (a pool's slots lease and close in threads of their own)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def default_state_root() -> Path:
    return Path(tempfile.gettempdir()) / settings.QEMU_STATE_DIR


@dataclass(frozen=True)
class QemuSlot(VMSlot):
    """A qcow2 image booted by qemu on this machine, on a fresh overlay for every lease; `url` and
    `reset` are derived (see `create`)."""

    image: str = ""
    port: int = 0
    cdp_port: int = 0
    memory_mb: int = settings.QEMU_MEMORY_MB
    cpus: int = settings.QEMU_CPUS
    accel: str = "auto"
    kernel: str = ""
    """A kernel to boot directly (an image with no boot loader, like the test guest); empty: the image
    boots itself."""
    initrd: str = ""
    kernel_args: str = "root=/dev/vda rw console=ttyS0 quiet"
    state_dir: str = ""
    """The slot's overlay, pid file and console log (default: `stateact-qemu/NAME-PORT` in the temporary folder)."""
    qemu: str = settings.QEMU_BINARY

    @classmethod
    def create(cls, name: str, image: str, port: int = 0, cdp_port: int = 0, **options) -> QemuSlot:
        """A slot whose ports are `port` and `cdp_port`, or free ones picked now when 0."""
        if options.get("accel", "auto") not in ACCELERATORS:
            raise ValueError(f"accel must be one of {', '.join(ACCELERATORS)}")
        port, cdp_port = port or free_port(), cdp_port or free_port()
        files = {key: str(Path(options[key]).resolve()) for key in ("kernel", "initrd") if options.get(key)}
        return cls(
            name=name,
            url=f"http://127.0.0.1:{port}",
            reset="",
            image=str(Path(image).resolve()),
            port=port,
            cdp_port=cdp_port,
            **{**options, **files},
        )

    # -- files ---------------------------------------------------------------------
    @property
    def folder(self) -> Path:
        """`state_dir`, or a folder named after the slot and its port: two pools on this machine never share
        one (a lease kills the qemu whose pid its folder holds)."""
        return Path(self.state_dir) if self.state_dir else default_state_root() / f"{self.name}-{self.port}"

    def overlay(self, tag: str) -> Path:
        """The overlay of the boot tagged `tag`."""
        return self.folder / f"{OVERLAY_PREFIX}{tag}.qcow2"

    def overlays(self) -> list[Path]:
        """The overlays in the slot's folder (one while a guest runs)."""
        return sorted(self.folder.glob(f"{OVERLAY_PREFIX}*.qcow2"))

    @property
    def console_log(self) -> Path:
        return self.folder / "console.log"

    @property
    def pid_file(self) -> Path:
        return self.folder / "qemu.pid"

    # -- the slot --------------------------------------------------------------------
    def lease(self, workdir: Path) -> Sandbox:
        self.close()
        remove_stale()  # what qemu guests (and sandboxes) of dead harnesses left
        if not Path(self.image).is_file():
            raise SlotRetired(self.name, f"no VM image at {self.image}")
        note = ""
        accel = self.accel if self.accel != "auto" else _known_accelerator(self.qemu)
        if accel == "probe":
            accel, note = self._probe_kvm()
        if not self._running():
            self.boot(accel)
        if not self._wait_boot(self.ready_timeout_s):
            raise SlotRetired(
                self.name,
                f"the guest's server did not answer on {self.url} within {self.ready_timeout_s:.0f} s "
                f"of booting with {accel}; its console ends: {self._console_tail()}",
            )
        if note:  # KVM failed where TCG works: not the image's fault, so the machine's verdict
            _remember(self.qemu, "tcg", note)
        sandbox = self._fresh_session()
        sandbox.cdp_port = self.cdp_port
        sandbox.warnings.extend([note] if note else [])
        return sandbox

    def _probe_kvm(self) -> tuple[str, str]:
        """Boot with KVM: ("kvm", "") when the guest answers in time (it keeps running; remembered for this
        machine), else ("tcg", why) with that boot ended."""
        try:
            self.boot("kvm")
        except SlotRetired as exc:
            failure = f"qemu does not start with KVM ({exc.reason})"
        else:
            if self._wait_boot(settings.QEMU_KVM_PROBE_S):
                return _remember(self.qemu, "kvm", ""), ""
            failure = (
                f"a guest under KVM did not answer within {settings.QEMU_KVM_PROBE_S:.0f} s (it stalls in "
                "early boot where nested virtualization is partial)"
            )
        self.close()
        note = (
            f"KVM does not work here: {failure}; qemu slots use TCG (pure emulation, slower) on this machine"
        )
        return "tcg", note

    def healthy(self) -> bool:
        return self._running() and self._answers()

    def close(self) -> None:
        """Kill the slot's qemu, drop its overlay (the base image is untouched) and release its guard."""
        pid = self._pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + settings.QEMU_STOP_TIMEOUT_S
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _alive(pid):
                raise SlotRetired(self.name, f"its qemu (pid {pid}) did not end when killed")
        self.pid_file.unlink(missing_ok=True)
        tags = {path.name.removeprefix(OVERLAY_PREFIX).removesuffix(".qcow2") for path in self.overlays()}
        with _GUARDS_LOCK:
            tags |= {tag for tag, (folder, _) in _GUARDS.items() if folder == self.folder}  # a failed boot's
            guards = [_GUARDS.pop(tag)[1] for tag in tags if tag in _GUARDS]
        for tag in tags:
            self.overlay(tag).unlink(missing_ok=True)
            release(tag)
        for guard in guards:
            guard.release()

    # -- qemu ------------------------------------------------------------------------
    def boot(self, accel: str) -> None:
        """A new overlay over the base image and a daemonized qemu booting it with `accel`, tagged, guarded
        and recorded (see the module's docstring)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        tag = secrets.token_hex(8)
        register(tag, LEFTOVER_KIND, (self.overlay(tag),))
        guard = Guard(tag)
        with _GUARDS_LOCK:
            _GUARDS[tag] = (self.folder, guard)
        made = subprocess.run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-F", _format(self.image), "-b", self.image]
            + [str(self.overlay(tag))],
            capture_output=True,
            text=True,
        )
        if made.returncode != 0:
            raise SlotRetired(self.name, f"cannot make an overlay of {self.image}: {made.stderr.strip()}")
        self.console_log.unlink(missing_ok=True)
        try:
            started = subprocess.run(
                self.command(accel, tag),
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, TAG_VARIABLE: tag},
            )
        except FileNotFoundError:
            raise SlotRetired(self.name, f"{self.qemu} is not installed (Debian: qemu-system-x86)") from None
        if started.returncode != 0:
            raise SlotRetired(
                self.name, f"qemu did not start: {started.stderr.strip()[-CONSOLE_TAIL_CHARS:]}"
            )

    def command(self, accel: str, tag: str) -> list[str]:
        """The qemu command line of the boot tagged `tag` with `accel` (kvm or tcg)."""
        forwards = (
            f"hostfwd=tcp:127.0.0.1:{self.port}-:{GUEST_SERVER_PORT},"
            f"hostfwd=tcp:127.0.0.1:{self.cdp_port}-:{GUEST_CDP_PORT}"
        )
        argv = [
            self.qemu,
            "-name", f"stateact-{self.name}",
            "-machine", f"q35,accel={accel}",
            "-cpu", "host" if accel == "kvm" else "max",
            "-m", str(self.memory_mb),
            "-smp", str(self.cpus),
            "-drive", f"file={self.overlay(tag)},if=virtio,format=qcow2,cache=unsafe",
            "-netdev", f"user,id=net0,{forwards}",
            "-device", "virtio-net-pci,netdev=net0,romfile=",  # no PXE ROM: the guest boots from its disk
            "-display", "none",
            "-serial", f"file:{self.console_log}",
            "-monitor", "none",
            "-daemonize",
            "-pidfile", str(self.pid_file),
        ]  # fmt: skip
        if self.kernel:
            argv += ["-kernel", self.kernel, "-append", self.kernel_args]
            argv += ["-initrd", self.initrd] if self.initrd else []
        return argv

    def _wait_boot(self, timeout_s: float) -> bool:
        """Whether the guest's server answers within `timeout_s`; False at once when qemu has ended."""
        deadline = time.monotonic() + timeout_s
        while self._running():
            if self._answers():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(settings.POOL_READY_POLL_S / 4)
        return False

    def _pid(self) -> int | None:
        """The pid of the slot's qemu: the pid file's, when that process is a qemu started with this pid
        file (a pid reused by another process after qemu ended is never the slot's)."""
        try:
            pid = int(self.pid_file.read_text().strip())
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            return None
        return pid if str(self.pid_file).encode() in command else None

    def _running(self) -> bool:
        pid = self._pid()
        return pid is not None and _alive(pid)

    def _console_tail(self) -> str:
        try:
            text = self.console_log.read_text(errors="replace")
        except OSError:
            return "(no console output)"
        return text.strip()[-CONSOLE_TAIL_CHARS:] or "(no console output)"


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _format(image: str) -> str:
    """The format of `image` as qemu-img reads it (a raw image is a valid backing file too)."""
    info = subprocess.run(["qemu-img", "info", "--output=json", image], capture_output=True, text=True)
    try:
        return str(json.loads(info.stdout)["format"])
    except (ValueError, KeyError):
        return "qcow2"


# -- the KVM verdict, kept per machine ---------------------------------------------------
def _verdict_file() -> Path:
    return default_state_root() / VERDICT_FILE


def _machine_key(qemu: str) -> str:
    return f"{platform.release()} {qemu}"


def _known_accelerator(qemu: str) -> str:
    """`kvm` or `tcg` when this machine's verdict is known, `tcg` when /dev/kvm is not usable, else
    `probe` (try KVM on this boot)."""
    if not os.access(KVM_DEVICE, os.R_OK | os.W_OK):
        return "tcg"
    verdict = kvm_verdict(qemu)
    return verdict["accel"] if verdict else "probe"


def kvm_verdict(qemu: str = settings.QEMU_BINARY) -> dict | None:
    """{"accel": "kvm" or "tcg", "note": why} once probed on this machine, else None."""
    try:
        verdicts = json.loads(_verdict_file().read_text())
    except (OSError, ValueError):
        return None
    verdict = verdicts.get(_machine_key(qemu)) if isinstance(verdicts, dict) else None
    return verdict if isinstance(verdict, dict) and verdict.get("accel") in ("kvm", "tcg") else None


def _remember(qemu: str, accel: str, note: str) -> str:
    path = _verdict_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        verdicts = json.loads(path.read_text())
    except (OSError, ValueError):
        verdicts = {}
    verdicts[_machine_key(qemu)] = {"accel": accel, "note": note}
    path.write_text(json.dumps(verdicts, indent=1))
    return accel
