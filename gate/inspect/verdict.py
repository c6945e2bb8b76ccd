"""The gate's verdict: PASS or FAIL with specific findings, as the finish tool reports it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field


class Finding(BaseModel):
    """One specific problem: what is wrong, where, and the evidence read from the machine."""

    problem: str = Field(description="What is wrong, e.g. 'Total in B10 is 1200, the sum of B2:B9 is 1250'.")
    location: str = Field(description="Where: file path plus sheet/cell, paragraph, slide or shape.")
    evidence: str = Field(description="What you read that shows it (probe output, command output).")
    requirement: str = Field(default="", description="The requirement of the instruction it breaks.")

    def line(self) -> str:
        head = f"- [{self.location}] {self.problem}"
        if self.requirement:
            head += f" (requirement: {self.requirement})"
        return f"{head}\n  evidence: {self.evidence}"


class CheckItem(BaseModel):
    """One checkable requirement derived from the instruction and how it was tested."""

    requirement: str
    result: Literal["pass", "fail", "unverifiable"]
    evidence: str = ""


Source = Literal["pregate", "model", "undecided"]


@dataclass
class Verdict:
    """The outcome of one gate round; `passed` is None when the round ended undecided."""

    passed: bool | None
    findings: list[Finding]
    round: int
    violations: list[str] = field(default_factory=list)
    source: Source = "model"
    checklist: list[CheckItem] = field(default_factory=list)
    summary: str = ""

    def to_dict(self) -> dict:
        return {
            "passed": self.passed,
            "round": self.round,
            "source": self.source,
            "summary": self.summary,
            "findings": [f.model_dump() for f in self.findings],
            "checklist": [c.model_dump() for c in self.checklist],
            "violations": list(self.violations),
        }

    @classmethod
    def from_dict(cls, record: dict) -> Verdict:
        """Rebuild a verdict from `to_dict()` output (e.g. a logged `gate_verdict` event)."""
        return cls(
            passed=record["passed"],
            findings=[Finding.model_validate(f) for f in record.get("findings", [])],
            round=record["round"],
            violations=list(record.get("violations", [])),
            source=record.get("source", "model"),
            checklist=[CheckItem.model_validate(c) for c in record.get("checklist", [])],
            summary=record.get("summary", ""),
        )

    def report(self) -> str:
        """The verdict as text for the main agent: on FAIL, every finding with its location and evidence."""
        if self.passed:
            return f"Finish gate round {self.round}: PASS. {self.summary}".strip()
        if self.passed is None:
            why = "; ".join(f.problem for f in self.findings) or "no verdict"
            return (
                f"Finish gate round {self.round}: undecided ({why}). The gate could not review the work; "
                "this is not a finding against it."
            )
        where = " at the file check, before any review" if self.source == "pregate" else ""
        lines = [f"Finish gate round {self.round}: FAIL{where}. The task is not done yet."]
        if self.summary:
            lines.append(self.summary)
        lines.append("Findings (fix them in the saved deliverable itself):")
        lines.extend(f.line() for f in self.findings)
        return "\n".join(lines)
