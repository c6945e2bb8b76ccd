"""Evaluation: OSWorld compatibility (`evals.osworld`), running tasks and suites (`evals.running`), reports (`evals.reports`), task authoring (`evals.authoring`) and the `eval` commands (`evals.cli`).

The application is imported first, so every role and its events are registered for the readers of run logs.
"""

import stateact.app

__all__ = ["stateact"]
