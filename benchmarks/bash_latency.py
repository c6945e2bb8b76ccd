"""Latency of the bash tool per command, with one `subprocess.run` per command for reference.

Runs 200 mixed commands (echo, cd, export, a small pipeline) through BashTool on
a LocalSandbox. The last line prints key=value figures.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.kernel.messages import ToolUseBlock  # noqa: E402
from stateact.kernel.meter import Meter  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402
from stateact.kernel.runtime import RoleModels, RunContext  # noqa: E402
from stateact.kernel.tools.bash import BashTool  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402

COMMANDS = (
    "echo hello",
    "cd /tmp",
    "export BENCH_VALUE=42",
    "printf 'b\\na\\nc\\n' | sort | head -n 2",
    "cd -",
)
COUNT = 200


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_ms)
    return statistics.median(ordered), ordered[int(0.9 * (len(ordered) - 1))]


def time_bash_tool(root: Path) -> list[float]:
    sandbox = LocalSandbox(root / "home")
    sandbox.start()
    log = RunLog(root / "run")
    context = RunContext(root / "run", "benchmark", sandbox, log, Meter(), RoleModels(main="scripted:none"))
    tool = BashTool(context)
    try:
        tool.invoke(ToolUseBlock(id="warm", name="bash", input={"command": "true"}))
        samples = []
        for n in range(COUNT):
            call = ToolUseBlock(id=f"c{n}", name="bash", input={"command": COMMANDS[n % len(COMMANDS)]})
            started = time.perf_counter()
            result = tool.invoke(call)
            samples.append((time.perf_counter() - started) * 1000)
            if result.is_error or "[exit 0 ·" not in result.text:
                raise SystemExit(f"unexpected result: {result.text}")
        return samples
    finally:
        tool.close()
        log.close()
        sandbox.close()


def time_subprocess() -> list[float]:
    samples = []
    for n in range(COUNT):
        started = time.perf_counter()
        subprocess.run(["bash", "-c", COMMANDS[n % len(COMMANDS)]], capture_output=True, check=False)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tool_median, tool_p90 = percentiles(time_bash_tool(Path(tmp)))
    sub_median, sub_p90 = percentiles(time_subprocess())
    print(f"bash tool     ({COUNT} commands): median {tool_median:.2f} ms, p90 {tool_p90:.2f} ms")
    print(f"subprocess.run ({COUNT} commands): median {sub_median:.2f} ms, p90 {sub_p90:.2f} ms")
    print(
        f"bash_tool_median_ms={tool_median:.2f} bash_tool_p90_ms={tool_p90:.2f} "
        f"subprocess_median_ms={sub_median:.2f} subprocess_p90_ms={sub_p90:.2f}"
    )


if __name__ == "__main__":
    main()
