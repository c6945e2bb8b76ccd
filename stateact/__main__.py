"""`python -m stateact` runs the command line."""

from stateact.cli import app

app()
