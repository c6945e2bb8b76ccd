"""The finish gate: a fresh, narration-blind, read-only reviewer of the saved deliverable."""

from stateact.gate.review.finish_gate import FinishGate

__all__ = ["FinishGate"]
