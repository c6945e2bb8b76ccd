"""The finish gate: a fresh, narration-blind, read-only reviewer of the saved deliverable."""

from gate.gate import FinishGate, sandbox_clock
from gate.verdict import CheckItem, Finding, Verdict

__all__ = ["CheckItem", "FinishGate", "Finding", "Verdict", "sandbox_clock"]
