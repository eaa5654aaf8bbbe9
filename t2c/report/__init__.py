"""Reports of a batch run: table, CSV, Markdown, JSON, JUnit (see basic.py)."""
