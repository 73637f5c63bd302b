"""A discussion per pair between an annotator and the project's leads (issue 31)."""
