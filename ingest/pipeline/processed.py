"""What a worker sends back for one PDF (`ProcessedDocument`), in a module of its own.

The main process unpickles every result, which imports the module that defines its class: kept
here, next to nothing but the contracts, receiving a result does not import the parser, the
chunker and the tokenizer into the main process (about 0.5 s of CPU at start-up).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document


class ProcessedDocument(BaseModel):
    """What a worker returns for one PDF: everything `store` needs, nothing from the database."""

    model_config = ConfigDict(extra="forbid")

    document: Document
    chunks: list[Chunk]
    metadata: dict
    title: str
