"""The golden set and the evaluation report: what `ingest eval` reads and what it writes.

Golden set: JSONL, one question per line (blank lines are skipped):

    {"question": "how much medicine for whitefly per litre", "must_contain": ["Whitefly", "2 ml"],
     "doc": "crop_manual.pdf", "kind": "table"}

- `question` (required): the words a user would type.
- `must_contain`: one phrase or a list of phrases; all must appear in the SAME
  retrieved chunk (case-insensitive, whitespace-normalised).
- `pages`: evidence pages (1-based PDF page numbers); a retrieved chunk whose page span
  covers one of them is a hit (FinanceBench's evidence-page measure). An item needs
  `must_contain`, `pages` or both (then a hit needs both).
- `doc` (optional): a stored document's id, file name or file stem; retrieval is then
  restricted to that document.
- `kind` (optional): a label for the per-kind breakdown (table, list, prose, ocr, hindi,
  section, ...); unlabelled questions count as `unlabelled`.
- `note` (optional): free text for people; ignored by the scorer.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ingest.contracts.errors import ConfigError

UNLABELLED_KIND = "unlabelled"


class GoldenItem(BaseModel):
    """One golden question; `line` is its 1-based line in the file (set by `load_golden`)."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1)
    must_contain: list[str] = Field(default_factory=list)
    pages: list[int] = Field(default_factory=list, description="evidence pages, 1-based")
    doc: str | None = None
    kind: str = UNLABELLED_KIND
    note: str | None = None
    line: int = Field(default=0, ge=0)

    @field_validator("must_contain", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("must_contain")
    @classmethod
    def _no_empty_phrase(cls, value: list[str]) -> list[str]:
        if any(not phrase.strip() for phrase in value):
            raise ValueError("must_contain holds an empty phrase")
        return value

    @field_validator("pages")
    @classmethod
    def _positive_pages(cls, value: list[int]) -> list[int]:
        if any(page < 1 for page in value):
            raise ValueError("pages are 1-based page numbers")
        return value

    @model_validator(mode="after")
    def _an_answer(self) -> "GoldenItem":
        if not self.must_contain and not self.pages:
            raise ValueError("an item needs 'must_contain' (phrases) or 'pages' (evidence pages)")
        return self


def load_golden(path: str | Path) -> list[GoldenItem]:
    """Read a golden JSONL file; any bad line is a ConfigError naming the file and the line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ConfigError(f"cannot read the golden set ({error.strerror}); check the path", path=str(path)) from error
    items: list[GoldenItem] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("a line must be one JSON object")
            items.append(GoldenItem.model_validate({**record, "line": number}))
        except (ValueError, ValidationError) as error:
            raise ConfigError(
                f"line {number} is not a valid golden item: {error}; "
                "each line needs 'question' and 'must_contain' or 'pages'",
                path=str(path),
            ) from error
    if not items:
        raise ConfigError("the golden set holds no question", path=str(path))
    return items


class Scores(BaseModel):
    """Rates in [0, 1] over `questions` questions. Keys of the k-maps are the k values."""

    questions: int
    hit_at_k: dict[int, float]
    parent_hit_at_k: dict[int, float]
    budget_hit: float
    parent_budget_hit: float


class QuestionResult(BaseModel):
    """One question under one strategy. Ranks are 1-based among the retrieved contexts; None = not retrieved."""

    line: int
    question: str
    kind: str
    doc: str | None
    must_contain: list[str]
    pages: list[int] = Field(default_factory=list)
    child_rank: int | None
    parent_rank: int | None
    budget_hit: bool
    parent_budget_hit: bool
    top_chunk: str | None = Field(default=None, description="text of the best-ranked child chunk")
    top_chunk_doc: str | None = None
    answer_in_text: bool = Field(
        default=True,
        description="the phrases occur in the searched document's parsed "
        "text at all; False = a parse/OCR loss, not a chunking miss",
    )


class StrategyResult(BaseModel):
    """Scores of one chunking strategy. Chunk counts and token means are over child chunks (the indexed units)."""

    strategy: str
    settings: dict[str, Any]
    chunk_count: int
    parent_count: int
    mean_tokens: float
    max_tokens: int
    pages: int = Field(default=0, description="pages of the documents chunked")
    chunk_cpu_seconds: float = Field(default=0.0, description="CPU seconds chunking every document")
    embed_cpu_seconds: float | None = Field(
        default=None, description="CPU seconds embedding the children (vector and hybrid retrieval; None for bm25)"
    )
    notes: list[str] = Field(default_factory=list, description="what the strategy did that the scores do not show")
    overall: Scores
    by_kind: dict[str, Scores]
    questions: list[QuestionResult]
    run_id: int | None = Field(default=None, description="eval_runs.id of the stored row")

    def misses(self, k: int) -> list[QuestionResult]:
        """Questions whose answer is not in the top `k` child chunks."""
        return [q for q in self.questions if q.child_rank is None or q.child_rank > k]


class SkippedQuestion(BaseModel):
    line: int
    question: str
    reason: str


class EvalReport(BaseModel):
    golden_path: str
    created_at: datetime
    ks: list[int]
    budget_tokens: int
    depth: int = Field(description="child chunks retrieved per question")
    fts_tokenize: str = Field(description="FTS5 tokenizer of the evaluation index")
    retriever: str = Field(default="bm25", description="bm25, vector or hybrid (as `ingest search`)")
    documents: list[str] = Field(description="ids of the documents searched")
    question_count: int
    skipped: list[SkippedQuestion] = Field(default_factory=list)
    strategies: list[StrategyResult]

    def strategy(self, name: str) -> StrategyResult:
        for result in self.strategies:
            if result.strategy == name:
                return result
        raise KeyError(name)
