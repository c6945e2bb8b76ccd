"""The test guest: a Debian VM image (scripts/build_vm_guest.sh) serving the VM server double on port 5000,
booted by a QemuSlot.

    folder = guest_image()                      # built once, then cached by the script's content hash
    with leased_guest(folder, tmp_path) as (sandbox, slot): ...
    guest = SharedGuest(folder, tmp_path)       # one boot for every test that needs only a started session
    guest.session.run("..."); guest.revert()    # the slot's own revert (as between two jobs): a fresh boot

Tests on it are marked `vm` (and `slow`); they need root, debootstrap and qemu (scripts/setup.sh).
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from stateact.sandbox.osworld import OSWorldSandbox
from stateact.sandbox.pool_qemu import QemuSlot
from tests.support.osworld_vm_server import VMServer, vm_under_test

BUILD_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_vm_guest.sh"
BUILD_TIMEOUT_S = 1800
TEST_TIMEOUT_S = 1200
"""A test on the guest: the guest's first build on a fresh machine, then up to three boots under TCG."""
ON_GUEST = pytest.mark.vm, pytest.mark.slow, pytest.mark.timeout(TEST_TIMEOUT_S)
VM_KINDS = ("double", pytest.param("guest", marks=ON_GUEST))
"""Parameters of a fixture that gives the VM backend's tests the server double, then the test guest."""


def guest_image() -> Path:
    """The folder with guest.qcow2, vmlinuz and initrd.img (built by the script unless cached)."""
    proc = subprocess.run(
        ["bash", str(BUILD_SCRIPT)], capture_output=True, text=True, timeout=BUILD_TIMEOUT_S
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the test guest did not build: {proc.stderr.strip()[-2000:]}")
    return Path(proc.stdout.strip().splitlines()[-1])


def guest_slot(folder: Path, name: str, state_root: Path, **options) -> QemuSlot:
    """A qemu slot on the test guest whose overlay and console log live in `state_root / name`."""
    return QemuSlot.create(
        name,
        image=str(folder / "guest.qcow2"),
        kernel=str(folder / "vmlinuz"),
        initrd=str(folder / "initrd.img"),
        state_dir=str(state_root / name),
        **options,
    )


@contextlib.contextmanager
def leased_guest(
    folder: Path, workdir: Path, name: str = "guest"
) -> Iterator[tuple[OSWorldSandbox, QemuSlot]]:
    """A started session on a freshly booted guest; the guest is killed and its overlay dropped after."""
    slot = guest_slot(folder, name, workdir / "qemu")
    try:
        sandbox = slot.lease(workdir)
        assert isinstance(sandbox, OSWorldSandbox)
        try:
            yield sandbox, slot
        finally:
            slot.give_back(sandbox)
    finally:
        slot.close()


class SharedGuest:
    """One test guest for a whole test run, shared by the tests that need only a started session (a boot
    under TCG takes about a minute). `session` is the current lease (booted on first use); `revert()` gives
    it back and leases again, which drops the overlay and boots afresh, as a pool does between two jobs."""

    def __init__(self, folder: Path, workdir: Path) -> None:
        self.workdir = workdir
        self.slot = guest_slot(folder, "shared", workdir / "qemu")
        self._session: OSWorldSandbox | None = None

    @property
    def session(self) -> OSWorldSandbox:
        if self._session is None:
            sandbox = self.slot.lease(self.workdir)
            assert isinstance(sandbox, OSWorldSandbox)
            self._session = sandbox
        return self._session

    def revert(self) -> OSWorldSandbox:
        """The session of a new lease: what the last one wrote is gone."""
        self._give_back()
        return self.session

    def close(self) -> None:
        """Give the session back and kill the guest (its overlay dropped)."""
        try:
            self._give_back()
        finally:
            self.slot.close()

    def _give_back(self) -> None:
        if self._session is not None:
            sandbox, self._session = self._session, None
            self.slot.give_back(sandbox)


@contextlib.contextmanager
def vm_of_kind(
    request: pytest.FixtureRequest, workdir: Path
) -> Iterator[tuple[OSWorldSandbox, VMServer | None, object | None]]:
    """For a fixture parametrized by VM_KINDS: `vm_under_test(workdir / "home")`, or the session of the shared
    test guest (then no double's internals: `(sandbox, None, None)`, as for a real server)."""
    if request.param != "guest":
        with vm_under_test(workdir / "home") as parts:
            yield parts
        return
    guest: SharedGuest = request.getfixturevalue("vm_guest")
    yield guest.session, None, None
