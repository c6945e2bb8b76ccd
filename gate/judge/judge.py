"""Picking one of N rollouts: by rule when the finish gates decide it, else by the judge model.

    pick = judge_rollouts(instruction, [evidence_1, evidence_2, evidence_3], models, folder, max_usd=0.5)
    pick.rollout   # 1-based number of the winning rollout

The rule comes first, with no model call: a rollout that passed (finished, and neither its finish
gate nor the file check failed it; `Evidence.passed`) beats every one that did not. When exactly one
passed, it is the pick. When several passed, the judge model compares those; when none passed, it
compares every rollout that left evidence. With a single candidate there is nothing to compare.

The judge model (role `judge`) gets all candidates at once in one request (not pairwise): the
instruction and, per candidate, only the evidence of `gate.judge.evidence`, never narration. It works
requirement by requirement and ends with a `pick` call: the candidate, a table of requirement ×
candidate (met / not met / unclear, with the value read) and its reasons. A judge that ends without a
valid pick (budget, model error, a reply without the call) falls back to the first candidate, and
the pick says so (`by: fallback`). The judgement's events are in `folder/events.jsonl`, the pick in
`folder/judge.json`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from stateact.gate.judge import settings
from stateact.gate.judge.evidence import Evidence
from stateact.kernel.loop import AgentLoop, Budget, LoopSpec
from stateact.kernel.meter import Meter
from stateact.kernel.models import ProviderError, create_model
from stateact.kernel.prompts.loader import render_prompt
from stateact.kernel.runlog import RunLog
from stateact.kernel.runtime import RoleModels
from stateact.kernel.tools.base import LoopEnding, Tool, ToolResult

PROMPTS = Path(__file__).parent / "prompts"
PICK_FILE = "judge.json"
ROLE = "judge"
NO_EVIDENCE = Evidence(status="error", changes="(no evidence: the rollout failed before its end)")


@dataclass
class Pick:
    """The judgement: which rollout won, how, and why."""

    rollout: int
    """1-based number of the winning rollout."""
    by: Literal["rule", "model", "fallback"]
    reasons: str
    candidates: list[int]
    """The rollouts the choice was among (the ones that passed, or all when none did)."""
    passed: list[int]
    requirements: list[dict] = field(default_factory=list)
    usd: float = 0.0

    def save(self, folder: Path) -> None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / PICK_FILE).write_text(json.dumps(asdict(self), ensure_ascii=False, indent=1))


def judge_rollouts(
    instruction: str,
    evidence: list[Evidence | None],
    models: RoleModels | None,
    folder: Path,
    max_usd: float | None = settings.JUDGE_MAX_USD,
) -> Pick:
    """Pick one of the rollouts (evidence in rollout order; None: the rollout left none); saved in `folder`.
    The judge model is `models`' judge role (None: no model; a comparison then falls back)."""
    if not evidence:
        raise ValueError("no rollouts to judge")
    seen = [e or NO_EVIDENCE for e in evidence]
    passed = [n for n, e in enumerate(seen, 1) if e.passed]
    candidates = passed or [n for n, e in enumerate(evidence, 1) if e is not None] or [1]
    if len(candidates) == 1:
        why = (
            "the only rollout that passed" if passed else "no rollout passed and only this one left evidence"
        )
        pick = Pick(candidates[0], "rule", why, candidates, passed)
    else:
        pick = _model_pick(instruction, {n: seen[n - 1] for n in candidates}, models, Path(folder), max_usd)
        pick.passed = passed
    pick.save(folder)
    return pick


class RequirementRow(BaseModel):
    requirement: str = Field(description="One checkable requirement of the instruction.")
    candidates: dict[str, str] = Field(
        description='Per candidate number: "met", "not met" or "unclear", with the value read, e.g. '
        '{"1": "met: B4 = 60", "2": "not met: B4 = 66"}.'
    )


@dataclass(frozen=True)
class ModelChoice(LoopEnding):
    """The candidate the judge's model picked, with its comparison and reasons."""

    candidate: int
    requirements: tuple[RequirementRow, ...]
    reasons: str


class PickTool(Tool):
    name = "pick"
    description = (
        "End the judgement: the number of the candidate whose final state best does the task, the "
        "requirement-by-requirement comparison, and your reasons."
    )

    class Input(BaseModel):
        candidate: int = Field(description="The number of the candidate you pick.")
        requirements: list[RequirementRow] = Field(
            description="Each requirement of the instruction and how every candidate's state meets it."
        )
        reasons: str = Field(description="Why this candidate, in two or three sentences.")

    def __init__(self, allowed: list[int]) -> None:
        self.allowed = allowed

    def run(self, params: Input) -> ToolResult:
        if params.candidate not in self.allowed:
            return ToolResult.error(
                f"candidate {params.candidate} is not one of {', '.join(map(str, self.allowed))}"
            )
        if not params.requirements:
            return ToolResult.error("give the requirement-by-requirement comparison before the pick")
        choice = ModelChoice(params.candidate, tuple(params.requirements), params.reasons)
        return ToolResult(text=f"Picked candidate {params.candidate}.", terminal=True, ending=choice)


def _model_pick(
    instruction: str,
    candidates: dict[int, Evidence],
    models: RoleModels | None,
    folder: Path,
    max_usd: float | None,
) -> Pick:
    numbers = list(candidates)
    if models is None:
        return _fallback(numbers, "no judge model (give --judge-model)", Meter())
    log, meter = RunLog(folder), Meter()
    try:
        try:
            model = create_model(models.spec_for(ROLE), ROLE, models.settings_for(ROLE))
        except (ProviderError, ValueError) as exc:
            return _fallback(numbers, f"the judge's model could not be set up: {exc}", meter)
        budget = Budget(
            max_turns=settings.JUDGE_MAX_TURNS,
            max_usd=min(settings.JUDGE_MAX_USD, max_usd) if max_usd is not None else settings.JUDGE_MAX_USD,
            max_seconds=settings.JUDGE_MAX_SECONDS,
        )
        spec = LoopSpec(ROLE, [PickTool(numbers)], judge_prompt(len(numbers)), budget)
        loop = AgentLoop(spec, model=model, log=log, meter=meter)
        outcome = loop.run(judge_request(instruction, candidates))
        loop.close_tools()
    finally:
        log.close()
    choice = outcome.ending_as(ModelChoice)
    if choice is None:
        return _fallback(
            numbers, f"the judge ended without a pick ({outcome.status}: {outcome.text[:300]})", meter
        )
    return Pick(
        choice.candidate,
        "model",
        choice.reasons,
        numbers,
        [],
        [row.model_dump() for row in choice.requirements],
        round(meter.total_usd, 6),
    )


def _fallback(numbers: list[int], why: str, meter: Meter) -> Pick:
    return Pick(
        numbers[0], "fallback", f"{why}; the first candidate stands", numbers, [], usd=meter.total_usd
    )


def judge_prompt(count: int) -> str:
    """The judge's system prompt for `count` candidates."""
    return render_prompt(PROMPTS / "judge.md", count=str(count))


def judge_request(instruction: str, candidates: dict[int, Evidence]) -> str:
    """The judge's one message: the instruction and each candidate's state evidence."""
    parts = [
        render_prompt(
            PROMPTS / "candidate.md",
            number=str(number),
            status=evidence.status,
            home=evidence.home or "(unknown)",
            gate={True: "PASS", False: "FAIL", None: "no verdict"}[evidence.gate_passed],
            changes=_cut(evidence.changes or "(nothing recorded)", settings.JUDGE_CHANGES_MAX_CHARS),
            facts="\n".join(json.dumps(f, ensure_ascii=False) for f in evidence.facts) or "(no file named)",
            checklist="\n".join(_check_line(c) for c in evidence.checklist) or "(none)",
            findings="\n".join(_finding_line(f) for f in evidence.findings) or "(none)",
        )
        for number, evidence in candidates.items()
    ]
    return render_prompt(
        PROMPTS / "candidates.md",
        instruction=instruction,
        numbers=", ".join(map(str, candidates)),
        candidates="\n".join(parts),
    )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


def _check_line(item: dict) -> str:
    evidence = _cut(str(item.get("evidence", "")), settings.JUDGE_CHECK_MAX_CHARS)
    return f"- [{item.get('result', '?')}] {item.get('requirement', '')}: {evidence}"


def _finding_line(item: dict) -> str:
    evidence = _cut(str(item.get("evidence", "")), settings.JUDGE_CHECK_MAX_CHARS)
    return f"- ({item.get('source', '')}) [{item.get('location', '')}] {item.get('problem', '')}: {evidence}"
