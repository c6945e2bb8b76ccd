"""Reviewers of a saved deliverable: `gate.inspect` reads a sandbox's state, `gate.review` is the finish gate, `gate.judge` picks among best-of-N rollouts."""
