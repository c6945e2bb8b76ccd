"""The network of an isolated sandbox: a namespace of its own, and the ways in and out the harness owns.

The namespace (bubblewrap's `--unshare-net`, sandbox/isolation.py) has a loopback of its own, on which
the task's setup servers, the desk apps and the sandbox's Chromium listen; the host's loopback and the
other sandboxes' are not there. Outbound traffic goes through pasta (Debian's `passt` package), which
gives the namespace the host's address and routes and opens host sockets for its connections; it runs
with every port forward off (`-t/-u/-T/-U none`) and `--no-map-gw`, so nothing on the host's loopback
is reachable through it. A machine without pasta or without a route leaves the sandbox its loopback only.

The harness's own ways through are sockets a small process in the namespace makes (`SocketMaker`, run
in the namespace's network only and the harness's PID namespace, so the sandbox's `ps` cannot see it):
a socket connected to, or listening on, a port of the namespace's loopback, handed over a Unix socket
pair. `SandboxNetwork.inward(port)` is a host port on 127.0.0.1 relayed to that port inside (DevTools,
a task's site for the gate); `SandboxNetwork.bring_in(port)` makes the host's 127.0.0.1:port answer
on the same port inside (a site on the host that the task names).

    network = SandboxNetwork(enter, tag, pid_file)   # enter: the nsenter prefix into the namespace
    warning = network.start(netns_path)
    host_port = network.inward(9222)
    network.bring_in(18431)
    network.stop()
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from stateact.sandbox.base import SandboxError
from stateact.sandbox.processes import running
from stateact.sandbox.settings import NETWORK_MODES, PASTA_START_TIMEOUT_S, RELAY_CHUNK_BYTES

CHECKOUT = Path(__file__).resolve().parents[1]
LOOPBACK = "127.0.0.1"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost"})
"""How a URL names the loopback of the machine its reader is on."""
NETWORK_OPTION_HELP = (
    "An isolated sandbox's network: `own` (its own loopback; the host's is out of reach but for the sites "
    "the task names) or `host` (this machine's network, loopback included)."
)
URL_PATTERN = re.compile(r"https?://[^\s\"'<>`)\]]+", re.IGNORECASE)
"""An http(s) URL in free text (an instruction, a setup step's parameters)."""
PASTA_OPTIONS = (
    "--config-net",
    "--quiet",
    "--no-map-gw",
    "-t",
    "none",
    "-u",
    "none",
    "-T",
    "none",
    "-U",
    "none",
)
"""Outbound only: no port of the host forwarded in, none of the namespace's out, the gateway not mapped
to the host's loopback."""
CONNECT, LISTEN = "connect", "listen"
"""What the socket maker is asked for, with a port: `connect 9222`, `listen 18431`."""
REQUEST_BYTES = 64


def check_network(mode: str) -> str:
    """`mode` when it is a network mode; ValueError naming the modes otherwise."""
    if mode not in NETWORK_MODES:
        raise ValueError(f"unknown network {mode!r}: use one of {', '.join(NETWORK_MODES)}")
    return mode


def loopback_ports(text: str) -> set[int]:
    """The ports of the http(s) URLs on 127.0.0.1 or localhost that `text` names (default ports included)."""
    ports = set()
    for match in URL_PATTERN.finditer(text):
        try:
            parts = urlsplit(match.group(0).rstrip(".,;:!?"))
            port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        except ValueError:
            continue
        if parts.hostname in LOOPBACK_NAMES:
            ports.add(port)
    return ports


def serve(channel: socket.socket) -> None:
    """The socket maker's loop (in the namespace): answer each request with the socket it asks for, or
    with the error that prevented it; end when the harness closes the channel."""
    while request := channel.recv(REQUEST_BYTES).decode():
        kind, _, port = request.partition(" ")
        made = socket.socket()
        try:
            if kind == LISTEN:
                made.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                made.bind((LOOPBACK, int(port)))
                made.listen()
            else:
                made.connect((LOOPBACK, int(port)))
            socket.send_fds(channel, [b"ok"], [made.fileno()])
        except (OSError, ValueError) as exc:
            channel.sendall(f"{getattr(exc, 'errno', 0) or 0} {kind} {port}: {exc}".encode())
        finally:
            made.close()


class SocketMaker:
    """The process that makes sockets in the namespace `enter` leads into, and its channel."""

    def __init__(self, enter: Sequence[str], tag_env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair()
        self._channel = ours
        self._lock = threading.Lock()
        self._process = subprocess.Popen(
            [*enter, "--", sys.executable, "-I", "-c", _MAKER_CODE, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            env={"PYTHONPATH": str(CHECKOUT), **tag_env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        theirs.close()

    def make(self, kind: str, port: int) -> socket.socket:
        """A socket `kind` (CONNECT or LISTEN) on the namespace's 127.0.0.1:`port`; OSError when the
        namespace refuses it."""
        with self._lock:
            self._channel.sendall(f"{kind} {port}".encode())
            answer, fds, _, _ = socket.recv_fds(self._channel, 1024, 1)
        if not fds:
            if not answer:
                raise SandboxError(f"the sandbox's socket maker ended: {self._said()}")
            number, _, message = answer.decode().partition(" ")
            raise OSError(int(number), message)
        return socket.socket(fileno=fds[0])

    def _said(self) -> str:
        self._process.kill()
        return self._process.communicate()[1].decode(errors="replace").strip() or "no message"

    def stop(self) -> None:
        self._channel.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


# Run with `python -I` (no user site, no current folder): PYTHONPATH names the checkout only.
_MAKER_CODE = (
    "import os, sys; sys.path.insert(0, os.environ.pop('PYTHONPATH'));"
    "import socket; from sandbox.netns import serve; serve(socket.socket(fileno=int(sys.argv[1])))"
)


class Relay:
    """Connections accepted on `listener`, each joined to a socket `dial` makes, in daemon threads."""

    def __init__(self, listener: socket.socket, dial: Callable[[], socket.socket]) -> None:
        self.listener = listener
        self._dial = dial
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True, name="sandbox-relay").start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            try:
                peer = self._dial()
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open |= {client, peer}
            pair = _Pair(client, peer, self._finished)
            for source, target in ((client, peer), (peer, client)):
                threading.Thread(target=pair.pump, args=(source, target), daemon=True).start()

    def _finished(self, ends: tuple[socket.socket, socket.socket]) -> None:
        with self._lock:
            for end in ends:
                self._open.discard(end)
                end.close()

    def close(self) -> None:
        self.listener.close()
        with self._lock:
            for end in self._open:
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()
            self._open.clear()


class _Pair:
    """Two joined connections, pumped one way each by a thread; the second pump to end closes both."""

    def __init__(self, one: socket.socket, other: socket.socket, finished: Callable) -> None:
        self.ends = (one, other)
        self._running = 2
        self._lock = threading.Lock()
        self._finished = finished

    def pump(self, source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(RELAY_CHUNK_BYTES):
                target.sendall(data)
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)
        with self._lock:
            self._running -= 1
            last = not self._running
        if last:
            self._finished(self.ends)


class SandboxNetwork:
    """The sandbox namespace's outbound route (pasta) and the harness's relays into and out of it."""

    def __init__(self, enter: Sequence[str], tag_env: dict[str, str], pid_file: Path) -> None:
        self._enter = list(enter)
        self._tag_env = tag_env
        self._pid_file = pid_file
        self._maker: SocketMaker | None = None
        self._route: tuple[str, str | None] | None = None
        """The namespaces pasta was started into (None: it never ran)."""
        self._inward: dict[int, Relay] = {}
        self._brought_in: dict[int, Relay] = {}
        self._lock = threading.Lock()

    def start(self, netns: str, userns: str | None) -> str:
        """Start the socket maker and the outbound route into the namespace at `netns` (its user
        namespace `userns` when the harness is not root); returns a warning when there is no route out."""
        self._maker = SocketMaker(self._enter, self._tag_env)
        warning = self._start_pasta(netns, userns)
        if not warning:
            self._route = (netns, userns)
        return warning

    def restore_route(self) -> bool:
        """Start pasta again when it died (the open outbound connections are lost); whether it had died.
        SandboxError when it cannot start again."""
        if self._route is None or _alive(self._pid_file):
            return False
        warning = self._start_pasta(*self._route)
        if warning:
            raise SandboxError(warning)
        return True

    def _start_pasta(self, netns: str, userns: str | None) -> str:
        if shutil.which("pasta") is None:
            return "the sandbox has no outbound network: pasta is not installed (apt-get install passt)"
        owner = ["--runas", "0"] if userns is None else [f"--userns={userns}"]
        try:
            done = subprocess.run(
                ["pasta", *PASTA_OPTIONS, *owner, "-P", str(self._pid_file), f"--netns={netns}"],
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **self._tag_env},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PASTA_START_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return f"the sandbox has no outbound network: pasta did not start within {PASTA_START_TIMEOUT_S:.0f} s"
        if done.returncode != 0:
            said = " ".join(
                line for line in done.stderr.decode(errors="replace").splitlines() if "syslog" not in line
            )
            return f"the sandbox has no outbound network: pasta failed ({said.strip() or done.returncode})"
        return ""

    def inward(self, port: int) -> int:
        """The host port on 127.0.0.1 that reaches the namespace's 127.0.0.1:`port` (made on first use)."""
        with self._lock:
            relay = self._inward.get(port)
            if relay is None:
                listener = socket.create_server((LOOPBACK, 0))
                relay = self._inward[port] = Relay(
                    listener, lambda: self._require_maker().make(CONNECT, port)
                )
            return relay.listener.getsockname()[1]

    def bring_in(self, port: int) -> bool:
        """Make the host's 127.0.0.1:`port` answer on the namespace's 127.0.0.1:`port`; False when a
        process inside serves that port already (the sandbox's own server is the one its processes reach)."""
        with self._lock:
            if port in self._brought_in:
                return True
            try:
                listener = self._require_maker().make(LISTEN, port)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    return False
                raise SandboxError(
                    f"the host's port {port} cannot be forwarded into the sandbox: {exc}"
                ) from None
            self._brought_in[port] = Relay(listener, lambda: socket.create_connection((LOOPBACK, port)))
            return True

    @property
    def brought_in(self) -> frozenset[int]:
        """The host ports forwarded into the namespace."""
        return frozenset(self._brought_in)

    def _require_maker(self) -> SocketMaker:
        if self._maker is None:
            raise SandboxError("the sandbox's network is not started")
        return self._maker

    def stop(self) -> None:
        with self._lock:
            for relay in (*self._inward.values(), *self._brought_in.values()):
                relay.close()
            self._inward.clear()
            self._brought_in.clear()
        if self._maker is not None:
            self._maker.stop()
            self._maker = None
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(self._pid_file.read_text().split()[0]), signal.SIGTERM)
        self._pid_file.unlink(missing_ok=True)
        self._route = None


def _alive(pid_file: Path) -> bool:
    """Whether the process whose PID `pid_file` holds runs."""
    try:
        return running(int(pid_file.read_text().split()[0]))
    except (OSError, ValueError, IndexError):
        return False
