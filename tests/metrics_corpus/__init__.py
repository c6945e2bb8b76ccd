"""A differential corpus checking our metrics against OSWorld's own (see README.md)."""
