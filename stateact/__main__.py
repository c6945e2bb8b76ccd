"""`python -m stateact` runs the command line."""

from stateact.app.cli import app

app()
