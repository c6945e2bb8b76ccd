"""Memory of a run that delegates many times: is every finished subagent loop released?

One run (a LocalSandbox with its own X display, one RunLog, one meter) hands 200 subgoals to the GUI
and web subagents in turn, each played by the scripted model: a GUI delegation takes a screenshot
and reports done, a web delegation opens a local page, takes a screenshot and reports done. The
resident set size is read after the first 10 delegations (the browser and the display are warm by
then) and after the last one, once the browser is closed as at a run's end; `live_loops_after` counts
the AgentLoop objects still alive then and `listeners_after` the run log's subscribers.

Run: python benchmarks/delegation_memory.py [--delegations 200]. Prints name=value lines.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import tempfile
import weakref
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stateact.kernel.loop import AgentLoop  # noqa: E402
from stateact.kernel.messages import ToolUseBlock  # noqa: E402
from stateact.kernel.meter import Meter  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402
from stateact.kernel.runtime import RoleModels, RunContext  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402
from stateact.subagents.gui import DelegateGuiTool  # noqa: E402
from stateact.subagents.web import DelegateWebTool  # noqa: E402

WARM_UP = 10
PAGE = "<html><body><h1>Order 17</h1><p>Status: shipped</p></body></html>"


def script(delegations: int, page_url: str) -> dict:
    """The GUI and web subagents' turns for `delegations` delegations, GUI first, then in turn."""
    gui = [
        {"tool_calls": [{"name": "computer", "input": {"action": "screenshot"}}]},
        {"tool_calls": [{"name": "done", "input": {"summary": "The desktop is shown."}}]},
    ]
    web = [
        {"tool_calls": [{"name": "navigate", "input": {"url": page_url}}]},
        {"tool_calls": [{"name": "screenshot", "input": {}}]},
        {"tool_calls": [{"name": "done", "input": {"summary": "Order 17 is shipped."}}]},
    ]
    return {"roles": {"gui": gui * ((delegations + 1) // 2), "web": web * (delegations // 2)}}


def rss_mb() -> float:
    """The process's current resident set size in MB (from /proc, not the peak)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delegations", type=int, default=200)
    args = parser.parse_args()
    loops: weakref.WeakSet[AgentLoop] = weakref.WeakSet()
    original_init = AgentLoop.__init__

    def counted_init(self, *a, **kw):
        original_init(self, *a, **kw)
        loops.add(self)

    AgentLoop.__init__ = counted_init
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "home").mkdir()
        (root / "home" / "order.html").write_text(PAGE)
        with LocalSandbox(root / "home", display=True, isolation="bwrap", hidden=[root / "run"]) as sandbox:
            page_url = "file://" + sandbox.home + "/order.html"
            script_path = root / "script.json"
            script_path.write_text(json.dumps(script(args.delegations, page_url)))
            log = RunLog(root / "run")
            models = RoleModels(main=f"scripted:{script_path}")
            context = RunContext(root / "run", "Check the orders.", sandbox, log, Meter(), models)
            gui, web = DelegateGuiTool(context), DelegateWebTool(context)
            before = 0.0
            failed = 0
            for number in range(args.delegations):
                tool, name = (gui, "delegate_gui") if number % 2 == 0 else (web, "delegate_web")
                call = ToolUseBlock(id=f"d{number}", name=name, input={"subgoal": "Look at the screen."})
                failed += tool.invoke(call).is_error
                if number + 1 == WARM_UP:
                    gc.collect()
                    before = rss_mb()
            web.close()  # Playwright's sync API holds the frames of its latest caller until then
            gc.collect()
            after = rss_mb()
            print(f"delegations={args.delegations}")
            print(f"failed_delegations={failed}")
            print(f"rss_after_warm_up_mb={before:.1f}")
            print(f"rss_after_mb={after:.1f}")
            print(f"rss_growth_mb={after - before:.1f}")
            print(f"live_loops_after={len(loops)}")
            print(f"listeners_after={len(log._listeners)}")
            log.close()


if __name__ == "__main__":
    main()
