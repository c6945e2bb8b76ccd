"""Sandbox pools: slots that hand a job a sandbox, take it back, and reset it before the next job.

    slot = VMSlot("vm1", "http://10.0.0.5:5000", reset="virsh snapshot-revert osworld-1 clean")
    sandbox = slot.lease(workdir)  # reset, wait for the server, check a fresh state (SlotRetired if not)
    ...                            # sandbox is started
    slot.give_back(sandbox)

A `LocalSlot` hands out a fresh, unstarted LocalSandbox per job (isolated by bubblewrap unless its
`isolation` is `none`, with the harness's folders it names hidden). A `VMSlot`
drives one OSWorld VM and never hands it out without a reset: before every lease
it runs its reset command (a snapshot revert, on the machine that runs the slot,
with STATEACT_SLOT, STATEACT_VM_URL, STATEACT_VM_HOST and STATEACT_VM_PORT set),
waits for the VM server to answer, starts a session, and checks the state is
fresh: the lease marker it left in the VM the previous time must be gone. Then it
leaves the marker again. A slot that fails any of this raises SlotRetired: the
caller takes it out of the pool, reports it, and runs the job on another slot.
Slots are plain frozen dataclasses, so they can be sent to other processes.
"""

from __future__ import annotations

import os
import subprocess
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from stateact.sandbox import settings
from stateact.sandbox.base import Sandbox, SandboxError
from stateact.sandbox.caps import DEFAULT_CAPS, DiskCaps
from stateact.sandbox.limits import DEFAULT_LIMITS, SandboxLimits
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.osworld import OSWorldSandbox

THIS_MACHINE = "this machine"
"""The network of local sandboxes that share this machine's loopback."""
RESET_OUTPUT_CHARS = 500
"""How much of a failed reset command's output a retirement reason quotes."""


class SlotRetired(SandboxError):
    """A slot failed its reset or health check and must leave the pool."""

    def __init__(self, slot: str, reason: str) -> None:
        super().__init__(f"slot {slot} retired: {reason}")
        self.slot = slot
        self.reason = reason


class Slot(ABC):
    """One place a job runs; `lease` it for a job, `give_back` after."""

    name: str

    @abstractmethod
    def lease(self, workdir: Path) -> Sandbox:
        """A sandbox in its fresh state (started, or started by the caller); `workdir` is the job's scratch
        folder on this machine. Raises SlotRetired when the slot cannot give one."""

    @property
    def network(self) -> str | None:
        """The network its sandboxes share with other slots' sandboxes (jobs that serve on one port cannot
        run at once on it), or None when each sandbox has a network of its own (a VM)."""
        return None

    def give_back(self, sandbox: Sandbox) -> None:
        sandbox.close()

    def healthy(self) -> bool:
        """Whether the slot still answers (asked after a job that ended with an error)."""
        return True

    def close(self) -> None:
        """Release what the slot holds between jobs (called once, when the suite ends)."""
        return None


@dataclass(frozen=True)
class LocalSlot(Slot):
    """A fresh LocalSandbox for every job, its home under the job's scratch folder; `hidden` are host
    folders an isolated sandbox must not see (results, caches, task files) besides the harness's own."""

    name: str
    display: bool = True
    isolation: str = settings.DEFAULT_ISOLATION
    hidden: tuple[Path, ...] = ()
    network_mode: str = settings.DEFAULT_NETWORK
    """An isolated sandbox's network (sandbox/netns.py): `own`, or this machine's (`host`)."""
    limits: SandboxLimits = DEFAULT_LIMITS
    """Processes and memory each sandbox may use (sandbox/cgroups.py)."""
    disk: DiskCaps = DEFAULT_CAPS
    """The disk caps of an isolated sandbox's home and /tmp (sandbox/mounts.py)."""

    @property
    def network(self) -> str | None:
        """None for isolated sandboxes with a network of their own: their jobs serve on any port."""
        own = self.isolation == "bwrap" and self.network_mode == "own"
        return None if own else THIS_MACHINE

    def lease(self, workdir: Path) -> Sandbox:
        return LocalSandbox(
            Path(workdir) / "home",
            display=self.display,
            isolation=self.isolation,
            hidden=self.hidden,
            network=self.network_mode,
            limits=self.limits,
            disk=self.disk,
        )


@dataclass(frozen=True)
class VMSlot(Slot):
    """An OSWorld VM at `url` (http://HOST:PORT) that `reset` (a shell command) restores to its snapshot."""

    name: str
    url: str
    reset: str
    reset_timeout_s: float = settings.POOL_RESET_TIMEOUT_S
    ready_timeout_s: float = settings.POOL_READY_TIMEOUT_S
    marker: str = settings.POOL_LEASE_MARKER

    def lease(self, workdir: Path) -> Sandbox:
        self._run_reset()
        return self._fresh_session()

    def _fresh_session(self) -> Sandbox:
        """A started session on the VM once its server answers, checked fresh and marked as leased."""
        self._wait_ready()
        sandbox = OSWorldSandbox(self.url)
        try:
            sandbox.start()
            fresh = sandbox.run(f"test ! -e {self.marker}", timeout=settings.POOL_PROBE_TIMEOUT_S)
            if not fresh.ok:
                raise SlotRetired(
                    self.name, f"{self.marker} is still there after the reset: it restored nothing"
                )
            left = sandbox.run(f"touch {self.marker}", timeout=settings.POOL_PROBE_TIMEOUT_S)
            if not left.ok:
                raise SlotRetired(self.name, f"cannot leave {self.marker}: {left.output.strip()[:200]}")
        except SlotRetired:
            sandbox.close()
            raise
        except Exception as exc:  # any failure to start a session after a reset retires the VM
            sandbox.close()
            raise SlotRetired(self.name, f"no working session after the reset: {exc}") from exc
        return sandbox

    def healthy(self) -> bool:
        return self._answers()

    def _run_reset(self) -> None:
        address = urlsplit(self.url)
        env = {
            **os.environ,
            "STATEACT_SLOT": self.name,
            "STATEACT_VM_URL": self.url,
            "STATEACT_VM_HOST": address.hostname or "",
            "STATEACT_VM_PORT": str(address.port or ""),
        }
        try:
            proc = subprocess.run(
                self.reset,
                shell=True,
                env=env,
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=self.reset_timeout_s,
            )
        except subprocess.TimeoutExpired:
            raise SlotRetired(self.name, f"the reset command ran over {self.reset_timeout_s:.0f} s") from None
        if proc.returncode != 0:
            output = (proc.stderr or proc.stdout).strip()[-RESET_OUTPUT_CHARS:]
            raise SlotRetired(self.name, f"the reset command exited {proc.returncode}: {output}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        while not self._answers():
            if time.monotonic() >= deadline:
                raise SlotRetired(
                    self.name,
                    f"the VM server at {self.url} did not answer within {self.ready_timeout_s:.0f} s",
                )
            time.sleep(settings.POOL_READY_POLL_S)

    def _answers(self) -> bool:
        try:
            response = httpx.get(f"{self.url}/platform", timeout=settings.POOL_PROBE_TIMEOUT_S)
        except httpx.HTTPError:
            return False
        return response.status_code == 200
