"""`python -m ingest.cli ...`, the same as the `ingest` console script."""

from ingest.cli import app

app()
