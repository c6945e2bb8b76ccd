"""Pools of OSWorld VMs from a TOML pool file or the command line.

    # pool.toml
    ready_timeout_s = 300                 # optional: defaults for every VM below
    [[vm]]
    name = "vm1"                          # optional (vm1, vm2, ... by position)
    url = "osworld://10.0.0.5:5000"
    reset = "virsh snapshot-revert osworld-1 clean"
    [[vm]]
    url = "osworld://10.0.0.6:5000"
    reset = "vmrun revertToSnapshot /vms/osworld-2.vmx clean"
    [[docker]]                            # OSWorld's Docker image, recreated before every job
    vm_image = "/vms/Ubuntu.qcow2"
    port = 15000                          # this machine's port for the VM server (5000 inside)
    cdp_port = 19222                      # optional: Chromium's CDP (9222 inside)
    image = "happysixd/osworld-docker"    # optional
    [[qemu]]                              # a qcow2 image booted by qemu here, on a fresh overlay per job
    image = "/vms/Ubuntu.qcow2"           # only read: each job writes to an overlay dropped after
    memory_mb = 4096                      # optional (2048), also: cpus, port, cdp_port (free ones),
    accel = "auto"                        # kvm, tcg, or auto (KVM when it works here), kernel,
                                          # initrd, kernel_args (direct kernel boot), state_dir

`load_pool(path)` reads such a file; `vm_pool(urls, reset)` builds the same from
`--vm osworld://HOST:PORT` (repeatable) and one `--reset-command` for all of
them (it tells the VMs apart by STATEACT_SLOT, STATEACT_VM_HOST, ...).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from stateact.sandbox.base import SandboxError
from stateact.sandbox.osworld import parse_osworld_spec
from stateact.sandbox.pool import LocalSlot, VMSlot
from stateact.sandbox.pool_docker import DockerSlot
from stateact.sandbox.pool_qemu import QemuSlot

VM_TABLE = "vm"
DOCKER_TABLE = "docker"
QEMU_TABLE = "qemu"
SHARED_KEYS = ("reset_timeout_s", "ready_timeout_s", "marker")
"""Settings a pool file may give once at the top, for every VM, or per VM."""
VM_KEYS = ("name", "url", "reset", *SHARED_KEYS)
DOCKER_KEYS = ("name", "vm_image", "port", "cdp_port", "image", "kvm", "ready_timeout_s", "marker")
QEMU_KEYS = (
    "name", "image", "port", "cdp_port", "memory_mb", "cpus", "accel", "kernel", "initrd", "kernel_args",
    "state_dir", "qemu", "ready_timeout_s", "marker",
)  # fmt: skip


class PoolError(ValueError):
    """A pool file or pool options that cannot be used."""


def local_pool(size: int, display: bool) -> list[LocalSlot]:
    """`size` local slots (a fresh LocalSandbox per job each)."""
    return [LocalSlot(f"local{i}", display) for i in range(1, size + 1)]


def vm_pool(urls: list[str], reset: str) -> list[VMSlot]:
    """One slot per `osworld://HOST:PORT`, all reset by the same command."""
    return _checked([_vm_slot({"url": url, "reset": reset}, {}, i) for i, url in enumerate(urls, 1)], "--vm")


def load_pool(path: Path) -> list[VMSlot]:
    """The VM (and Docker) slots of a TOML pool file; PoolError names the file and what is wrong."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PoolError(f"cannot read the pool file {path}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise PoolError(f"the pool file {path} is not TOML: {exc}") from exc
    unknown = set(data) - {VM_TABLE, DOCKER_TABLE, QEMU_TABLE, *SHARED_KEYS}
    if unknown:
        raise PoolError(f"unknown key(s) in {path}: {', '.join(sorted(unknown))}")
    vms, containers, guests = (data.get(table, []) for table in (VM_TABLE, DOCKER_TABLE, QEMU_TABLE))
    if not all(isinstance(entries, list) for entries in (vms, containers, guests)) or not (
        vms + containers + guests
    ):
        raise PoolError(f"no [[{VM_TABLE}]], [[{DOCKER_TABLE}]] or [[{QEMU_TABLE}]] entries in {path}")
    shared = {key: data[key] for key in SHARED_KEYS if key in data}
    try:
        slots = [_vm_slot(entry, shared, i) for i, entry in enumerate(vms, 1)]
        slots += [_docker_slot(entry, shared, i) for i, entry in enumerate(containers, 1)]
        slots += [_qemu_slot(entry, shared, i, Path(path).parent) for i, entry in enumerate(guests, 1)]
    except PoolError as exc:
        raise PoolError(f"{path}: {exc}") from None
    return _checked(slots, str(path))


def _docker_slot(entry: dict, shared: dict, position: int) -> DockerSlot:
    unknown = set(entry) - set(DOCKER_KEYS)
    if unknown:
        raise PoolError(f"docker {position}: unknown key(s) {', '.join(sorted(unknown))}")
    if not str(entry.get("vm_image") or "").strip() or not isinstance(entry.get("port"), int):
        raise PoolError(f"docker {position} needs `vm_image` (a qcow2 file) and `port` (a number)")
    options = {key: value for key, value in {**shared, **entry}.items() if key in DOCKER_KEYS}
    options.pop("reset_timeout_s", None)
    name = str(options.pop("name", "") or f"docker{position}")
    return DockerSlot.create(name, str(options.pop("vm_image")), options.pop("port"), **options)


def _qemu_slot(entry: dict, shared: dict, position: int, folder: Path) -> QemuSlot:
    """A [[qemu]] entry; its file paths are read from the pool file's folder when relative."""
    unknown = set(entry) - set(QEMU_KEYS)
    if unknown:
        raise PoolError(f"qemu {position}: unknown key(s) {', '.join(sorted(unknown))}")
    if not str(entry.get("image") or "").strip():
        raise PoolError(f"qemu {position} needs `image` (a qcow2 file)")
    options = {key: value for key, value in {**shared, **entry}.items() if key in QEMU_KEYS}
    for key in ("image", "kernel", "initrd", "state_dir"):
        if options.get(key):
            options[key] = str(folder / Path(options[key]).expanduser())
    name = str(options.pop("name", "") or f"qemu{position}")
    try:
        return QemuSlot.create(name, **options)
    except (TypeError, ValueError) as exc:
        raise PoolError(f"qemu {position}: {exc}") from None


def _vm_slot(entry: dict, shared: dict, position: int) -> VMSlot:
    unknown = set(entry) - set(VM_KEYS)
    if unknown:
        raise PoolError(f"VM {position}: unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("url", "reset"):
        if not str(entry.get(key) or "").strip():
            raise PoolError(f"VM {position} has no `{key}`")
    options = {**shared, **{key: entry[key] for key in SHARED_KEYS if key in entry}}
    try:
        url = parse_osworld_spec(str(entry["url"]))
    except SandboxError as exc:
        raise PoolError(f"VM {position}: {exc}") from None
    return VMSlot(
        name=str(entry.get("name") or f"vm{position}"),
        url=url,
        reset=str(entry["reset"]),
        **options,
    )


def _checked(slots: list[VMSlot], source: str) -> list[VMSlot]:
    names = [slot.name for slot in slots]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise PoolError(f"slot names used twice in {source}: {', '.join(twice)}")
    return slots


def pool_from_options(pool_file: Path | None, vms: list[str], reset: str | None) -> list[VMSlot]:
    """The VM pool `--pool FILE` or `--vm URL ... --reset-command CMD` ask for (empty: none asked)."""
    if pool_file is not None and vms:
        raise PoolError("give the VMs either in a pool file (--pool) or with --vm, not both")
    if pool_file is not None:
        return load_pool(pool_file)
    if vms and not (reset or "").strip():
        raise PoolError("--vm needs --reset-command: a VM is never reused without a reset")
    if reset and not vms:
        raise PoolError("--reset-command needs at least one --vm")
    return vm_pool(vms, reset or "") if vms else []
