"""Helpers shared by the tests: pytest plugins (keyrings, the log check) and small builders several files use."""
