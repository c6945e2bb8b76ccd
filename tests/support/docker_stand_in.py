"""A stand-in for the Docker daemon, for the Docker pool where Docker is absent: `containers.run` of
OSWorld's image starts a test-double VM server (tests/support/osworld_vm_server.py) over a new local sandbox on
the published port; removing the container stops both. It takes the calls `sandbox/pool_docker.py`
makes, with the `docker` SDK's names."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from pathlib import Path

from stateact.sandbox.local import LocalSandbox
from tests.support.osworld_vm_server import VMServer


class NotFound(Exception):
    """As docker.errors.NotFound."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Container:
    name: str
    local: LocalSandbox
    server: VMServer
    removed: bool = False

    owner: StandInDocker | None = None

    def remove(self, force: bool = False) -> None:
        self.server.stop()
        self.local.close()
        self.removed = True
        if self.owner is not None:
            self.owner.forget(self.name)


@dataclass
class StandInDocker:
    """`client_factory` for a DockerSlot: `lambda: stand_in`."""

    root: Path
    runs: list[dict] = field(default_factory=list)
    """The keyword arguments of every `containers.run`."""
    live: dict[str, Container] = field(default_factory=dict)

    @property
    def containers(self) -> StandInDocker:
        return self

    def run(self, image: str, **options) -> Container:
        if options["name"] in self.live:
            raise RuntimeError(f"Conflict: the container name {options['name']} is already in use")
        for host_path in options["volumes"]:
            if not Path(host_path).is_file():
                raise RuntimeError(f"invalid mount config: {host_path} does not exist")
        self.runs.append({"image": image, **options})
        local = LocalSandbox(self.root / f"{options['name']}-{len(self.runs)}" / "home", display=True)
        local.start()
        server = VMServer(local, port=options["ports"]["5000/tcp"]).start()
        self.live[options["name"]] = Container(options["name"], local, server, owner=self)
        return self.live[options["name"]]

    def get(self, name: str) -> Container:
        if name not in self.live:
            raise NotFound(name)
        return self.live[name]

    def forget(self, name: str) -> None:
        self.live.pop(name, None)

    def remove_all(self) -> None:
        for container in self.live.values():
            if not container.removed:
                container.remove()
