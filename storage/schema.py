"""The SQL schema: SQLAlchemy 2 typed declarative models whose table and column names are a contract.

Users and evaluation scripts query these tables with plain SQL (`ingest query`), so names
follow DESIGN.md exactly. Conventions:

- Timestamps are ISO-8601 UTC text (`2026-11-29T12:00:00Z`): readable and sortable in SQL.
- JSON columns (`metadata`, `data`, `settings`, ...) are JSON text, queryable with
  `json_extract(metadata, '$.doc_type')`; non-ASCII is stored as is, not `\\u` escaped.
- `chunks.heading_path` is the heading list joined with " / " (HEADING_PATH_SEPARATOR),
  for reading and LIKE; `chunks.heading_path_json` holds the exact list.
- `chunks_fts` is an FTS5 external-content index over the view `chunks_search`: a chunk's two
  innermost headings (`searched_heading`) and `chunks.body`, kept in sync by triggers on
  `chunks`, so every write path (the library or a user's own SQL) keeps it right.
  `storage.search` owns the queries over it.
- A section that fits in one child is ONE row, `kind = 'child'` with `parent_id` NULL: no
  parent row that would repeat it (it would double every full-text hit). A child without a
  parent stands for itself wherever parents are expanded.
- The schema version lives in `meta` (key `schema_version`); see `storage.db`.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String, Table, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: Bump when a table or column changes, and teach `storage.db.MIGRATIONS` the step.
#: 2: documents.pinned_settings; 3: stemmed two-column chunks_fts, no twin parents;
#: 4: view chunk_context; 5: pages conservation columns (text/element/lost chars, dropped);
#: 6: chunks_fts indexes a chunk's two innermost headings (view chunks_search), not its whole path.
SCHEMA_VERSION = 6


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, list[str]: JSON, list[int]: JSON}


class Meta(Base):
    """Key/value facts about the database file itself, e.g. `schema_version`."""

    __tablename__ = "meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class DocumentRow(Base):
    """One source PDF. `status` is ok | failed | removed; a removed document keeps its row
    (history, stable id) but its pages, elements and chunks are deleted."""

    __tablename__ = "documents"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    source_path: Mapped[str] = mapped_column(Text, unique=True)
    content_sha256: Mapped[str | None] = mapped_column(String(64))
    size_bytes: Mapped[int | None] = mapped_column(Integer)
    mtime: Mapped[float | None] = mapped_column(Float, doc="file modification time, seconds since the epoch")
    page_count: Mapped[int | None] = mapped_column(Integer)
    title: Mapped[str | None] = mapped_column(
        Text, doc="display title: sidecar, path rule or PDF info, else the parser's"
    )
    parsed_title: Mapped[str | None] = mapped_column(
        Text,
        doc="the title the parser detected; it heads the chunks' heading paths, so re-chunking stored "
        "elements (ingest eval) reproduces the stored chunks",
    )
    status: Mapped[str] = mapped_column(String(16), index=True)
    error: Mapped[str | None] = mapped_column(Text, doc="'[stage] message' of the last failure")
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)
    pipeline_version: Mapped[str | None] = mapped_column(String(32))
    settings: Mapped[dict[str, Any] | None] = mapped_column(JSON, doc="parse/chunk/enrich settings used")
    settings_hash: Mapped[str | None] = mapped_column(String(16))
    pinned_settings: Mapped[dict[str, Any] | None] = mapped_column(
        JSON,
        doc='settings chosen for this document by `ingest reprocess` (e.g. {"parse": {"ocr": {"mode": '
        '"always"}}}); every run applies them on top of its own, `reprocess --unpin` clears them',
    )
    rules_hash: Mapped[str | None] = mapped_column(String(16), doc="hash of the sidecar file and matching path rules")
    ingested_at: Mapped[str | None] = mapped_column(String(32))
    text: Mapped[str | None] = mapped_column(Text, doc="canonical text; chunk offsets index it")
    warnings: Mapped[list[str]] = mapped_column(JSON, default=list)
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    last_run_id: Mapped[int | None] = mapped_column(Integer)


class PageRow(Base):
    __tablename__ = "pages"

    document_id: Mapped[str] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True)
    page_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    width: Mapped[float] = mapped_column(Float, doc="PDF points")
    height: Mapped[float] = mapped_column(Float, doc="PDF points")
    text_source: Mapped[str] = mapped_column(String(16))
    ocr_confidence: Mapped[float | None] = mapped_column(Float)
    ocr_reason: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)
    text_chars: Mapped[int | None] = mapped_column(Integer, doc="characters of the page's text layer")
    element_chars: Mapped[int | None] = mapped_column(Integer, doc="characters its elements hold")
    lost_chars: Mapped[int | None] = mapped_column(
        Integer, doc="text_chars - element_chars - dropped: lost without a reason (0 on a sound page)"
    )
    dropped: Mapped[list[Any] | None] = mapped_column(
        JSON, doc='text left out on purpose: [{"reason": "off_page", "chars": 575, "sample": "..."}]'
    )


class ElementRow(Base):
    """One parsed element; `seq` is its index in `Document.elements` (reading order, from 0).
    Coordinates are PDF points, top-left origin. `data` holds the fields without a column:
    table `rows`/`header_rows`, `caption`, `list_level`, `page_end`, `source`, `confidence`, parser extras."""

    __tablename__ = "elements"
    __table_args__ = (Index("ix_elements_document_seq", "document_id", "seq", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[str] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    page_no: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(16))
    heading_level: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    x0: Mapped[float] = mapped_column(Float)
    top: Mapped[float] = mapped_column(Float)
    x1: Mapped[float] = mapped_column(Float)
    bottom: Mapped[float] = mapped_column(Float)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class ChunkRow(Base):
    """A parent (a section) or a child (a retrieval unit). `seq` is the chunker's output order;
    a child's `parent_id` is its parent's `chunks.id`. `element_seqs` lists `elements.seq`s."""

    __tablename__ = "chunks"
    __table_args__ = (Index("ix_chunks_document_seq", "document_id", "seq", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[str] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("chunks.id"), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    seq: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)
    heading_path: Mapped[str] = mapped_column(Text, default="")
    heading_path_json: Mapped[list[str]] = mapped_column(JSON, default=list)
    page_start: Mapped[int] = mapped_column(Integer)
    page_end: Mapped[int] = mapped_column(Integer)
    char_start: Mapped[int] = mapped_column(Integer)
    char_end: Mapped[int] = mapped_column(Integer)
    token_count: Mapped[int] = mapped_column(Integer)
    over_embedding_limit: Mapped[bool] = mapped_column(Boolean, default=False)
    element_types: Mapped[list[str]] = mapped_column(JSON, default=list)
    element_seqs: Mapped[list[int]] = mapped_column(JSON, default=list)
    language: Mapped[str | None] = mapped_column(String(16))
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)


class RunRow(Base):
    """One `ingest run` or `ingest reprocess`. `status`: running | ok | failed | interrupted
    (a run whose process died; found and closed by the next run)."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    command: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[str] = mapped_column(String(32))
    finished_at: Mapped[str | None] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))
    pid: Mapped[int] = mapped_column(Integer)
    hostname: Mapped[str] = mapped_column(Text)
    paths: Mapped[list[str]] = mapped_column(JSON, default=list)
    settings: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    pipeline_version: Mapped[str] = mapped_column(String(32))
    new: Mapped[int] = mapped_column(Integer, default=0)
    changed: Mapped[int] = mapped_column(Integer, default=0)
    unchanged: Mapped[int] = mapped_column(Integer, default=0)
    removed: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    chunks_written: Mapped[int] = mapped_column(Integer, default=0)
    over_limit_chunks: Mapped[int] = mapped_column(Integer, default=0)
    seconds: Mapped[float | None] = mapped_column(Float)
    message: Mapped[str | None] = mapped_column(Text)


class RunItemRow(Base):
    """What one run did to one file. `outcome`: new | changed | unchanged | removed | failed |
    reprocessed | still_failed (unchanged since an earlier failure, not retried).
    `stage` and `message` say where and why for failures (and why a file counted as changed)."""

    __tablename__ = "run_items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    document_id: Mapped[str | None] = mapped_column(String(32), index=True)
    source_path: Mapped[str] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(String(16))
    stage: Mapped[str | None] = mapped_column(String(16))
    message: Mapped[str | None] = mapped_column(Text)
    chunks_before: Mapped[int | None] = mapped_column(Integer)
    chunks_after: Mapped[int | None] = mapped_column(Integer)
    over_limit_chunks: Mapped[int] = mapped_column(Integer, default=0)
    seconds: Mapped[float | None] = mapped_column(Float)
    finished_at: Mapped[str | None] = mapped_column(String(32))


class EvalRunRow(Base):
    """One evaluation of a chunking strategy on a golden set (written by `ingest.evaluation.evaluate`)."""

    __tablename__ = "eval_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[str] = mapped_column(String(32))
    golden_path: Mapped[str] = mapped_column(Text)
    strategy: Mapped[str] = mapped_column(String(32))
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    results: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class RunLockRow(Base):
    """At most one row: the process that holds the right to write (a run or a reprocess).
    A row whose process is gone (same host, pid dead or reused) is stale and may be taken."""

    __tablename__ = "run_lock"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pid: Mapped[int] = mapped_column(Integer)
    hostname: Mapped[str] = mapped_column(Text)
    process_start: Mapped[str | None] = mapped_column(String(32), doc="/proc start time, guards against pid reuse")
    run_id: Mapped[int | None] = mapped_column(Integer)
    acquired_at: Mapped[str] = mapped_column(String(32))


#: Tokenizer of `chunks_fts` and of `ingest eval`'s index: unicode61 words, diacritics folded,
#: English words stemmed by `porter` ("whiteflies" finds "Whitefly"). Chosen by measurement
#: (docs/search.md). Devanagari passes through porter unchanged.
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"

#: How many of a chunk's innermost heading levels the full-text index holds: its own section's
#: heading and the one above it ("Pest Management / Sucking Pests", "Consolidated Balance Sheets").
#: The levels above (the document title, "Item 8. Financial Statements and Supplementary Data")
#: are shared by hundreds of chunks: they tell no chunk of a document from its neighbours, but
#: they matched any question word they hold ("business", "financial", "data") for every chunk
#: under them. Searching over several documents, the document's name counts through the name
#: boost (`storage.search`), not through this column. Measured in docs/search.md.
SEARCHED_HEADING_LEVELS = 2


def searched_heading(heading_path: list[str] | tuple[str, ...]) -> str:
    """The heading text the full-text index holds for a chunk: its SEARCHED_HEADING_LEVELS innermost
    headings joined with " / " (the `chunks_search` view computes the same in SQL)."""
    return " / ".join(heading_path[-SEARCHED_HEADING_LEVELS:])


def _searched_heading_sql(row: str) -> str:
    """SQL giving `searched_heading(heading_path_json)` of the chunk row `row` ("new", "old", "chunks"):
    the innermost levels, each but the last followed by " / " when present."""
    column = f"{row}.heading_path_json"
    upper = [
        f"coalesce(json_extract({column}, '$[#-{level}]') || ' / ', '')"
        for level in range(SEARCHED_HEADING_LEVELS, 1, -1)
    ]
    return " || ".join([*upper, f"coalesce(json_extract({column}, '$[#-1]'), '')"])


_NEW, _OLD = _searched_heading_sql("new"), _searched_heading_sql("old")

#: What `chunks_fts` indexes, one row per chunk: `heading_path` is `searched_heading` of
#: `heading_path_json`, `body` the body. FTS5 reads this view back for `snippet()` and `rebuild`,
#: so what it shows is what it indexed.
SEARCH_VIEW_DDL = (
    f"CREATE VIEW IF NOT EXISTS chunks_search AS SELECT id, {_searched_heading_sql('chunks')} AS heading_path, "
    "body FROM chunks"
)

#: FTS5 external-content index over the `chunks_search` view (a chunk's innermost headings and its
#: body), two columns so `bm25()` can weigh the headings apart from the body; synced by triggers
#: on `chunks` (SQLite only).
FTS_DDL = [
    SEARCH_VIEW_DDL,
    "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5("
    f"heading_path, body, content='chunks_search', content_rowid='id', tokenize='{FTS_TOKENIZE}')",
    "CREATE TRIGGER IF NOT EXISTS chunks_fts_insert AFTER INSERT ON chunks BEGIN "
    f"INSERT INTO chunks_fts(rowid, heading_path, body) VALUES (new.id, {_NEW}, new.body); END",
    "CREATE TRIGGER IF NOT EXISTS chunks_fts_delete AFTER DELETE ON chunks BEGIN "
    "INSERT INTO chunks_fts(chunks_fts, rowid, heading_path, body) "
    f"VALUES ('delete', old.id, {_OLD}, old.body); END",
    "CREATE TRIGGER IF NOT EXISTS chunks_fts_update AFTER UPDATE OF heading_path_json, body ON chunks BEGIN "
    "INSERT INTO chunks_fts(chunks_fts, rowid, heading_path, body) "
    f"VALUES ('delete', old.id, {_OLD}, old.body); "
    f"INSERT INTO chunks_fts(rowid, heading_path, body) VALUES (new.id, {_NEW}, new.body); END",
]


#: Views for SQL users (SQLite and PostgreSQL alike): the commonest join, spelled once.
#: `chunk_context`: one row per chunk with its document's title and path and its parent's text
#: (NULL parent columns for parents). Created with the tables, and by migration 2 -> 3.
VIEWS_DDL = [
    "CREATE VIEW IF NOT EXISTS chunk_context AS SELECT "
    "c.id AS chunk_id, c.document_id, c.parent_id, c.kind, c.seq, c.text, c.body, c.heading_path, "
    "c.heading_path_json, c.page_start, c.page_end, c.char_start, c.char_end, c.token_count, "
    "c.over_embedding_limit, c.element_types, c.language, c.metadata, "
    "d.title AS title, d.source_path AS source_path, d.status AS document_status, "
    "p.text AS parent_text, p.body AS parent_body "
    "FROM chunks c JOIN documents d ON d.id = c.document_id LEFT JOIN chunks p ON p.id = c.parent_id",
]


def views_ddl(is_sqlite: bool) -> list[str]:
    """VIEWS_DDL for the dialect: PostgreSQL has no `CREATE VIEW IF NOT EXISTS`, SQLite no `OR REPLACE`."""
    if is_sqlite:
        return list(VIEWS_DDL)
    return [statement.replace("CREATE VIEW IF NOT EXISTS", "CREATE OR REPLACE VIEW") for statement in VIEWS_DDL]


def table_of(row_class: type[Base]) -> Table:
    """The `Table` of a mapped row class (declared `FromClause` on the base; every row class here
    is mapped to one table)."""
    return cast(Table, row_class.__table__)
