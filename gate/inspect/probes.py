"""Host side of the probes: place `_gate_probes.py` (shipped with the toolkit) in the sandbox once, call it by name, read back its JSON.

The probe code lives in the sandbox beside the office toolkit (whose `_odt` it reads .odt files with):
a sandbox that shares the host's files uses this folder's copy in place; any other gets it uploaded
into its toolkit folder on the first probe call, and again whenever it is missing or differs from
ours (a reset VM, an older harness's copy). When the copy in place differs from the code this harness
loaded (the checkout was updated while a run went on), ours is uploaded into the sandbox's /tmp.
Each call then sends only a short loader and the request.
"""

from __future__ import annotations

import hashlib
import json

from stateact.gate import settings
from stateact.sandbox.base import Sandbox
from stateact.sandbox.toolkit import TOOLKIT_BIN, install_toolkit

PROBE_FILE = TOOLKIT_BIN / "_gate_probes.py"
"""The probes' code, shipped with the toolkit: in place on a local sandbox (isolated ones see the toolkit), uploaded to a VM."""
PROBE_SOURCE = PROBE_FILE.read_bytes()
RESULT_MARKER = "\n@@PROBE@@"
MISSING_MARKER = "@@PROBE-MISSING@@"
MISSING_PROBE, MISSING_TOOLKIT = "probe", "toolkit"

PROBE_SHA256 = hashlib.sha256(PROBE_SOURCE).hexdigest()
PRIVATE_COPY = f"/tmp/.stateact-gate-probes-{PROBE_SHA256[:16]}.py"
"""Where a sandbox that shares the host's files gets our probe code when its toolkit folder's copy differs."""
LOADER = """\
import hashlib, sys
sys.dont_write_bytecode = True
paths, toolkit, digest, request = {arguments!r}
def missing(what):
    print({marker!r} + what)
    sys.exit(1)
def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""
path, source = next(
    ((path, source) for path in paths if hashlib.sha256(source := read(path)).hexdigest() == digest),
    (None, None),
)
if path is None:
    missing({probe!r})
sys.path.insert(0, toolkit)
try:
    import _odt
except ImportError:
    missing({toolkit!r})
code = {{"__name__": "probe_code", "__file__": path}}
exec(compile(source, path, "exec"), code)
code["main"](request)
"""
"""Run with `python3 -c`: checks the sandbox's copy of the probe code and the toolkit, then runs the request."""


class ProbeError(RuntimeError):
    """The probe script could not run or returned no result."""


def run_probe(sandbox: Sandbox, probe: str, timeout: float = settings.GATE_PROBE_TIMEOUT_S, **args) -> dict:
    """Run one probe in the sandbox; the result dict carries `error` when the probe itself failed."""
    request = json.dumps({"probe": probe, "args": args})
    result = sandbox.run_python(_loader(sandbox, request), timeout=timeout)
    placed: set[str] = set()
    while missing := _missing(result.stdout):
        if missing in placed:
            raise ProbeError(f"the sandbox still lacks the {missing} code after it was uploaded")
        _place(sandbox, missing)
        placed.add(missing)
        result = sandbox.run_python(_loader(sandbox, request), timeout=timeout)
    _, found, payload = result.stdout.rpartition(RESULT_MARKER)
    if not found:
        raise ProbeError(
            f"probe {probe} returned no result (exit {result.returncode}): {(result.stderr or result.stdout)[-800:]}"
        )
    try:
        return json.loads(payload)
    except json.JSONDecodeError as exc:
        raise ProbeError(f"probe {probe} returned unreadable output: {exc}") from exc


def _probe_path(sandbox: Sandbox) -> str:
    """Where the sandbox finds the probe code: in its toolkit folder (ours, or a copy uploaded there)."""
    return f"{sandbox.toolkit_dir}/{PROBE_FILE.name}"


def _probe_paths(sandbox: Sandbox) -> list[str]:
    """Where the loader looks for our probe code: the toolkit folder, then (on a sandbox that shares the
    host's files) the copy uploaded into its /tmp when the folder's differs."""
    return [_probe_path(sandbox), *([PRIVATE_COPY] if sandbox.shares_host_files else [])]


def _loader(sandbox: Sandbox, request: str) -> str:
    arguments = (_probe_paths(sandbox), sandbox.toolkit_dir, PROBE_SHA256, request)
    return LOADER.format(
        arguments=arguments, marker=MISSING_MARKER, probe=MISSING_PROBE, toolkit=MISSING_TOOLKIT
    )


def _missing(stdout: str) -> str:
    """What the loader found missing (`probe` or `toolkit`), or '' when it ran the probe."""
    first, _, _ = stdout.partition("\n")
    return first.removeprefix(MISSING_MARKER) if first.startswith(MISSING_MARKER) else ""


def _place(sandbox: Sandbox, missing: str) -> None:
    """Upload the missing part into the sandbox: the probe code, or the toolkit it reads .odt files with."""
    if sandbox.shares_host_files:
        if missing == MISSING_TOOLKIT:
            raise ProbeError(f"the sandbox cannot read the {missing} code at {sandbox.toolkit_dir}")
        sandbox.write_file(PRIVATE_COPY, PROBE_SOURCE)
        return
    if missing == MISSING_TOOLKIT:
        install_toolkit(sandbox, install_missing_modules=False)
    else:
        sandbox.write_file(_probe_path(sandbox), PROBE_SOURCE)
