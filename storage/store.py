"""Every write to the document tables: replace a document atomically, record a failure, mark a removal.

Invariant: a document's pages, elements and chunks change only inside ONE transaction that
deletes the old rows and inserts the new ones (`save_document`), so a crash at any moment
leaves either the previous version or the new one. The FTS index follows through triggers
inside the same transaction.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.orm import Session

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document
from ingest.contracts.errors import ChunkingError, StorageError
from storage.convert import chunk_to_row, element_to_row, page_to_row
from storage.db import utc_now
from storage.schema import Base, ChunkRow, DocumentRow, ElementRow, PageRow, table_of

DOCUMENT_ID_LENGTH = 10


def normalise_source_path(path: str | Path) -> str:
    """The form `documents.source_path` stores: absolute, symlinks resolved, POSIX separators."""
    return Path(path).expanduser().resolve().as_posix()


def document_id_for(source_path: str, length: int = DOCUMENT_ID_LENGTH) -> str:
    """A short, stable, typeable id: the first `length` hex digits of SHA-1 of the normalised path.

    Stable across runs and re-ingests of the same path; a moved file gets a new id.
    """
    return hashlib.sha1(normalise_source_path(source_path).encode("utf-8")).hexdigest()[:length]


def assign_document_id(session: Session, source_path: str) -> str:
    """The stored id of `source_path`, or a new one (lengthened in the unlikely case of a prefix collision)."""
    existing = session.scalar(select(DocumentRow.id).where(DocumentRow.source_path == source_path))
    if existing:
        return existing
    for length in range(DOCUMENT_ID_LENGTH, 41, 2):
        candidate = document_id_for(source_path, length)
        if not _document_row_exists(session, candidate):
            return candidate
    raise StorageError("cannot assign a document id (SHA-1 collision)", path=source_path)


class DocumentInfo(BaseModel):
    """What the pipeline decided about a document besides its parse and chunks."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    mtime: float | None = None
    pipeline_version: str
    settings: dict[str, Any] = Field(default_factory=dict)
    settings_hash: str | None = None
    rules_hash: str | None = None
    run_id: int | None = None
    pinned_settings: dict[str, Any] | None = Field(
        default=None, description="None: leave the stored pins as they are; {}: clear them; else: store these"
    )


def _delete_content(session: Session, document_id: str) -> int:
    """Delete a document's chunks, elements and pages; returns how many chunks there were.
    Core statements on the tables: no ORM objects of these rows are loaded in a write
    session, so the ORM's bookkeeping of deleted objects would only cost time."""
    chunks, elements, pages = table_of(ChunkRow), table_of(ElementRow), table_of(PageRow)
    before = session.scalar(select(func.count()).select_from(chunks).where(chunks.c.document_id == document_id))
    # Children first: their parent_id points at parents of the same document.
    session.execute(delete(chunks).where(chunks.c.document_id == document_id, chunks.c.parent_id.is_not(None)))
    session.execute(delete(chunks).where(chunks.c.document_id == document_id))
    session.execute(delete(elements).where(elements.c.document_id == document_id))
    session.execute(delete(pages).where(pages.c.document_id == document_id))
    return before or 0


def _replace_document_row(session: Session, document_id: str, source_path: str, values: dict[str, Any]) -> int:
    """The document's old content deleted and its row written with `values` (attribute names of
    `DocumentRow`): inserted for a new document, updated in place otherwise (`source_path` is
    set on insert only: the id is the path's). Returns how many chunks were deleted.

    A document without a row has no content to delete: pages, elements and chunks reference
    `documents.id` (foreign keys), so a new document costs one look-up and one insert, not a
    count and four deletes. Core statements: a write session holds no `DocumentRow` object
    (`assign_document_id` finds none for a new path), so none goes stale."""
    table = table_of(DocumentRow)
    columns = _row_values(DocumentRow, values)
    if not _document_row_exists(session, document_id):
        session.execute(insert(table), {"id": document_id, "source_path": source_path, **columns})
        return 0
    before = _delete_content(session, document_id)
    session.execute(
        update(table).where(table.c.id == bindparam("document_id")), {"document_id": document_id, **columns}
    )
    return before


def _document_row_exists(session: Session, document_id: str) -> bool:
    table = table_of(DocumentRow)
    return session.execute(select(table.c.id).where(table.c.id == document_id)).first() is not None


def _document_values(
    info: DocumentInfo,
    status: str,
    *,
    error: str | None = None,
    content_sha256: str | None,
    size_bytes: int | None,
    mtime: float | None,
    page_count: int | None,
    text: str | None,
    warnings: list[str],
    chunk_count: int,
) -> dict[str, Any]:
    """The `documents` columns a stored version (status "ok") and a failure both set: the file's
    facts, what was extracted, and the pipeline's decisions from `info`; `ingested_at` is now."""
    return {
        "content_sha256": content_sha256,
        "size_bytes": size_bytes,
        "mtime": mtime,
        "page_count": page_count,
        "status": status,
        "error": error,
        "text": text,
        "warnings": warnings,
        "chunk_count": chunk_count,
        "title": info.title,
        "metadata_": info.metadata,
        "pipeline_version": info.pipeline_version,
        "settings": info.settings,
        "settings_hash": info.settings_hash,
        "rules_hash": info.rules_hash,
        "ingested_at": utc_now(),
        "last_run_id": info.run_id,
    } | ({} if info.pinned_settings is None else {"pinned_settings": info.pinned_settings or None})


def save_document(
    session: Session, document_id: str, document: Document, chunks: list[Chunk], info: DocumentInfo
) -> tuple[int, int]:
    """Replace the document's pages, elements and chunks with these; returns (chunks before, after).

    Call inside one transaction (`Database.transaction()`); nothing is committed here.
    Chunk metadata is the document metadata merged with the chunk's own (the chunk's keys win).
    """
    source_path = normalise_source_path(document.source_path)
    before = _replace_document_row(
        session,
        document_id,
        source_path,
        {
            **_document_values(
                info,
                "ok",
                content_sha256=document.content_sha256,
                size_bytes=document.size_bytes,
                mtime=info.mtime,
                page_count=document.page_count,
                text=document.canonical_text(),
                warnings=list(document.warnings),
                chunk_count=len(chunks),
            ),
            "parsed_title": document.title,
        },
    )
    _bulk_insert(session, PageRow, [page_to_row(document_id, page) for page in document.pages])
    elements = [element_to_row(document_id, seq, element) for seq, element in enumerate(document.elements)]
    _bulk_insert(session, ElementRow, elements)
    _insert_chunks(session, document_id, chunks, info)
    return before, len(chunks)


def _bulk_insert(session: Session, row_class: type[Base], rows: list[dict[str, Any]]) -> None:
    """One Core INSERT executed with the driver's executemany. Rows are keyed by the mapped
    attribute names (`storage.convert`); the ORM's bulk path would cost about as much again in
    Python as SQLite spends storing them."""
    if not rows:
        return
    session.execute(insert(table_of(row_class)), [_row_values(row_class, row) for row in rows])


def _row_values(row_class: type[Base], values: dict[str, Any]) -> dict[str, Any]:
    """`values` keyed by column names instead of the mapped attribute names ("metadata_" ->
    "metadata"), for Core statements."""
    columns = _column_keys(row_class)
    return {columns[name]: value for name, value in values.items()}


@cache
def _column_keys(row_class: type[Base]) -> dict[str, str]:
    """Mapped attribute name -> column name, for each column of `row_class`."""
    return {attribute.key: attribute.columns[0].key for attribute in sa_inspect(row_class).column_attrs}


def _insert_chunks(session: Session, document_id: str, chunks: list[Chunk], info: DocumentInfo) -> None:
    """Parents (and parentless chunks) first, so children can point at their parents' new ids
    (read back by `seq` in one query: RETURNING in parameter order costs one statement a row)."""

    def row(chunk: Chunk) -> dict[str, Any]:
        return chunk_to_row(document_id, chunk, {**info.metadata, **chunk.metadata})

    roots = [chunk for chunk in chunks if chunk.parent is None]
    children = [chunk for chunk in chunks if chunk.parent is not None]
    ids: dict[int, int] = {}
    if roots:
        _bulk_insert(session, ChunkRow, [row(chunk) for chunk in roots])
        table = ChunkRow.__table__
        ids = dict(session.execute(select(table.c.seq, table.c.id).where(table.c.document_id == document_id)).all())
    if children:
        rows = []
        for chunk in children:
            if chunk.parent not in ids:
                # ChunkingError, not StorageError: it fails this document only (a StorageError
                # stops the batch, as every later write would fail the same way).
                raise ChunkingError(
                    f"chunk {chunk.index} points at parent {chunk.parent}, which is not a parent "
                    "chunk of this document (a chunker bug)",
                    path=document_id,
                )
            rows.append({**row(chunk), "parent_id": ids[chunk.parent]})
        _bulk_insert(session, ChunkRow, rows)


def save_failure(
    session: Session,
    document_id: str,
    source_path: str,
    error: str,
    *,
    content_sha256: str | None,
    size_bytes: int | None,
    mtime: float | None,
    info: DocumentInfo,
) -> int:
    """Record a failed document. Its previous content (if any) is removed, so SQL never serves a
    stale version of a file that now fails; returns the number of chunks removed."""
    return _replace_document_row(
        session,
        document_id,
        normalise_source_path(source_path),
        _document_values(
            info,
            "failed",
            error=error,
            content_sha256=content_sha256,
            size_bytes=size_bytes,
            mtime=mtime,
            page_count=None,
            text=None,
            warnings=[],
            chunk_count=0,
        )
        | {"parsed_title": None},
    )


def mark_removed(session: Session, document_id: str, run_id: int | None = None) -> int:
    """The file is gone: keep the `documents` row (status `removed`, id and history kept) and delete
    its pages, elements and chunks. Returns the number of chunks deleted."""
    before = _delete_content(session, document_id)
    row = session.get(DocumentRow, document_id)
    if row is not None:
        row.status, row.text, row.chunk_count, row.last_run_id = "removed", None, 0, run_id
        row.ingested_at = utc_now()
    return before
