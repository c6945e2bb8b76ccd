"""A test double of the OSWorld VM server, serving this machine.

It implements the documented routes (see OSWORLD.md) with real subprocesses,
real files and real pyautogui on the Xvfb display of a LocalSandbox: commands
run with the sandbox's environment (HOME is its work folder, DISPLAY its
Xvfb), so everything the server starts is cleaned up by the sandbox's close().
Only `/accessibility` is reduced: it lists the windows (wmctrl) as XML instead
of walking AT-SPI, under a root that declares the real server's namespaces and
with namespaced attributes as it has. Like the real server, `/file`,
`/setup/upload` and `/setup/open_file` take
`os.path.expandvars(os.path.expanduser(path))`, computed in the server's
environment (the sandbox's), and a relative path from the server's working
folder, which is not the home; commands run in that folder too, with the
server's own stdin.

`vm_under_test` gives the backend's conformance tests this double, or a real
server when OSWORLD_SERVER_URL is set.
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import io
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs
from xml.sax.saxutils import quoteattr

from stateact.sandbox.local import LocalSandbox
from stateact.sandbox.osworld import OSWorldSandbox

EXECUTE_TIMEOUT_S = 120
REAL_SERVER_VARIABLE = "OSWORLD_SERVER_URL"
"""Set to a real VM server's address (http://HOST:PORT) to run the conformance tests against it."""
ACCESSIBILITY_NAMESPACES = {
    "st": "https://accessibility.ubuntu.example.org/ns/state",
    "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
    "cp": "https://accessibility.ubuntu.example.org/ns/component",
}
"""Namespaces the real server's accessibility tree declares on its root (a subset of them)."""
PYTHON_TIMEOUT_S = 30


class VMServer:
    """Serves the VM routes for `sandbox` on `host` (`port` 0: a free one); `url` once started."""

    def __init__(self, sandbox: LocalSandbox, port: int = 0, host: str = "127.0.0.1") -> None:
        self.sandbox = sandbox
        self.requests: list[str] = []
        self.body_bytes: list[int] = []
        """The size of each request's body, in the order of `requests`."""
        self.fail_next: dict[str, int] = {}
        """Route -> how many of its next requests answer `failure_status` (to exercise client retries)."""
        self.failure_status = 503
        """503: a gateway before a VM that is not there; 500: the route's own handler raised."""
        handler = type("Handler", (_Handler,), {"vm": self})
        self._server = ThreadingHTTPServer((host, port), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> VMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- the routes' work ------------------------------------------------------
    @property
    def working_folder(self) -> Path:
        """The server process's working folder (the real one is not the home either)."""
        return Path(self.sandbox.home).parent

    def server_path(self, raw: str) -> Path:
        """The file the real server uses for `raw`: its own expression, run in its environment and folder."""
        code = "import os, sys; print(os.path.expandvars(os.path.expanduser(sys.argv[1])))"
        proc = subprocess.run(
            [sys.executable, "-c", code, raw],
            env=self.sandbox.env,
            cwd=self.working_folder,
            capture_output=True,
            text=True,
            check=True,
        )
        return self.working_folder / proc.stdout.removesuffix("\n")

    def execute(self, body: dict) -> tuple[int, dict]:
        command, shell = body.get("command"), bool(body.get("shell", False))
        if isinstance(command, str) and not shell:
            command = shlex.split(command)
        try:
            proc = subprocess.run(
                command,
                shell=shell,
                env=self.sandbox.env,
                cwd=self.working_folder,
                capture_output=True,
                text=True,
                timeout=EXECUTE_TIMEOUT_S,
            )
        except Exception as exc:  # the real server answers every failure this way
            return 500, {"status": "error", "message": str(exc)}
        return 200, {
            "status": "success",
            "output": proc.stdout,
            "error": proc.stderr,
            "returncode": proc.returncode,
        }

    def run_python(self, body: dict) -> tuple[int, dict]:
        try:
            proc = subprocess.run(
                [sys.executable, "-c", body.get("code", "")],
                env=self.sandbox.env,
                capture_output=True,
                text=True,
                timeout=PYTHON_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return 500, {"status": "error", "message": "timeout"}
        status = "success" if proc.returncode == 0 else "error"
        return 200, {
            "status": status,
            "message": "",
            "output": proc.stdout,
            "error": proc.stderr,
            "return_code": proc.returncode,
        }

    def launch(self, body: dict) -> None:
        command, shell = body.get("command"), bool(body.get("shell", False))
        if isinstance(command, str) and not shell:
            command = shlex.split(command)
        subprocess.Popen(
            command,
            shell=shell,
            env=self.sandbox.env,
            cwd=self.working_folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def open_file(self, raw: str) -> tuple[int, dict]:
        path = self.server_path(raw)
        if not path.exists():
            return 404, {"error": f"File not found: {raw}"}
        self.launch({"command": ["xdg-open", str(path)]})
        name = path.name
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if name in self.window_titles():
                return 200, {"status": "success"}
            time.sleep(0.5)
        return 500, {"status": "error", "message": f"no window for {name}"}

    def accessibility_xml(self) -> str:
        """The windows as the real server's tree shows them: namespaced root and attributes."""
        declared = " ".join(
            f"xmlns:{name}={quoteattr(uri)}" for name, uri in ACCESSIBILITY_NAMESPACES.items()
        )
        windows = [line.split(None, 3)[-1] for line in self.window_titles().splitlines() if line.strip()]
        nodes = "".join(f'<window name={quoteattr(title)} st:showing="true"/>' for title in windows)
        return f"<desktop-frame {declared}>{nodes}</desktop-frame>"

    def window_titles(self) -> str:
        return self.execute({"command": ["wmctrl", "-l"]})[1].get("output", "")

    def wmctrl(self, body: dict, action: str) -> None:
        flags = ("x" if body.get("by_class") else "") + ("F" if body.get("strict") else "")
        self.execute({"command": ["wmctrl", f"-{flags}{action}", body.get("window_name", "")]})

    def pyautogui(self, expression: str) -> str:
        code = f"import pyautogui; print({expression})"
        return self.execute({"command": [sys.executable, "-c", code]})[1].get("output", "").strip()


class _Handler(BaseHTTPRequestHandler):
    vm: VMServer

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    # -- helpers -------------------------------------------------------------------
    def _send(self, status: int, payload: dict | list | bytes | str, content_type: str = "") -> None:
        if isinstance(payload, bytes):
            data, content_type = payload, content_type or "application/octet-stream"
        elif isinstance(payload, str):
            data, content_type = payload.encode(), content_type or "text/plain"
        else:
            data, content_type = json.dumps(payload).encode(), "application/json"
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _json(self) -> dict:
        raw = self._body()
        return json.loads(raw) if raw else {}

    def _form(self) -> dict[str, str | bytes]:
        raw, content_type = self._body(), self.headers.get("Content-Type", "")
        if content_type.startswith("multipart/form-data"):
            message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                f"Content-Type: {content_type}\r\n\r\n".encode() + raw
            )
            fields: dict[str, str | bytes] = {}
            for part in message.iter_parts():
                name = part.get_param("name", header="content-disposition")
                payload = part.get_payload(decode=True)
                fields[name] = payload if part.get_filename() else payload.decode()
            return fields
        return {key: values[0] for key, values in parse_qs(raw.decode()).items()}

    # -- routes ----------------------------------------------------------------------
    def _injected_failure(self) -> bool:
        if self.vm.fail_next.get(self.path, 0) > 0:
            self.vm.fail_next[self.path] -= 1
            self._body()
            self._send(self.vm.failure_status, {"status": "error", "message": "injected failure"})
            return True
        return False

    def do_GET(self) -> None:  # noqa: N802
        self.vm.requests.append(f"GET {self.path}")
        self.vm.body_bytes.append(int(self.headers.get("Content-Length") or 0))
        if self._injected_failure():
            return
        if self.path == "/platform":
            self._send(200, "Linux")
        elif self.path == "/screenshot":
            self._send(200, self.vm.sandbox.screenshot(), "image/png")
        elif self.path == "/accessibility":
            self._send(200, {"AT": self.vm.accessibility_xml()})
        elif self.path == "/cursor_position":
            self._send(200, json.loads(self.vm.pyautogui("list(pyautogui.position())")))
        elif self.path == "/terminal":
            self._send(200, {"output": None})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        self.vm.requests.append(f"POST {self.path}")
        self.vm.body_bytes.append(int(self.headers.get("Content-Length") or 0))
        if self._injected_failure():
            return
        route = self.path
        if route in ("/execute", "/setup/execute"):
            self._send(*self.vm.execute(self._json()))
        elif route == "/run_python":
            self._send(*self.vm.run_python(self._json()))
        elif route == "/file":
            path = self.vm.server_path(str(self._form().get("file_path", "")))
            try:
                self._send(200, path.read_bytes())
            except FileNotFoundError:
                self._send(404, {"error": "File not found"})
            except OSError as exc:  # a folder, as the real server: 500 with an error body
                self._send(500, {"error": f"Failed to serve file: {exc}"})
        elif route == "/setup/upload":
            form = self._form()
            target = self.vm.server_path(str(form["file_path"]))
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(form["file_data"])
            except OSError as exc:
                self._send(500, {"error": f"Failed to upload file: {exc}"})
            else:
                self._send(200, "File Uploaded")
        elif route == "/screen_size":
            width, height = self.vm.sandbox.screen_size()
            self._send(200, {"width": width, "height": height})
        elif route == "/list_directory":
            root = Path(self._json().get("path", ""))
            if root.is_dir():
                self._send(200, {"directory_tree": _tree(root)})
            else:
                self._send(400, {"error": "The provided path is not a directory"})
        elif route == "/window_size":
            app_class = str(self._form().get("app_class_name", ""))
            size = self.vm.sandbox.window_size(app_class)
            if size is None:  # the real route returns nothing, which its framework answers with 500
                self._send(500, "<p>The view function did not return a valid response.</p>", "text/html")
            else:
                self._send(200, {"width": size[0], "height": size[1]})
        elif route == "/wallpaper":
            picture = self.vm.sandbox.wallpaper()
            if picture is None:
                self._send(404, "<p>Wallpaper file not found</p>", "text/html")
            else:
                self._send(200, picture, "image/png")
        elif route == "/setup/launch":
            self.vm.launch(self._json())
            self._send(200, "launched")
        elif route == "/setup/open_file":
            self._send(*self.vm.open_file(self._json().get("path", "")))
        elif route == "/setup/activate_window":
            self.vm.wmctrl(self._json(), "a")
            self._send(200, "ok")
        elif route == "/setup/close_window":
            self.vm.wmctrl(self._json(), "c")
            self._send(200, "ok")
        else:
            self._send(404, {"error": "not found"})


def _tree(folder: Path) -> dict:
    """The real route's walk: folders recursively, files by name."""
    children = [_tree(p) if p.is_dir() else {"type": "file", "name": p.name} for p in folder.iterdir()]
    return {"type": "directory", "name": folder.name, "children": children}


def png_size(data: bytes) -> tuple[int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(data)).size


@contextlib.contextmanager
def served_vm(
    workdir: Path, display: bool = True, python_venv: Path | None = None
) -> Iterator[tuple[OSWorldSandbox, VMServer, LocalSandbox]]:
    """A LocalSandbox (with a display), the VM server over it, and an OSWorldSandbox talking to the server.
    `python_venv`: the VM's python3 is that virtual environment's, and its PATH holds only it and the
    system's folders (neither the harness's Python nor its toolkit)."""
    local = LocalSandbox(workdir, display=display)
    server: VMServer | None = None
    sandbox: OSWorldSandbox | None = None
    try:
        local.start()
        if python_venv is not None:
            local.env["PATH"] = f"{python_venv}/bin:/usr/local/bin:/usr/bin:/bin"
        server = VMServer(local).start()
        sandbox = OSWorldSandbox(server.url)
        sandbox.start()
        yield sandbox, server, local
    finally:
        if sandbox is not None:
            sandbox.close()
        if server is not None:
            server.stop()
        local.close()


@contextlib.contextmanager
def vm_under_test(
    workdir: Path,
) -> Iterator[tuple[OSWorldSandbox, VMServer | None, LocalSandbox | None]]:
    """`served_vm(workdir)`, or, when OSWORLD_SERVER_URL is set, an OSWorldSandbox on that real server
    (no double and no local sandbox: tests that need their internals skip)."""
    url = os.environ.get(REAL_SERVER_VARIABLE)
    if not url:
        with served_vm(workdir) as parts:
            yield parts
        return
    sandbox = OSWorldSandbox(url)
    try:
        sandbox.start()
        yield sandbox, None, None
    finally:
        sandbox.close()


def main() -> None:
    """Serve this machine as an OSWorld VM until Ctrl-C or SIGTERM:
    `python -m tests.support.osworld_vm_server [PORT] [WORKDIR] [ADDRESS]` (ADDRESS 127.0.0.1 unless
    given; the test guest's service listens on 0.0.0.0, scripts/build_vm_guest.sh).

    Then e.g. `stateact run --task T.json --sandbox osworld://127.0.0.1:PORT`.
    """
    import signal
    import tempfile

    port = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    workdir = (
        Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="osworld-vm-")) / "home"
    )
    local = LocalSandbox(workdir, display=True)
    local.start()
    server = VMServer(local, port=port, host=sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1")
    try:
        print(f"serving {local.home} (display {local.display}) at {server.url}", flush=True)
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # ends serve_forever as Ctrl-C does
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._server.server_close()
        local.close()


if __name__ == "__main__":
    main()
