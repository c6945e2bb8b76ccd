"""The network of an isolated sandbox (real bubblewrap, pasta, relays): its own loopback, the host's out
of reach but for the sites a task names, the harness's ways in, and no host path in what it can read."""

from __future__ import annotations

import secrets
import shutil
import subprocess
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from stateact.sandbox.isolation import CHECKOUT, bwrap_problem
from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.runtime import runtime_ready
from stateact.subagents.sandbox_browser import SandboxChromium

pytestmark = pytest.mark.skipif(
    bool(bwrap_problem()) or not runtime_ready(), reason="bubblewrap or the sandbox Python is not available"
)
TOKEN = secrets.token_hex(8)


@contextmanager
def token_server():
    """A server on the host's 127.0.0.1 answering TOKEN; yields its port."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            return

        def do_GET(self) -> None:
            body = TOKEN.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def fetch(sandbox: LocalSandbox, url: str) -> str:
    """What `url` answers from inside the sandbox ('' when nothing does)."""
    return sandbox.run(f"curl -s -m 3 {url}", timeout=15).stdout


@pytest.fixture
def box(tmp_path):
    with LocalSandbox(
        tmp_path / "runs" / "r1" / "home", isolation="bwrap", hidden=[tmp_path / "runs"]
    ) as sandbox:
        yield sandbox


def test_the_hosts_loopback_is_out_of_reach_but_for_the_sites_the_task_names(box):
    with token_server() as named, token_server() as other:
        assert fetch(box, f"http://127.0.0.1:{other}/") == ""
        box.reach_host_ports([named])
        assert fetch(box, f"http://127.0.0.1:{named}/") == TOKEN
        assert fetch(box, f"http://localhost:{named}/") == TOKEN
        assert fetch(box, f"http://127.0.0.1:{other}/") == ""


def test_a_port_served_inside_stays_the_sandboxs_own(box):
    box.launch("python3 -m http.server 18977 --bind 127.0.0.1 -d /tmp")
    assert box.run("for i in $(seq 50); do curl -s -o /dev/null 127.0.0.1:18977 && break; sleep 0.1; done").ok
    with token_server() as port:
        box.reach_host_ports([port, 18977])  # 18977 is taken inside: not forwarded
    with pytest.raises(httpx.ConnectError):
        httpx.get("http://127.0.0.1:18977/", timeout=2)  # the host's loopback does not have it
    reached = httpx.get(box.harness_url("http://127.0.0.1:18977/"), timeout=5)
    assert (
        reached.status_code == 200 and box.harness_url("http://127.0.0.1:18977/") != "http://127.0.0.1:18977/"
    )


def test_the_namespace_is_set_up_for_outbound_traffic(box):
    if (
        shutil.which("pasta") is None
        or not subprocess.run(["ip", "route", "show", "default"], capture_output=True, text=True).stdout
    ):
        pytest.skip("no pasta, or this machine has no default route")
    assert not box.warnings
    assert "default via" in box.run("ip route show default").stdout  # no packet is sent
    assert "nameserver" in box.read_file("/etc/resolv.conf").decode()


@pytest.mark.slow
def test_another_sandboxs_devtools_port_is_out_of_reach(box, tmp_path):
    with LocalSandbox(tmp_path / "other" / "home", isolation="bwrap") as other:
        chromium = SandboxChromium(other)
        endpoint = chromium.start()
        try:
            assert (
                httpx.get(f"{endpoint}/json/version", timeout=5).status_code == 200
            )  # the harness reaches it
            inner = chromium.sandbox.run(f"cat {chromium.profile}/DevToolsActivePort").stdout.split()[0]
            assert fetch(other, f"http://127.0.0.1:{inner}/json/version")  # its own sandbox too
            for port in (inner, endpoint.rsplit(":", 1)[1]):
                assert fetch(box, f"http://127.0.0.1:{port}/json/version") == ""
        finally:
            chromium.stop()


def test_no_process_inside_names_a_host_path(box):
    box.launch("sleep 300")
    box.open_shell(box.resolve("/tmp")).run("true", timeout=10)
    hidden = [str(CHECKOUT), box.host_home, str(box.resolve("/tmp"))]
    script = (
        "import glob\n"
        "for path in glob.glob('/proc/[0-9]*/cmdline') + glob.glob('/proc/[0-9]*/environ'):\n"
        "    try:\n"
        "        print(path, open(path, 'rb').read().replace(b'\\0', b' ').decode(errors='replace'))\n"
        "    except OSError as exc:\n"
        "        print(path, 'unreadable', exc.errno)\n"
    )
    seen = box.run_python(script).stdout
    assert "/proc/1/cmdline bwrap --args" in seen
    assert "sleep 300" in seen
    for path in hidden:
        assert path not in seen, [line for line in seen.splitlines() if path in line]
