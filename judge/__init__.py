"""Best-of-N: a narration-blind judge that picks one of N rollouts of a task from their final states."""

from judge.evidence import Evidence, collect_evidence, load_evidence, take_start
from judge.judge import Pick, judge_rollouts

__all__ = ["Evidence", "Pick", "collect_evidence", "judge_rollouts", "load_evidence", "take_start"]
