"""OSWorld compatibility: its task files, setup steps, getters, metrics and scoring, what a task needs of its machine, and the bridge to OSWorld's own evaluator."""
