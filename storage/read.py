"""Reading stored documents back: by id or path, as pydantic models, for `show`, evaluation and re-chunking."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from sqlalchemy import select
from sqlalchemy.orm import defer

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document
from ingest.contracts.errors import DocumentNotFoundError
from storage.convert import row_to_chunk, row_to_element, row_to_page
from storage.db import Database
from storage.schema import ChunkRow, DocumentRow, ElementRow, PageRow
from storage.store import normalise_source_path


def find_document(db: Database, id_or_path: str) -> DocumentRow:
    """The `documents` row for an id (or unique id prefix of at least 4 characters) or a source path."""
    with db.reader() as session:
        row = session.get(DocumentRow, id_or_path)
        if row is None and ("/" in id_or_path or id_or_path.lower().endswith(".pdf") or Path(id_or_path).exists()):
            row = session.scalar(
                select(DocumentRow).where(DocumentRow.source_path == normalise_source_path(id_or_path))
            )
        if row is None and len(id_or_path) >= 4:
            matches = list(session.scalars(select(DocumentRow).where(DocumentRow.id.startswith(id_or_path)).limit(2)))
            if len(matches) == 1:
                row = matches[0]
        if row is None:
            raise DocumentNotFoundError(
                f"no document with id or path {id_or_path!r}; list them with "
                '`ingest query "select id, source_path, status from documents"`'
            )
        return row


def load_document(db: Database, document_id: str) -> Document:
    """The stored Document: title, pages and elements exactly as parsed, so chunking it again gives
    the stored chunks; `metadata` is the enriched one the pipeline stored (PDF info, rules and
    sidecar merged), not the parser's raw dict. The display title is `documents.title`."""
    row = find_document(db, document_id)
    with db.reader() as session:
        return _row_to_document(session, row)


def _row_to_document(session, row: DocumentRow) -> Document:
    pages = session.scalars(select(PageRow).where(PageRow.document_id == row.id).order_by(PageRow.page_no))
    elements = session.scalars(select(ElementRow).where(ElementRow.document_id == row.id).order_by(ElementRow.seq))
    return Document(
        source_path=row.source_path,
        content_sha256=row.content_sha256 or "",
        size_bytes=row.size_bytes or 0,
        page_count=row.page_count or 0,
        title=row.parsed_title,
        pages=[row_to_page(page) for page in pages],
        elements=[row_to_element(element) for element in elements],
        metadata=dict(row.metadata_ or {}),
        warnings=list(row.warnings or []),
    )


def load_chunks(db: Database, document_id: str) -> list[Chunk]:
    """The stored chunks of a document in chunker order; `Chunk.parent` is the parent's index in this list."""
    row = find_document(db, document_id)
    with db.reader() as session:
        rows = list(session.scalars(select(ChunkRow).where(ChunkRow.document_id == row.id).order_by(ChunkRow.seq)))
    position = {chunk.id: index for index, chunk in enumerate(rows)}
    return [
        row_to_chunk(chunk, index, None if chunk.parent_id is None else position.get(chunk.parent_id))
        for index, chunk in enumerate(rows)
    ]


def iter_documents(db: Database, status: str | None = "ok") -> Iterator[tuple[str, Document]]:
    """(id, Document) for every stored document with this status (all statuses with None), in id order."""
    with db.reader() as session:
        query = select(DocumentRow.id).order_by(DocumentRow.id)
        if status is not None:
            query = query.where(DocumentRow.status == status)
        ids = list(session.scalars(query))
    for document_id in ids:
        with db.reader() as session:
            row = session.get(DocumentRow, document_id)
            if row is not None:
                yield document_id, _row_to_document(session, row)


def document_rows(db: Database) -> dict[str, DocumentRow]:
    """Every `documents` row by source path (without the `text` column's weight)."""
    with db.reader() as session:
        rows = session.scalars(select(DocumentRow).options(defer(DocumentRow.text)))
        return {row.source_path: row for row in rows}
