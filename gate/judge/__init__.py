"""Best-of-N: a narration-blind judge that picks one of N rollouts of a task from their final states
(`gate.judge.evidence` reads a rollout's state, `gate.judge.judge` compares them and picks)."""
