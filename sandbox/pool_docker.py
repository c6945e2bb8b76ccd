"""A pool slot that runs OSWorld's Docker image through the `docker` Python SDK (`pip install docker`).

    slot = DockerSlot("d1", vm_image="/vms/Ubuntu.qcow2", port=15000, cdp_port=19222)

The container (`stateact-<name>`) boots the VM image read-only with KVM, as
OSWorld's Docker provider does, and publishes the VM server's port 5000 and
Chromium's CDP port 9222 on this machine's `port` and `cdp_port`. Revert is
recreate: every lease removes the slot's container and starts a new one, so a
task always starts on the pristine image; then the slot waits for the server and
checks a fresh state like a VMSlot. `close` removes the container.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateact.sandbox.base import Sandbox
from stateact.sandbox.pool import SlotRetired, VMSlot

OSWORLD_IMAGE = "happysixd/osworld-docker"
SERVER_PORT = "5000/tcp"
CDP_PORT = "9222/tcp"
VM_IMAGE_MOUNT = "/System.qcow2"
CONTAINER_PREFIX = "stateact-"


def docker_client() -> Any:
    """The Docker daemon of this machine's environment (DOCKER_HOST, or the local socket)."""
    try:
        import docker
    except ImportError as exc:
        raise SlotRetired("docker", "the docker pool needs the docker SDK: pip install docker") from exc
    return docker.from_env()


@dataclass(frozen=True)
class DockerSlot(VMSlot):
    """OSWorld's image in a container recreated before every job; `url` and `reset` are derived."""

    vm_image: str = ""
    port: int = 0
    cdp_port: int | None = None
    image: str = OSWORLD_IMAGE
    environment: tuple[tuple[str, str], ...] = ()
    """Extra variables for the image (e.g. RAM_SIZE, CPU_CORES)."""
    kvm: bool = True
    client_factory: Callable[[], Any] = field(default=docker_client, compare=False)
    """Returns a `docker.DockerClient` (or a stand-in with the same `containers` calls)."""

    @classmethod
    def create(cls, name: str, vm_image: str, port: int, **options: Any) -> DockerSlot:
        return cls(
            name=name, url=f"http://127.0.0.1:{port}", reset="", vm_image=vm_image, port=port, **options
        )

    @property
    def container_name(self) -> str:
        return f"{CONTAINER_PREFIX}{self.name}"

    def lease(self, workdir: Path) -> Sandbox:
        self.close()
        ports = {SERVER_PORT: self.port, **({CDP_PORT: self.cdp_port} if self.cdp_port else {})}
        try:
            self.client_factory().containers.run(
                self.image,
                name=self.container_name,
                detach=True,
                ports=ports,
                volumes={str(Path(self.vm_image).resolve()): {"bind": VM_IMAGE_MOUNT, "mode": "ro"}},
                devices=["/dev/kvm"] if self.kvm else [],
                cap_add=["NET_ADMIN"],
                environment=dict(self.environment),
            )
        except SlotRetired:
            raise
        except Exception as exc:  # the daemon's errors (no image, port taken, no KVM)
            raise SlotRetired(self.name, f"cannot start {self.image}: {exc}") from exc
        return self._fresh_session()

    def close(self) -> None:
        """Remove the slot's container if there is one."""
        containers = self.client_factory().containers
        try:
            container = containers.get(self.container_name)
        except Exception:  # docker.errors.NotFound: nothing to remove
            return
        container.remove(force=True)
