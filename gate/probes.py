"""Host side of the probes: send `probe_code.py` into the sandbox and read back its JSON."""

from __future__ import annotations

import json
from pathlib import Path

from gate import settings
from sandbox.base import Sandbox

PROBE_SOURCE = (Path(__file__).parent / "probe_code.py").read_text(encoding="utf-8")
RESULT_MARKER = "\n@@PROBE@@"


class ProbeError(RuntimeError):
    """The probe script could not run or returned no result."""


def run_probe(sandbox: Sandbox, probe: str, timeout: float = settings.GATE_PROBE_TIMEOUT_S, **args) -> dict:
    """Run one probe in the sandbox; the result dict carries `error` when the probe itself failed."""
    request = json.dumps({"probe": probe, "args": args})
    code = f"{PROBE_SOURCE}\nmain({request!r})\n"
    result = sandbox.run_python(code, timeout=timeout)
    _, found, payload = result.stdout.rpartition(RESULT_MARKER)
    if not found:
        raise ProbeError(
            f"probe {probe} returned no result (exit {result.returncode}): {(result.stderr or result.stdout)[-800:]}"
        )
    try:
        return json.loads(payload)
    except json.JSONDecodeError as exc:
        raise ProbeError(f"probe {probe} returned unreadable output: {exc}") from exc
