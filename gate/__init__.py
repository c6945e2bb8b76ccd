"""The finish gate: a fresh, narration-blind, read-only reviewer of the saved deliverable."""

from gate.gate import FinishGate
from gate.verdict import CheckItem, Finding, Verdict

__all__ = ["CheckItem", "FinishGate", "Finding", "Verdict"]
