"""The chunker's settings: sizes in tokens of a named tiktoken encoding, overlap, parents, merging."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ingest.contracts.settings import StageSettings


class ChunkSettings(StageSettings):
    """Token sizes are counted with the tiktoken encoding named by `encoding`."""

    strategy: Literal["structure", "recursive", "fixed", "contextual", "semantic", "late", "naive", "langchain"] = (
        Field(
            default="structure",
            description="`structure` is the product; `recursive`, `fixed`, `naive` (2,000-character windows) and "
            "`langchain` (LangChain's RecursiveCharacterTextSplitter, 1,000/200 characters) are structure-blind "
            "peers kept for measurement (ingest eval)",
        )
    )
    encoding: str = "cl100k_base"
    child_max_tokens: int = Field(default=300, ge=16)
    overlap_tokens: int = Field(default=50, ge=0)
    parent_max_tokens: int = Field(default=1200, ge=16)
    min_tokens: int = Field(
        default=60, ge=0, description="pieces smaller than this are merged with neighbours in the same section"
    )
    merge_sections: bool = Field(
        default=True,
        description="a section whose sub-sections fit with it in one child "
        "becomes one chunk (sub-headings as body lines) instead of one chunk per heading",
    )
    table_max_tokens: int | None = Field(
        default=None,
        ge=16,
        description="cap of a table piece's child text (heading path included); None = child_max_tokens. "
        "A smaller cap cuts a table into row groups, each with its heading path, caption and header",
    )
    context_max_tokens: int = Field(
        default=80,
        ge=0,
        description="contextual strategy: most tokens the context line may add to a child "
        "(title, table caption, the section's first sentence; or a generated blurb); cut at a word beyond",
    )
    semantic_percentile: float = Field(
        default=95,
        gt=0,
        lt=100,
        description="`semantic` strategy: a sentence starts a new child where its distance to the previous "
        "sentence is above this percentile of the document's sentence-to-sentence distances",
    )
    embedding_limit: int = Field(default=8191, ge=16, description="the embedding model's input limit in tokens")

    @model_validator(mode="after")
    def _sizes_consistent(self) -> "ChunkSettings":
        if self.overlap_tokens >= self.child_max_tokens:
            raise ValueError("overlap_tokens must be smaller than child_max_tokens")
        if self.parent_max_tokens < self.child_max_tokens:
            raise ValueError("parent_max_tokens must be at least child_max_tokens")
        return self

    @property
    def table_limit(self) -> int:
        """The cap of a child holding table rows (heading path included): the smaller of the two limits."""
        return min(self.table_max_tokens or self.child_max_tokens, self.child_max_tokens)
