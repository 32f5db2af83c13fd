"""Pure conversions between the pipeline's pydantic models and table rows (as dicts for bulk inserts).

`element_to_row` / `row_to_element` round-trip an Element exactly: fields without a
column travel in `elements.data`. `chunk_to_row` flattens a Chunk; `row_to_chunk` rebuilds it
with `parent` as the parent's position in the stored order.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from ingest.contracts.chunks import HEADING_PATH_SEPARATOR, Chunk
from ingest.contracts.elements import Element, ElementType, PageInfo, TextSource
from storage.schema import ChunkRow, ElementRow, PageRow

#: Element fields kept in `elements.data` (everything without its own column).
_ELEMENT_DATA_FIELDS = ("list_level", "source", "confidence", "rows", "header_rows", "page_end", "caption")


def page_to_row(document_id: str, page: PageInfo) -> dict[str, Any]:
    return {
        "document_id": document_id,
        "page_no": page.page_no,
        "width": page.width,
        "height": page.height,
        "text_source": page.text_source.value,
        "ocr_confidence": page.ocr_confidence,
        "ocr_reason": page.ocr_reason,
        "error": page.error,
        "text_chars": page.text_chars,
        "element_chars": page.element_chars,
        "lost_chars": page.lost_chars,
        "dropped": [d.model_dump(mode="json") for d in page.dropped],
    }


def row_to_page(row: PageRow) -> PageInfo:
    return PageInfo(
        page_no=row.page_no,
        width=row.width,
        height=row.height,
        text_source=TextSource(row.text_source),
        ocr_confidence=row.ocr_confidence,
        ocr_reason=row.ocr_reason,
        error=row.error,
        text_chars=row.text_chars,
        element_chars=row.element_chars,
        lost_chars=row.lost_chars,
        dropped=list(row.dropped or []),
    )


def element_to_row(document_id: str, seq: int, element: Element) -> dict[str, Any]:
    dumped = element.model_dump(mode="json")
    data = {
        name: dumped[name]
        for name in _ELEMENT_DATA_FIELDS
        if getattr(element, name) != Element.model_fields[name].default
    }
    if element.data:
        data["extra"] = dumped["data"]
    x0, top, x1, bottom = element.bbox
    return {
        "document_id": document_id,
        "seq": seq,
        "page_no": element.page,
        "type": element.type.value,
        "heading_level": element.heading_level,
        "text": element.text,
        "x0": x0,
        "top": top,
        "x1": x1,
        "bottom": bottom,
        "data": data,
    }


def row_to_element(row: ElementRow) -> Element:
    data = dict(row.data or {})
    extra = data.pop("extra", {})
    return Element(
        type=ElementType(row.type),
        text=row.text,
        page=row.page_no,
        bbox=(row.x0, row.top, row.x1, row.bottom),
        heading_level=row.heading_level,
        data=extra,
        **data,
    )


def chunk_to_row(document_id: str, chunk: Chunk, metadata: dict[str, Any]) -> dict[str, Any]:
    """`metadata` is the document metadata merged with the chunk's own (the chunk's keys win).
    The `over_embedding_limit` column is the chunker's flag (`chunk.metadata["over_embedding_limit"]`,
    set against `ChunkSettings.embedding_limit`), not decided again here."""
    over = bool(chunk.metadata.get("over_embedding_limit"))
    return {
        "document_id": document_id,
        "kind": chunk.kind,
        "seq": chunk.index,
        "text": chunk.text,
        "body": chunk.body,
        "heading_path": HEADING_PATH_SEPARATOR.join(chunk.heading_path),
        "heading_path_json": list(chunk.heading_path),
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "char_start": chunk.char_start,
        "char_end": chunk.char_end,
        "token_count": chunk.token_count,
        "over_embedding_limit": over,
        "element_types": list(chunk.element_types),
        "element_seqs": list(chunk.element_indexes),
        "language": chunk.language,
        "metadata_": metadata,
    }


def row_to_chunk(row: ChunkRow, index: int, parent_index: int | None) -> Chunk:
    return Chunk(
        kind=cast(Literal["parent", "child"], row.kind),
        index=index,
        parent=parent_index,
        text=row.text,
        body=row.body,
        heading_path=list(row.heading_path_json or []),
        page_start=row.page_start,
        page_end=row.page_end,
        char_start=row.char_start,
        char_end=row.char_end,
        token_count=row.token_count,
        element_types=list(row.element_types or []),
        element_indexes=list(row.element_seqs or []),
        language=row.language,
        metadata=dict(row.metadata_ or {}),
    )
