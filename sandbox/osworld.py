"""OSWorldSandbox: a Sandbox over the HTTP server that runs inside an OSWorld VM.

Every call is one HTTP request to the VM server (default port 5000, no
authentication). Connection failures are retried with a doubling backoff; when
the VM stays unreachable a SandboxError names the address. The server has no
persistent shell, so `open_shell` returns a RelayShell that keeps one bash alive
inside the VM (see sandbox/relay_shell.py).
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections.abc import Mapping
from pathlib import Path
from shlex import quote

import httpx

from stateact.sandbox import backends, settings
from stateact.sandbox.backends import SandboxOptions, SandboxSpec
from stateact.sandbox.base import CommandResult, Sandbox, SandboxError, Shell
from stateact.sandbox.relay_shell import UNDECODABLE_NOTE, RelayShell, replace_undecodable

SCHEME_NAME = "osworld"
SCHEME = f"{SCHEME_NAME}://"


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


class VMTimeout(SandboxError):
    """The VM server took longer than the HTTP timeout to answer."""


class OSWorldSandbox(Sandbox):
    """An OSWorld VM reached through its HTTP server at `base_url` (e.g. http://127.0.0.1:5000)."""

    full_system = True

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
        self.toolkit_dir = ""
        self._client: httpx.Client | None = None
        self._shells: list[RelayShell] = []
        self._shell_env: dict[str, str] = {}
        self._variables: dict[str, str] = {}
        self.warnings: list[str] = []

    # -- lifecycle -----------------------------------------------------------
    def start(self) -> None:
        if self._client is not None:
            return
        self._client = httpx.Client(base_url=self.base_url, timeout=self.request_timeout_s)
        try:
            self._request("GET", "/platform")
            self._variables = self._server_environment()
        except BaseException:
            self.close()
            raise
        self.home = self._variables.get("HOME") or settings.VM_HOME
        self._install_toolkit()

    def _server_environment(self) -> dict[str, str]:
        """The VM server's environment (what its routes expand `$NAME` in paths from)."""
        result = self.run_python(
            "import json, os; print(json.dumps(dict(os.environ)))", timeout=settings.VM_QUERY_TIMEOUT_S
        )
        try:
            variables = json.loads(result.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            variables = None
        if not isinstance(variables, dict):
            raise SandboxError(
                f"could not read the environment of the OSWorld VM at {self.base_url} "
                f"(python3 -c answered {result.returncode}): {result.output.strip()[:500]}"
            )
        return {str(name): str(value) for name, value in variables.items()}

    def _install_toolkit(self) -> None:
        """Upload the office toolkit and put it first on the PATH (its modules on the PYTHONPATH) of every
        command of the sandbox: its shells, `run`, `run_python` and `launch`."""
        from stateact.sandbox.toolkit import install_toolkit

        installed = install_toolkit(self)
        self.toolkit_dir = installed.bin_dir
        self.warnings.extend(installed.warnings)
        vm_path = self.run('printf %s "$PATH"', timeout=10).stdout.strip() or "/usr/local/bin:/usr/bin:/bin"
        self._shell_env = {"PATH": f"{installed.bin_dir}:{vm_path}"}
        if installed.python_path:
            self._shell_env["PYTHONPATH"] = ":".join(
                filter(None, (installed.python_path, self._variables.get("PYTHONPATH")))
            )

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
        gateway answers (502/503/504) only for reads, which are safe to repeat. Any other 5xx is the
        server's own answer (its handler raised, e.g. reading a folder) and goes back to the caller."""
        if self._client is None:
            raise SandboxError("the OSWorld sandbox is not started")
        idempotent = method == "GET" or path in _READ_ROUTES
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
                if not (idempotent and response.status_code in _OUTAGE_STATUSES):
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
        """A one-shot bash command in the home folder; at most ~2 minutes (the server's limit): longer
        work belongs in the shell. Its output goes to files read back in base64, so bytes that are not
        UTF-8 come back (replaced, with a note) and a background child that keeps the output open does
        not hold the request; stdin is empty."""
        limit = _limit(timeout)
        files = f"/tmp/stateact_run_{secrets.token_hex(6)}"
        wrapped = (
            f"cd && {' '.join(map(quote, self._environment()))} timeout -k 2 {limit} bash -c {quote(command)} "
            f">{files}.o 2>{files}.e </dev/null; "
            f"echo $?; base64 -w0 {files}.o; echo; base64 -w0 {files}.e; rm -f {files}.o {files}.e"
        )
        envelope = self._execute(wrapped, shell=True, timeout=timeout)
        if envelope.stderr.startswith("["):  # the request itself failed
            return envelope
        result = _unwrap(envelope)
        if result.returncode == 124:
            return CommandResult(124, result.stdout, result.stderr + f"\n[timed out after {limit}s]")
        return result

    def run_python(self, code: str, timeout: float = 60.0) -> CommandResult:
        """`python3 -c code` on the VM's display, as OSWorld sends GUI actions (pyautogui code)."""
        return self._execute(
            [*self._environment(), "timeout", "-k", "2", str(_limit(timeout)), "python3", "-c", code],
            False,
            timeout,
        )

    def _environment(self) -> list[str]:
        """`env NAME=VALUE...` giving a one-shot command the shells' environment (the toolkit first on
        PATH, its modules on PYTHONPATH); empty before the toolkit is installed."""
        if not self._shell_env:
            return []
        return ["env", *(f"{name}={value}" for name, value in self._shell_env.items())]

    def launch(self, command: str) -> None:
        """Start `command` (a shell string) with the environment of `run`, so a task's `google-chrome`
        is the toolkit's on a VM that has only Chromium."""
        if self._shell_env:
            command = f"{' '.join(map(quote, self._environment()))} /bin/sh -c {quote(command)}"
        response = self._request("POST", "/setup/launch", json={"command": command, "shell": True})
        if response.status_code != 200:
            raise SandboxError(f"launch failed (HTTP {response.status_code}): {response.text[:500]}")

    def open_shell(self, scratch_dir: Path) -> Shell:
        """A RelayShell inside the VM; it keeps its own files in the VM's /tmp (`scratch_dir` is unused)."""
        shell = RelayShell(self, cwd=self.home, env=self._shell_env)
        self._shells.append(shell)
        return shell

    # -- files ---------------------------------------------------------------------
    def path_variables(self) -> Mapping[str, str]:
        return self._variables

    def exists(self, path: str) -> bool:
        return self.run(f"test -e {quote(self.expand(path))}", timeout=settings.VM_QUERY_TIMEOUT_S).ok

    def read_file(self, path: str) -> bytes:
        target = self.expand(path)
        response = self._request("POST", "/file", data={"file_path": target})
        if response.status_code == 404:
            raise FileNotFoundError(path)
        if response.status_code != 200:
            error = SandboxError(
                f"could not read {path} (HTTP {response.status_code}): {response.text[:500]}"
            )
            self._raise_if_folder(target, error)
            raise error
        return response.content

    def write_file(self, path: str, data: bytes) -> None:
        target = self.expand(path)
        response = self._request(
            "POST",
            "/setup/upload",
            data={"file_path": target},
            files={"file_data": (Path(target).name or "file", data)},
        )
        if response.status_code != 200:
            error = SandboxError(
                f"could not write {path} (HTTP {response.status_code}): {response.text[:500]}"
            )
            self._raise_if_folder(target, error)
            raise error

    def _raise_if_folder(self, target: str, error: Exception) -> None:
        """Raise IsADirectoryError (as a local file system would) when `target` is a folder in the VM."""
        if self.run(f"test -d {quote(target)}", timeout=settings.VM_QUERY_TIMEOUT_S).ok:
            raise IsADirectoryError(f"{target} is a folder") from error

    # -- screen ----------------------------------------------------------------------
    def screenshot(self) -> bytes:
        response = self._request("GET", "/screenshot")
        if response.status_code != 200:
            raise SandboxError(f"screenshot failed (HTTP {response.status_code}): {response.text[:300]}")
        return response.content

    def screen_size(self) -> tuple[int, int]:
        body = _json(self._request("POST", "/screen_size"))
        return int(body["width"]), int(body["height"])

    def cdp_url(self) -> str:
        return f"http://{httpx.URL(self.base_url).host}:{self.cdp_port}"

    def accessibility_tree(self) -> str:
        """The AT-SPI tree of the desktop as XML text; a server that cannot walk it (no pyatspi) raises."""
        return self._walk_desktop("/accessibility", "AT", "accessibility tree")

    def terminal_output(self) -> str | None:
        """The focused terminal's text; None when no terminal is active."""
        return self._walk_desktop("/terminal", "output", "terminal output")

    def _walk_desktop(self, path: str, key: str, what: str) -> str | None:
        """`key` of a route that walks the AT-SPI tree. A walk fails when an application leaves the
        desktop meanwhile (the server answers 500, e.g. "'NoneType' object has no attribute
        'getRoleName'"), so a failed walk is asked again, as OSWorld's client does; one that keeps
        failing raises with the server's message."""
        delay = self.backoff_s
        for attempt in range(1, self.retries + 1):
            response = self._request("GET", path)
            body = _json(response)
            if response.status_code == 200 and key in body:
                return body[key]
            if attempt < self.retries:
                time.sleep(delay)
                delay *= 2
        detail = body.get("message") or response.text[:300]
        raise SandboxError(f"no {what} (HTTP {response.status_code}): {detail}")

    def window_size(self, app_class: str) -> tuple[int, int] | None:
        """The server answers an error when no window matches (its route returns nothing): None, as
        OSWorld's client gives."""
        body = _json(self._request("POST", "/window_size", data={"app_class_name": app_class}))
        if "width" not in body:
            return None
        return int(body["width"]), int(body["height"])

    def wallpaper(self) -> bytes | None:
        response = self._request("POST", "/wallpaper")
        return response.content if response.status_code == 200 else None

    def directory_tree(self, path: str) -> dict | None:
        """The server answers 400 for a path that is not a folder: None."""
        response = self._request("POST", "/list_directory", json={"path": self.expand(path)})
        return _json(response).get("directory_tree") if response.status_code == 200 else None


_READ_ROUTES = frozenset({"/file", "/screen_size", "/list_directory", "/window_size", "/wallpaper"})
"""POST routes that only read, so safe to repeat."""
_OUTAGE_STATUSES = frozenset({502, 503, 504})
"""HTTP statuses of a VM server that is not there (a proxy or gateway answering), retried for reads."""


def _limit(timeout: float) -> int:
    """Whole seconds for `timeout(1)`, kept under the server's own limit so our timeout fires first."""
    return max(1, int(min(timeout, settings.VM_EXECUTE_LIMIT_S - 5)))


def _unwrap(envelope: CommandResult) -> CommandResult:
    """The command's own result from `run`'s envelope: exit code, then stdout and stderr in base64."""
    lines = envelope.stdout.split("\n")
    try:
        code = int(lines[0])
        outputs = [base64.b64decode(lines[index], validate=True) for index in (1, 2)]
    except (IndexError, ValueError) as exc:
        raise SandboxError(
            f"could not read a command's output in the VM ({exc}): {envelope.output.strip()[:500]}"
        ) from exc
    (stdout, bad_out), (stderr, bad_err) = (
        replace_undecodable(data.decode(errors="surrogateescape")) for data in outputs
    )
    if bad_out or bad_err:
        stderr += f"\n[{UNDECODABLE_NOTE}]"
    return CommandResult(code, stdout, stderr)


def _json(response: httpx.Response) -> dict:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _build(spec: SandboxSpec, options: SandboxOptions) -> OSWorldSandbox:
    return OSWorldSandbox(spec.address)


backends.register(backends.Backend(SCHEME_NAME, "osworld://HOST:PORT", parse_osworld_spec, _build))
