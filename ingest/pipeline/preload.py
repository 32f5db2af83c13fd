"""Imported by the worker pool's forkserver before it forks workers (`workers.PRELOAD`).

Importing this module imports everything a worker runs (parser, chunker, enrich, pdfium) and
loads the default language model and tokenizer, once, in the forkserver: each worker forked
from it starts with them (copy-on-write) instead of paying about 3.7 s of CPU for imports and
model loads. A worker whose settings name other languages or another encoding loads those
lazily, once. Nothing here may raise: a failure only means the workers load things themselves.
"""

from __future__ import annotations


def warm() -> None:
    """Import the worker's modules and load the default language model and tokenizer."""
    from ingest.chunking.settings import ChunkSettings
    from ingest.pipeline.document import process_document  # noqa: F401 - the import is the point
    from ingest.pipeline.enrich import load_language_model
    from ingest.pipeline.settings import EnrichSettings
    from ingest.tokens import tiktoken_counter

    load_language_model(EnrichSettings())
    tiktoken_counter(ChunkSettings().encoding)


try:
    warm()
except Exception:  # noqa: BLE001, S110 - the forkserver must start whatever happens here
    pass
