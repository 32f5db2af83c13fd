"""Chunks: the contract between `chunk` and `store`/`eval` (the chunker's settings are in
`ingest.chunking.settings`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Chunk(BaseModel):
    """One retrieval unit (child) or one section (parent).

    `text` is exactly what is embedded and indexed: the heading path on its first line,
    a blank line, then `body`. `char_start`/`char_end` index the document's canonical
    text (`Document.canonical_text()`); for prose and list chunks
    `canonical[char_start:char_end] == body`. `parent` is the list index of this child's
    parent chunk in the same chunker output (None for parents and for strategies
    without parents).
    """

    model_config = ConfigDict(extra="forbid")

    kind: Literal["parent", "child"] = "child"
    index: int = Field(ge=0, description="position in the chunker's output list")
    parent: int | None = None
    text: str
    body: str
    heading_path: list[str] = Field(default_factory=list)
    page_start: int = Field(ge=1)
    page_end: int = Field(ge=1)
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)
    token_count: int = Field(ge=0)
    element_types: list[str] = Field(default_factory=list)
    element_indexes: list[int] = Field(default_factory=list, description="indexes into Document.elements")
    language: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


HEADING_PATH_SEPARATOR = " / "
