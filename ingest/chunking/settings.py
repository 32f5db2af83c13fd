"""The chunker's settings: sizes in tokens of a named tiktoken encoding, overlap, parents, merging."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_serializer, model_validator

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
    carried_headings_max: int = Field(
        default=2,
        ge=0,
        description="headings in a row: a heading with no body of its own followed at once by a heading of "
        "the same level (a filing's 'PART I' over 'Item 1. Business', a chapter's title page over its first "
        "section) stays in the heading path of what follows instead of becoming a chunk of its own; at most "
        "this many such headings in a row are carried, because a longer run of bodiless headings is a "
        "contents list, kept together as one body",
    )
    boilerplate_title_words: frozenset[str] = Field(
        default=frozenset(
            """
            united states securities and exchange commission washington dc form annual quarterly current
            report pursuant to section of the act transition period for fiscal year ended part item table
            contents press release news for immediate untitled document microsoft word page cover
            """.split()
        ),
        description="words (case-folded) that name no document: a title made only of them, of numbers and of "
        "single characters ('UNITED STATES SECURITIES AND EXCHANGE COMMISSION', 'FORM 10-K', 'PART I', "
        "'Microsoft Word - 1') is the regulator's or the form's header that every filing of a kind shares, "
        "so the chunks' document line comes from the metadata instead (`chunking.document_line`)",
    )
    table_intro_words: frozenset[str] = Field(
        default=frozenset({"below", "following", "follows", "table"}),
        description="words (case-folded) by which a sentence points at the table after it: a table with no "
        "caption takes the last sentence of the paragraph right before it as its caption (repeated in every "
        "piece, the paragraph left as prose) when that sentence holds one of them and has at most "
        "TABLE_LEAD_IN_MAX_WORDS words. Reports introduce their tables so ('The following table sets forth "
        "net sales by segment.', 'The doses are given below.'); a piece of rows without it says nothing "
        "of what its figures are",
    )
    document_line_from_file_name: bool = Field(
        default=False,
        description="when the title is boilerplate or absent and the PDF info names nothing better, the file "
        "name's words name the document ('ACME_2023_10K.pdf' -> 'ACME 2023 10K'). Off by default: measured on "
        "annual filings, a line of issuer and year on top of every chunk of a document matched the same "
        "question words in all of them and lowered plain BM25's budget hit (docs/search.md)",
    )

    @field_serializer("boilerplate_title_words", "table_intro_words")
    def _sorted_words(self, words: frozenset[str]) -> list[str]:
        """Sets dump sorted, so the settings hash (and the pipeline version) is the same in every process."""
        return sorted(words)

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
