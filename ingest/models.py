"""Chunks and the chunker's settings: the contract between `chunk` and `store`/`eval`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from parsers.settings import StageSettings


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


class ChunkSettings(StageSettings):
    """Token sizes are counted with the tiktoken encoding named by `encoding`."""

    strategy: Literal["structure", "recursive", "fixed"] = "structure"
    encoding: str = "cl100k_base"
    child_max_tokens: int = Field(default=300, ge=16)
    overlap_tokens: int = Field(default=50, ge=0)
    parent_max_tokens: int = Field(default=1200, ge=16)
    min_tokens: int = Field(default=60, ge=0, description="pieces smaller than this are merged with neighbours in the same section")
    merge_sections: bool = Field(default=True, description="a section whose sub-sections fit with it in one child "
                                 "becomes one chunk (sub-headings as body lines) instead of one chunk per heading")
    embedding_limit: int = Field(default=8191, ge=16, description="the embedding model's input limit in tokens")

    @model_validator(mode="after")
    def _sizes_consistent(self) -> "ChunkSettings":
        if self.overlap_tokens >= self.child_max_tokens:
            raise ValueError("overlap_tokens must be smaller than child_max_tokens")
        if self.parent_max_tokens < self.child_max_tokens:
            raise ValueError("parent_max_tokens must be at least child_max_tokens")
        return self
