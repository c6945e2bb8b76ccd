"""Tokens of the main agent's prompt before and after choosing app priors per task and printing the plan once.

For every harness variant with a main prompt (the pixel variant has the GUI loop's), the main
system prompt and the whole preamble (system prompt and tool definitions) of a calc, a writer, a
web and a no-app task, with all app priors ("before") and as the harness builds it ("after": the same
for every task; the home folder and the priors the task selects open the first message, whose tokens
are the "opening" column). Then a scripted calc task through the harness's real main loop (variant no-verify: no
gate model needed), twice: "before" with every prior and plan results that end with the whole
plan (as they did), "after" as the harness runs now; its input tokens per request. Counts use
stateact/kernel/context/token_counter.py. Last line: key=value pairs.

    python benchmarks/prompt_tokens.py
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import tempfile
from pathlib import Path

import openpyxl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stateact.app.harness import build_main_loop  # noqa: E402
from stateact.app.variants import VARIANTS  # noqa: E402
from stateact.kernel.context.token_counter import counter  # noqa: E402
from stateact.kernel.loop import AgentLoop, Budget  # noqa: E402
from stateact.kernel.meter import Meter  # noqa: E402
from stateact.kernel.prompts import main_opening, render_main_prompt  # noqa: E402
from stateact.kernel.runlog import RunLog  # noqa: E402
from stateact.kernel.runtime import RoleModels, RunContext  # noqa: E402
from stateact.kernel.tools.base import ToolResult  # noqa: E402
from stateact.kernel.tools.plan import PlanInput, PlanTool  # noqa: E402
from stateact.sandbox.local import LocalSandbox  # noqa: E402

TASKS = {
    "calc": "In ~/sales.xlsx, add a Total row under the data with SUM formulas.",
    "writer": "Make every heading of ~/Documents/policy.docx bold and centred.",
    "web": "Look up the opening hours on https://example.com/contact and save them in ~/hours.txt.",
    "none": "Write ~/notes/todo.md with a checklist of three items.",
}
SCRIPTED_VARIANT = "no-verify"


class FullPlanTool(PlanTool):
    """The plan tool as it was: every result ends with the whole plan."""

    def run(self, params: PlanInput) -> ToolResult:
        result = super().run(params)
        return dataclasses.replace(result, text=f"{result.text}\n{self.plan.render()}")


def scripted_turns(home: str) -> list[dict]:
    """A calc task: look, plan, write the total, claim with evidence, finish."""
    book = f"{home}/sales.xlsx"

    def call(name: str, **arguments) -> dict:
        return {"tool_calls": [{"name": name, "input": arguments}]}

    cell = {"kind": "cell_equals", "path": book, "sheet": "Sales", "cell": "B5", "value": 60}
    return [
        call("bash", command="ls -la ~ && xlsx-dump ~/sales.xlsx"),
        call(
            "plan",
            action="set",
            items=["Read the sheet", "Write the Total row", "Recalculate", "Verify the saved values"],
        ),
        call("plan", action="update", updates=[{"id": 1, "status": "done"}]),
        call("bash", command="xlsx-set ~/sales.xlsx A5=Total 'B5==SUM(B2:B4)' --sheet Sales"),
        call("plan", action="claim", claims=[{"id": 2, "evidence": [{"kind": "file_exists", "path": book}]}]),
        call("bash", command="office-recalc ~/sales.xlsx"),
        call("plan", action="claim", claims=[{"id": 3, "evidence": [cell]}]),
        call("bash", command="xlsx-dump ~/sales.xlsx --range A1:B5"),
        call("plan", action="claim", claims=[{"id": 4, "evidence": [cell]}]),
        call("finish", summary="Added a Total row with =SUM(B2:B4) in B5 of ~/sales.xlsx."),
    ]


def make_context(root: Path, sandbox: LocalSandbox, task: str, script: Path | None = None) -> RunContext:
    run_dir = root / "run"
    return RunContext(
        run_dir=run_dir,
        task=task,
        sandbox=sandbox,
        log=RunLog(run_dir),
        meter=Meter(),
        models=RoleModels(main=f"scripted:{script or 'quickstart'}"),  # the prompt table sends no request
    )


def all_priors_prompt(loop: AgentLoop, sandbox: LocalSandbox, gate: bool) -> str:
    """The prompt as it was before priors were chosen per task: every app prior in full, with the home."""
    return render_main_prompt(set(loop.tools), gate=gate) + "\n" + main_opening(sandbox.home, None)


def preamble_tokens(loop: AgentLoop, system: str) -> int:
    return counter().preamble(system, [tool.spec() for tool in loop.tools.values()])


def prompt_table(root: Path, sandbox: LocalSandbox) -> dict[str, int]:
    """Prompt and preamble tokens per variant and task, before and after; printed as a table."""
    figures: dict[str, int] = {}
    print(
        f"{'variant':<11} {'task':<7} {'system before':>13} {'after':>6} {'preamble before':>15} {'after':>6}"
        f" {'opening':>7}"
    )
    for variant in VARIANTS.values():
        if variant.pixel:
            continue
        for name, task in TASKS.items():
            context = make_context(root / f"{variant.name}-{name}", sandbox, task)
            loop = build_main_loop(context, variant, Budget(max_turns=1))
            loop.close_tools()
            context.log.close()
            before = all_priors_prompt(loop, sandbox, variant.gate)
            row = (
                counter().text(before),
                counter().text(loop.system_prompt),
                preamble_tokens(loop, before),
                preamble_tokens(loop, loop.system_prompt),
                counter().text(loop.opening),
            )
            print(
                f"{variant.name:<11} {name:<7} {row[0]:>13} {row[1]:>6} {row[2]:>15} {row[3]:>6} {row[4]:>7}"
            )
            key = f"{variant.name.replace('-', '_')}_{name}"
            figures[f"{key}_system_before"], figures[f"{key}_system_after"] = row[0], row[1]
            figures[f"{key}_preamble_before"], figures[f"{key}_preamble_after"] = row[2], row[3]
            figures[f"{key}_opening"] = row[4]
    return figures


def scripted_run(root: Path, sandbox: LocalSandbox, before: bool) -> list[int]:
    """Input tokens of each request of the scripted calc task."""
    root.mkdir(parents=True, exist_ok=True)
    script = root / "script.json"
    script.write_text(json.dumps({"roles": {"main": scripted_turns(sandbox.home)}}))
    context = make_context(root, sandbox, TASKS["calc"], script)
    loop = build_main_loop(context, VARIANTS[SCRIPTED_VARIANT], Budget(max_turns=30))
    if before:
        loop.system_prompt = all_priors_prompt(loop, sandbox, gate=False)
        loop.opening = ""
        plan_tool = loop.tools["plan"]
        loop.tools["plan"] = FullPlanTool(context, plan_tool.plan, plan_tool.checker)
    try:
        outcome = loop.run(context.task)
    finally:
        loop.close_tools()
        context.log.close()
    if outcome.status != "finished":
        raise SystemExit(f"the scripted run ended {outcome.status}: {outcome.text}")
    return [
        counter().preamble(request.system, request.tools) + counter().messages(request.messages)
        for request in loop.model.requests
    ]


def write_sales(path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sales"
    for row in (("Item", "Units"), ("pens", 10), ("ink", 20), ("paper", 30)):
        sheet.append(row)
    book.save(path)


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="prompt_tokens_"))
    sandbox = LocalSandbox(root / "home")
    sandbox.start()
    try:
        figures = prompt_table(root / "prompts", sandbox)
        runs = {}
        for label in ("before", "after"):
            write_sales(Path(sandbox.home) / "sales.xlsx")
            runs[label] = scripted_run(root / f"scripted-{label}", sandbox, before=label == "before")
    finally:
        sandbox.close()
        shutil.rmtree(root, ignore_errors=True)
    print("\nscripted calc task (variant no-verify), input tokens per request:")
    print(f"{'request':>7} {'before':>7} {'after':>7} {'saved':>6}")
    for index, (old, new) in enumerate(zip(runs["before"], runs["after"], strict=True), start=1):
        print(f"{index:>7} {old:>7} {new:>7} {old - new:>6}")
    total_before, total_after = sum(runs["before"]), sum(runs["after"])
    print(f"{'total':>7} {total_before:>7} {total_after:>7} {total_before - total_after:>6}")
    summary = {
        **{k: v for k, v in figures.items() if k.startswith("stateact_")},
        "scripted_requests": len(runs["after"]),
        "scripted_input_before": total_before,
        "scripted_input_after": total_after,
        "scripted_saved_share": f"{1 - total_after / total_before:.3f}",
    }
    print(" ".join(f"{key}={value}" for key, value in summary.items()))


if __name__ == "__main__":
    main()
