"""`ingest eval`: hit rate at k of chunking strategies on a golden set (index, scoring, report)."""
