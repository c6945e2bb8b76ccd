"""stateact: a code-first multi-agent harness for long-horizon computer-use agents."""

__version__ = "0.1.0"
