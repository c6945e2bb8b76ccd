"""The kernel: the agent loop, its typed events and log, context management, model providers and the main agent's tools. It imports the sandbox layer and nothing above it."""
