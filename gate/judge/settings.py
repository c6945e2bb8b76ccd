"""Every tunable number of the best-of-N judge, defined once."""

JUDGE_MAX_TURNS = 3
"""Model turns the judge may take to make its `pick` call (a rejected call costs one)."""
JUDGE_MAX_USD = 1.0
"""The most one judgement may spend; it also never spends more than what the rollouts left of the
task's budget."""
JUDGE_BUDGET_SHARE = 0.1
"""Share of a best-of-N task's dollar budget kept back for the judge (at most JUDGE_MAX_USD); the
rollouts split the rest evenly."""
JUDGE_MAX_SECONDS = 600.0
"""Wall-time limit of one judgement."""
JUDGE_CHANGES_MAX_CHARS = 6_000
"""Characters of one candidate's state diff the judge is shown (the diff is capped already)."""
JUDGE_CHECK_MAX_CHARS = 300
"""Characters of one checklist item's or finding's evidence shown to the judge."""
