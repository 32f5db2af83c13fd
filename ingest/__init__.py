"""The pipeline: stages, the chunker, tokens, evaluation, the CLI."""
