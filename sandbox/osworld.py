"""OSWorldSandbox: a Sandbox over the HTTP server that runs inside an OSWorld VM.

Every call is one HTTP request to the VM server (default port 5000, no
authentication). Connection failures are retried with a doubling backoff; when
the VM stays unreachable a SandboxError names the address. The server has no
persistent shell, so `open_shell` returns a TmuxShell that keeps one bash alive
inside the VM (see sandbox/tmux_shell.py).
"""

from __future__ import annotations

import time
from pathlib import Path
from shlex import quote

import httpx

from sandbox.base import CommandResult, Sandbox, SandboxError, Shell
from sandbox.tmux_shell import TmuxShell
from stateact import settings

SCHEME = "osworld://"


def parse_osworld_spec(spec: str) -> str:
    """`osworld://HOST:PORT` -> `http://HOST:PORT`; the port defaults to 5000."""
    if not spec.startswith(SCHEME):
        raise SandboxError(f"not an OSWorld sandbox spec: {spec!r} (expected osworld://HOST:PORT)")
    address = spec[len(SCHEME) :].strip("/")
    if not address:
        raise SandboxError(f"no host in {spec!r} (expected osworld://HOST:PORT)")
    host, _, port = address.rpartition(":") if ":" in address else (address, "", "5000")
    if not port.isdigit():
        raise SandboxError(f"bad port in {spec!r} (expected osworld://HOST:PORT)")
    return f"http://{host}:{port}"


def sandbox_from_spec(spec: str, workdir: Path, display: bool = False) -> Sandbox:
    """`local` -> LocalSandbox(workdir, display); `osworld://HOST:PORT` -> OSWorldSandbox."""
    if spec == "local":
        from sandbox.local import LocalSandbox

        return LocalSandbox(workdir, display=display)
    if spec.startswith(SCHEME):
        return OSWorldSandbox(parse_osworld_spec(spec))
    raise SandboxError(f"unknown sandbox {spec!r}: use `local` or `osworld://HOST:PORT`")


class VMTimeout(SandboxError):
    """The VM server took longer than the HTTP timeout to answer."""


class OSWorldSandbox(Sandbox):
    """An OSWorld VM reached through its HTTP server at `base_url` (e.g. http://127.0.0.1:5000)."""

    def __init__(
        self,
        base_url: str,
        retries: int = settings.VM_RETRIES,
        backoff_s: float = settings.VM_BACKOFF_S,
        request_timeout_s: float = settings.VM_REQUEST_TIMEOUT_S,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retries = max(1, retries)
        self.backoff_s = backoff_s
        self.request_timeout_s = request_timeout_s
        self.home = settings.VM_HOME
        self._client: httpx.Client | None = None
        self._shells: list[TmuxShell] = []

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        if self._client is not None:
            return
        self._client = httpx.Client(base_url=self.base_url, timeout=self.request_timeout_s)
        try:
            self._request("GET", "/platform")
            home = self.run('printf %s "$HOME"', timeout=10).stdout.strip()
        except BaseException:
            self.close()
            raise
        self.home = home or settings.VM_HOME

    def close(self) -> None:
        for shell in self._shells:
            shell.close()
        self._shells.clear()
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- HTTP ------------------------------------------------------------------
    def _request(self, method: str, path: str, *, timeout: float | None = None, **kwargs) -> httpx.Response:
        """One call. Connection failures are retried (the request never arrived); dropped connections and
        5xx answers only for reads, which are safe to repeat."""
        if self._client is None:
            raise SandboxError("the OSWorld sandbox is not started")
        idempotent = method == "GET" or path in ("/file", "/screen_size", "/list_directory")
        timeout = timeout or self.request_timeout_s
        delay = self.backoff_s
        last_error = ""
        for attempt in range(1, self.retries + 1):
            try:
                response = self._client.request(method, path, timeout=timeout, **kwargs)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                last_error = f"{type(exc).__name__}: {exc}"
            except httpx.TimeoutException as exc:
                raise VMTimeout(
                    f"the OSWorld VM at {self.base_url} did not answer {path} within {timeout:.0f}s"
                ) from exc
            except httpx.TransportError as exc:
                if not idempotent:
                    raise SandboxError(
                        f"the connection to {self.base_url} broke during {path}: {exc}"
                    ) from exc
                last_error = f"{type(exc).__name__}: {exc}"
            else:
                if not (idempotent and response.status_code >= 500):
                    return response
                last_error = f"HTTP {response.status_code}: {response.text[:200]}"
            if attempt < self.retries:
                time.sleep(delay)
                delay *= 2
        raise SandboxError(
            f"the OSWorld VM at {self.base_url} is unreachable ({path}, {self.retries} attempts): {last_error}"
        )

    def _execute(self, command: list[str] | str, shell: bool, timeout: float) -> CommandResult:
        """POST /execute; the server's own 120 s limit answers 500, reported as a timeout."""
        try:
            response = self._request(
                "POST",
                "/execute",
                json={"command": command, "shell": shell},
                timeout=min(timeout, settings.VM_EXECUTE_LIMIT_S) + 15,
            )
        except VMTimeout as exc:
            return CommandResult(124, "", f"[{exc}]")
        if response.status_code >= 500:
            message = _json(response).get("message", response.text[:500])
            return CommandResult(124, "", f"[the VM server stopped the command: {message}]")
        if response.status_code != 200:
            raise SandboxError(f"/execute answered HTTP {response.status_code}: {response.text[:500]}")
        body = _json(response)
        code = body.get("returncode", body.get("return_code", 1))
        return CommandResult(
            int(code if code is not None else 1), body.get("output") or "", body.get("error") or ""
        )

    # -- commands ------------------------------------------------------------------
    def run(self, command: str, timeout: float = 60.0) -> CommandResult:
        limit = max(1, int(min(timeout, settings.VM_EXECUTE_LIMIT_S - 5)))
        wrapped = f"cd && timeout -k 2 {limit} bash -c {quote(command)}"
        result = self._execute(wrapped, shell=True, timeout=timeout)
        if result.returncode == 124 and not result.stderr.startswith("["):
            return CommandResult(124, result.stdout, result.stderr + f"\n[timed out after {limit}s]")
        return result

    def run_python(self, code: str, timeout: float = 60.0) -> CommandResult:
        limit = max(1, int(min(timeout, settings.VM_EXECUTE_LIMIT_S - 5)))
        return self._execute(["timeout", "-k", "2", str(limit), "python3", "-c", code], False, timeout)

    def launch(self, command: str) -> None:
        response = self._request("POST", "/setup/launch", json={"command": command, "shell": True})
        if response.status_code != 200:
            raise SandboxError(f"launch failed (HTTP {response.status_code}): {response.text[:500]}")

    def open_file(self, path: str) -> None:
        """The server's own open: xdg-open, then wait until a window title shows the file name."""
        response = self._request(
            "POST", "/setup/open_file", json={"path": self._expand(path)}, timeout=settings.VM_EXECUTE_LIMIT_S
        )
        if response.status_code != 200:
            raise SandboxError(f"could not open {path} (HTTP {response.status_code}): {response.text[:500]}")

    def open_shell(self, scratch_dir: Path) -> Shell:
        """A TmuxShell inside the VM; it keeps its own files in the VM's /tmp (`scratch_dir` is unused)."""
        shell = TmuxShell(self, cwd=self.home)
        self._shells.append(shell)
        return shell

    # -- files ---------------------------------------------------------------------
    def _expand(self, path: str) -> str:
        if path == "~" or path.startswith("~/"):
            return self.home + path[1:]
        return path if path.startswith("/") else f"{self.home}/{path}"

    def exists(self, path: str) -> bool:
        return self.run(f"test -e {quote(self._expand(path))}", timeout=10).ok

    def read_file(self, path: str) -> bytes:
        response = self._request("POST", "/file", data={"file_path": self._expand(path)})
        if response.status_code == 404:
            raise FileNotFoundError(path)
        if response.status_code != 200:
            raise SandboxError(f"could not read {path} (HTTP {response.status_code}): {response.text[:500]}")
        return response.content

    def write_file(self, path: str, data: bytes) -> None:
        target = self._expand(path)
        response = self._request(
            "POST",
            "/setup/upload",
            data={"file_path": target},
            files={"file_data": (Path(target).name or "file", data)},
        )
        if response.status_code != 200:
            raise SandboxError(f"could not write {path} (HTTP {response.status_code}): {response.text[:500]}")

    # -- screen ----------------------------------------------------------------------
    def screenshot(self) -> bytes:
        response = self._request("GET", "/screenshot")
        if response.status_code != 200:
            raise SandboxError(f"screenshot failed (HTTP {response.status_code}): {response.text[:300]}")
        return response.content

    def screen_size(self) -> tuple[int, int]:
        body = _json(self._request("POST", "/screen_size"))
        return int(body["width"]), int(body["height"])

    def accessibility_tree(self) -> str:
        """The AT-SPI tree of the desktop as XML text."""
        return _json(self._request("GET", "/accessibility")).get("AT") or ""


def _json(response: httpx.Response) -> dict:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
