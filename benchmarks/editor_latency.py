"""Latency of the file editor's calls on an isolated (bubblewrap) sandbox.

Runs `view`, `str_replace` and `create` through EditTool on a LocalSandbox with `--isolation bwrap`
(every file operation goes through the sandbox's file helper) and prints, per command, the median and
90th percentile in milliseconds, and the first call's time (which starts the helper), as key=value.
`pdf_view` (a one-page text PDF) and `image_view` (a 1600x1200 PNG, scaled for the model) include the
limited child process that reads agent-supplied PDFs and images (stateact/kernel/confined.py); the first
PDF view also starts the worker that forks those children.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.kernel.messages import ToolUseBlock  # noqa: E402
from stateact.kernel.meter import Meter  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402
from stateact.kernel.runtime import RoleModels, RunContext  # noqa: E402
from stateact.kernel.tools.edit import EditTool  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402
from tests.support.documents import encoded, scanned_letter, text_pdf  # noqa: E402

COUNT = 100
LOOK_COUNT = 20
"""Views of a PDF and of an image: each reads the file in a fresh child process."""
FILE_LINES = 400


def timed(tool: EditTool, **arguments: object) -> float:
    """Milliseconds one editor call takes; an error result stops the benchmark."""
    started = time.perf_counter()
    result = tool.invoke(ToolUseBlock(id="bench", name=tool.name, input=arguments))
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        raise SystemExit(f"editor call failed: {arguments}: {result.text}")
    return elapsed


def figures(name: str, samples: list[float]) -> list[str]:
    ordered = sorted(samples)
    return [
        f"editor_{name}_p50_ms={statistics.median(ordered):.2f}",
        f"editor_{name}_p90_ms={ordered[int(0.9 * (len(ordered) - 1))]:.2f}",
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        sandbox = LocalSandbox(root / "home", isolation="bwrap")
        sandbox.start()
        log = RunLog(root / "run")
        context = RunContext(root / "run", "bench", sandbox, log, Meter(), RoleModels(main="scripted:x.json"))
        tool = EditTool(context)
        try:
            text = "".join(f"line {n} of the benchmark file\n" for n in range(FILE_LINES))
            first = timed(tool, command="create", path="/home/user/bench.txt", file_text=text)
            views = [timed(tool, command="view", path="/home/user/bench.txt") for _ in range(COUNT)]
            edits = [
                timed(
                    tool,
                    command="str_replace",
                    path="/home/user/bench.txt",
                    old_str=f"line {n} of",
                    new_str=f"LINE {n} of",
                )
                for n in range(COUNT)
            ]
            creates = [
                timed(tool, command="create", path=f"/home/user/new/{n}.txt", file_text="x\n")
                for n in range(COUNT)
            ]
            sandbox.write_file("/home/user/quote.pdf", text_pdf([["Quote No. 1187", "Total: 2,400 USD"]]))
            pdf_views = [timed(tool, command="view", path="/home/user/quote.pdf") for _ in range(LOOK_COUNT)]
            sandbox.write_file("/home/user/scan.png", encoded(scanned_letter((1600, 1200)), "PNG"))
            image_views = [timed(tool, command="view", path="/home/user/scan.png") for _ in range(LOOK_COUNT)]
        finally:
            log.close()
            sandbox.close()
    lines = [f"editor_first_call_ms={first:.2f}"]
    lines += figures("view", views) + figures("str_replace", edits) + figures("create", creates)
    lines += figures("pdf_view", pdf_views) + figures("image_view", image_views)
    lines.append(f"editor_pdf_view_first_ms={pdf_views[0]:.2f}")  # starts the reading worker
    print(" ".join(lines))


if __name__ == "__main__":
    main()
