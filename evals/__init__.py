"""OSWorld compatibility: task files, setup steps, getters, metrics, scoring and results."""
