"""A 500-step scripted run on the local sandbox, under the harness's context management.

Each step runs a bash command with sizeable output through the bash tool; every
tenth step also takes a screenshot of the sandbox display, and the plan tool
sets and updates a five-item plan that is injected at the end of each request. The main model is
scripted and refuses any prompt over its context window, as a real provider
would. Prints the largest request in tokens, the number of compactions, the
cacheable-prefix share (per request, the share of its tokens identical to the
previous request's leading blocks, averaged) and process RSS at steps 100, 300
and 500. Last line: key=value pairs.

    python benchmarks/long_run.py [--steps 500] [--screenshot-every 10]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import stateact.app  # noqa: E402, F401  (the roles, whose briefs the main prompt carries)
from stateact.kernel.context.cache_prefix import request_blocks, shared_prefix_tokens  # noqa: E402
from stateact.kernel.context.pipeline import build_context_manager  # noqa: E402
from stateact.kernel.context.token_counter import counter  # noqa: E402
from stateact.kernel.loop import Budget, LoopSpec  # noqa: E402
from stateact.kernel.meter import Meter  # noqa: E402
from stateact.kernel.models.base import ModelRequest, ModelResponse  # noqa: E402
from stateact.kernel.models.catalog import lookup  # noqa: E402
from stateact.kernel.models.scripted import ScriptedProvider  # noqa: E402
from stateact.kernel.prompts import main_opening, render_main_prompt  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402
from stateact.kernel.runtime import RoleModels, RunContext  # noqa: E402
from stateact.kernel.tools.base import Tool, ToolResult  # noqa: E402
from stateact.kernel.tools.bash import BashTool  # noqa: E402
from stateact.kernel.tools.finish import FinishTool  # noqa: E402
from stateact.kernel.tools.plan import Plan, PlanTool, plan_injection  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402

MODEL = "scripted"
COMMANDS = (
    "ls -la /usr/lib/x86_64-linux-gnu | sed -n '{start},{end}p'",
    "find /usr/share -maxdepth 3 | sort | sed -n '{start},{end}p'",
    "sed -n '{start},{end}p' /etc/services; echo lines=$(wc -l < /etc/services)",
    "python3 -c \"import sys; [print(n, n * n, hex(n), 'x' * (n % 50)) for n in range({start}, {end})]\"",
    "dpkg -l | sed -n '{start},{end}p'",
)
SUMMARY = (
    "## Task\nCollect system facts into the report.\n## Progress\n{facts}\n## Discovered paths\n"
    "/usr/lib/x86_64-linux-gnu, /usr/share, /etc/services\n## Values and facts\n{facts}\n"
    "## Failed attempts\nnone\n## Open questions\nnone\n## Plan item ids\np1 done, p2 in progress, p3 open"
)


class Screenshot(Tool):
    name = "screenshot"
    description = "Take a screenshot of the display."

    class Input(BaseModel):
        pass

    def __init__(self, sandbox: LocalSandbox) -> None:
        self.sandbox = sandbox
        self.taken = 0

    def run(self, params: Input) -> ToolResult:
        image = self.sandbox.screenshot()
        self.taken += 1
        return ToolResult(text="screenshot taken", images=(image,))


class MeasuredProvider(ScriptedProvider):
    """The scripted main model, measuring each request.

    Scripted providers record every request for tests; real ones keep none, so this one
    drops its own records and those of the providers in `forget` (the scripted compactor).
    """

    def __init__(self, turns: list[dict], window: int, forget: list[ScriptedProvider]) -> None:
        super().__init__(turns, spec="scripted:benchmark", name=MODEL, context_window=window)
        self.forget = [self, *forget]
        self.largest = 0
        self.shares: list[float] = []
        self.rss_mb: dict[int, float] = {}
        self._previous: list[tuple[str, int]] = []

    def complete(self, request: ModelRequest) -> ModelResponse:
        blocks = request_blocks(request, counter())
        total = sum(size for _, size in blocks)
        if self._previous:
            self.shares.append(shared_prefix_tokens(self._previous, blocks) / total)
        self._previous = blocks
        self.largest = max(self.largest, total)
        response = super().complete(request)
        for provider in self.forget:
            provider.requests.clear()
        if self._position in (100, 300, 500):
            self.rss_mb[self._position] = rss_mb()
        return response


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


PLAN_ITEMS = ["find the data", "read the totals", "check the values", "write the report", "verify it"]


def script(steps: int, screenshot_every: int) -> list[dict]:
    """The main model's turns: a plan, then bash steps (some with a screenshot, some updating the plan)."""
    turns = [{"tool_calls": [{"name": "plan", "input": {"action": "set", "items": PLAN_ITEMS}}]}]
    for step in range(1, steps):
        template = COMMANDS[step % len(COMMANDS)]
        start = 1 + (step * 37) % 400
        calls = [{"name": "bash", "input": {"command": template.format(start=start, end=start + 90)}}]
        if screenshot_every and step % screenshot_every == screenshot_every - 1:
            calls.append({"name": "screenshot", "input": {}})
        if step % (steps // len(PLAN_ITEMS)) == 0:
            item = step * len(PLAN_ITEMS) // steps
            calls.append(
                {"name": "plan", "input": {"action": "update", "updates": [{"id": item, "status": "done"}]}}
            )
        turns.append({"text": f"Step {step}: looking further.", "tool_calls": calls})
    turns.append({"tool_calls": [{"name": "finish", "input": {"summary": "report complete"}}]})
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--screenshot-every", type=int, default=10)
    args = parser.parse_args()

    window = lookup(MODEL).context_window
    root = Path(tempfile.mkdtemp(prefix="long_run_"))
    script_path = root / "script.json"
    summaries = [{"text": SUMMARY.format(facts=f"round {i}: " + "fact; " * 150)} for i in range(200)]
    script_path.write_text(json.dumps({"roles": {"compactor": summaries}}))
    sandbox = LocalSandbox(root / "work", display=True, window_manager=False)
    sandbox.start()
    log = RunLog(root / "run")
    started = time.monotonic()
    try:
        context = RunContext(
            run_dir=root / "run",
            task="Collect system facts into a report.",
            sandbox=sandbox,
            log=log,
            meter=Meter(),
            models=RoleModels(main=f"scripted:{script_path}"),
        )
        model = MeasuredProvider(
            script(args.steps, args.screenshot_every), window, forget=[context.provider("compactor")]
        )
        plan = Plan.for_run(context.run_dir)
        policy = build_context_manager(
            context, MODEL, plan=plan_injection(plan), notes=[plan_injection(plan)]
        )
        screenshot = Screenshot(sandbox)
        tools = [BashTool(context), PlanTool(context, plan), screenshot, FinishTool(context)]
        prompt = render_main_prompt({t.name for t in tools})
        budget = Budget(max_turns=args.steps + 10, max_usd=None, max_seconds=None)
        spec = LoopSpec("main", tools, prompt, budget, opening=main_opening(sandbox.home))
        loop = context.loop(spec, model=model, context=policy)
        outcome = loop.run(context.task)
        loop.close_tools()
    finally:
        sandbox.close()
        log.close()
    seconds = time.monotonic() - started
    share = sum(model.shares) / max(len(model.shares), 1)
    rss = {step: round(model.rss_mb.get(step, 0.0), 1) for step in (100, 300, 500)}
    print(f"status: {outcome.status} after {outcome.turns} turns in {seconds:.0f}s")
    print(f"largest request: {model.largest} tokens (window {window})")
    print(f"compactions: {policy.compactions}; screenshots in context: {screenshot.taken}")
    print(f"cacheable-prefix share: {share:.3f}")
    print(f"RSS MB at steps 100/300/500: {rss[100]} / {rss[300]} / {rss[500]}")
    print(
        f"status={outcome.status} turns={outcome.turns} largest_request_tokens={model.largest} "
        f"window={window} over_window={int(model.largest > window)} compactions={policy.compactions} "
        f"cacheable_share={share:.3f} screenshots={screenshot.taken} rss_mb_100={rss[100]} rss_mb_300={rss[300]} rss_mb_500={rss[500]} "
        f"seconds={seconds:.0f}"
    )


if __name__ == "__main__":
    main()
