"""The finish gate: a fresh, narration-blind, read-only reviewer of the saved deliverable."""

from gate.review.finish_gate import FinishGate

__all__ = ["FinishGate"]
