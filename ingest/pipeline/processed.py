"""What a worker sends back for one PDF (`ProcessedDocument`, or `PageCount` when it is to be split).

The main process unpickles every result, which imports the module that defines its class: kept
here, next to nothing but the contracts, receiving a result does not import the parser, the
chunker and the tokenizer into the main process (about 0.5 s of CPU at start-up).
"""

from __future__ import annotations

from typing import NamedTuple

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


class PageCount(NamedTuple):
    """A worker's answer for a document it was asked to split when long (`Job.split_above`):
    it has this many pages, more than the limit, so it was not processed (`ingest.pipeline.split`)."""

    pages: int
