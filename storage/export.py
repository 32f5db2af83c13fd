"""Reading chunks out for other tools: one record per chunk, `page_content` plus flat metadata.

The record is the one contract that `ingest export --format jsonl`, the LangChain loader and the
LlamaIndex reader share, so the three never disagree on a key. `metadata` is the chunk's stored
`metadata` JSON (document metadata merged with the chunk's own, e.g. `doc_type` from a path
rule), overlaid with the keys in `RECORD_KEYS` (those win on a name clash, so `title` is always
`documents.title`). `page_content` is `chunks.text`: exactly what is indexed and embedded, the
heading path on its first line.

Selection: every ok document (or one, by id, id prefix or path), chunks of one kind (children
by default: the retrieval units), optionally narrowed by an SQL condition over the
`chunk_context` view, run on the read-only query connection so a condition cannot write.
Records stream one document at a time, in (document id, seq) order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from ingest.contracts.errors import QueryError
from storage.db import Database
from storage.query import run_query
from storage.read import find_document
from storage.schema import ChunkRow, DocumentRow, ElementRow

ChunkKind = Literal["child", "parent", "all"]

#: The metadata keys every record carries (docs/integrations.md lists their meaning).
RECORD_KEYS = (
    "document_id",
    "source_path",
    "title",
    "chunk_id",
    "parent_id",
    "kind",
    "seq",
    "heading_path",
    "page_start",
    "page_end",
    "char_start",
    "char_end",
    "element_types",
    "language",
    "token_count",
    "over_embedding_limit",
    "bboxes",
)


class ChunkRecord(BaseModel):
    """One chunk as other tools want it. `metadata["bboxes"]` maps a page number (as a string,
    JSON keys are strings) to the boxes `[x0, top, x1, bottom]` (PDF points, top-left origin)
    of the chunk's source elements on that page, in reading order."""

    model_config = ConfigDict(extra="forbid")

    page_content: str
    metadata: dict[str, Any]


def where_chunk_ids(db: Database, where: str) -> set[int]:
    """`chunks.id`s of the `chunk_context` rows matching an SQL condition (read-only connection)."""
    try:
        result = run_query(db.url, f"select chunk_id from chunk_context where ({where})")
    except QueryError as error:
        raise QueryError(f"--where {where!r}: {error.reason}") from error
    return {int(row[0]) for row in result.rows}


def _document_ids(db: Database, document: str | None) -> list[str]:
    if document is not None:
        return [find_document(db, document).id]
    with db.reader() as session:
        return list(session.scalars(select(DocumentRow.id).where(DocumentRow.status == "ok").order_by(DocumentRow.id)))


def select_document_ids(db: Database, *, document: str | None = None, where: str | None = None) -> list[str]:
    """The ok documents (or the one named), narrowed by `where` to those with a matching chunk."""
    ids = _document_ids(db, document)
    if not where:
        return ids
    matching = where_chunk_ids(db, where)
    with db.reader() as session:
        owners = set(session.scalars(select(ChunkRow.document_id).where(ChunkRow.id.in_(matching))))
    return [document_id for document_id in ids if document_id in owners]


def _element_boxes(session, document_id: str) -> dict[int, tuple[int, list[float]]]:
    """elements.seq -> (page, [x0, top, x1, bottom]) for one document."""
    rows = session.execute(
        select(
            ElementRow.seq, ElementRow.page_no, ElementRow.x0, ElementRow.top, ElementRow.x1, ElementRow.bottom
        ).where(ElementRow.document_id == document_id)
    )
    return {seq: (page, [x0, top, x1, bottom]) for seq, page, x0, top, x1, bottom in rows}


def boxes_by_page(element_seqs: list[int], boxes: dict[int, tuple[int, list[float]]]) -> dict[str, list[list[float]]]:
    """The chunk's element boxes grouped by page (keys are page numbers as strings)."""
    pages: dict[str, list[list[float]]] = {}
    for seq in element_seqs:
        if seq in boxes:
            page, box = boxes[seq]
            pages.setdefault(str(page), []).append(box)
    return pages


def row_to_record(row: ChunkRow, document: DocumentRow, boxes: dict[int, tuple[int, list[float]]]) -> ChunkRecord:
    metadata = dict(row.metadata_ or {})
    metadata.update(
        document_id=row.document_id,
        source_path=document.source_path,
        title=document.title,
        chunk_id=row.id,
        parent_id=row.parent_id,
        kind=row.kind,
        seq=row.seq,
        heading_path=list(row.heading_path_json or []),
        page_start=row.page_start,
        page_end=row.page_end,
        char_start=row.char_start,
        char_end=row.char_end,
        element_types=list(row.element_types or []),
        language=row.language,
        token_count=row.token_count,
        over_embedding_limit=bool(row.over_embedding_limit),
        bboxes=boxes_by_page(list(row.element_seqs or []), boxes),
    )
    return ChunkRecord(page_content=row.text, metadata=metadata)


def iter_chunk_records(
    db: Database, *, document: str | None = None, where: str | None = None, kind: ChunkKind = "child"
) -> Iterator[ChunkRecord]:
    """The selected chunks as records, one document at a time (memory: one document's chunks)."""
    if kind not in ("child", "parent", "all"):
        raise QueryError(f"kind {kind!r}: expected child, parent or all")
    wanted = where_chunk_ids(db, where) if where else None
    for document_id in _document_ids(db, document):
        with db.reader() as session:
            document_row = session.get(DocumentRow, document_id)
            query = select(ChunkRow).where(ChunkRow.document_id == document_id).order_by(ChunkRow.seq)
            if kind != "all":
                query = query.where(ChunkRow.kind == kind)
            rows = [row for row in session.scalars(query) if wanted is None or row.id in wanted]
            if not rows or document_row is None:
                continue
            boxes = _element_boxes(session, document_id)
        yield from (row_to_record(row, document_row, boxes) for row in rows)


def records_for_chunk_ids(db: Database, chunk_ids: list[int]) -> dict[int, ChunkRecord]:
    """The records of these chunks (any kind), by chunk id; ids no longer stored are absent."""
    found: dict[int, ChunkRecord] = {}
    with db.reader() as session:
        rows = list(session.scalars(select(ChunkRow).where(ChunkRow.id.in_(chunk_ids))))
        for document_id in sorted({row.document_id for row in rows}):
            document_row = session.get(DocumentRow, document_id)
            boxes = _element_boxes(session, document_id)
            for row in rows:
                if row.document_id == document_id and document_row is not None:
                    found[row.id] = row_to_record(row, document_row, boxes)
    return found
