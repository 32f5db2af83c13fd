"""What `ingest search` returns: one typed hit per retrieved chunk (or parent), best first."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SearchHit(BaseModel):
    """One search result. `score` is FTS5 `bm25()` with the column weights (on PostgreSQL, minus
    `ts_rank_cd`): lower is better (negative numbers; only the order within one search means
    anything).

    With parent expansion, the hit is the parent section of `matched_chunk_id` (the child that
    ranked); a child without a parent stands for itself and `matched_chunk_id == chunk_id`.
    Pages are 1-based PDF page numbers, inclusive.
    """

    model_config = ConfigDict(extra="forbid")

    rank: int = Field(ge=1)
    score: float
    chunk_id: int
    matched_chunk_id: int
    document_id: str
    source_path: str
    title: str | None
    kind: str
    seq: int
    heading_path: str
    page_start: int
    page_end: int
    token_count: int
    text: str
