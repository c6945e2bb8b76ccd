"""Fresh-context specialists the main agent delegates to (GUI, web)."""
