"""Best-of-N: a narration-blind judge that picks one of N rollouts of a task from their final states
(`judge.evidence` reads a rollout's state, `judge.judge` compares them and picks)."""
