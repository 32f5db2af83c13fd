"""Drafts to `Chunk`s: offsets, pages, element indexes, types and the metadata flags.

Metadata keys (all optional, documented in the README (Chunking)):
- `section`: index of the section the chunk belongs to (structure strategy);
- `document_line`: the line naming the document when it heads the chunk's heading path
  (`chunking.document_line`; the full-text index searches it as the chunk's title);
- `overlap_tokens`: tokens this child shares with the previous child of the same run
  (measured on the canonical text: `canonical[char_start:previous.char_end]`);
- `lead_in`: the list lead-in repeated as the last heading-path entry of a chunk that
  starts inside a list after its lead-in;
- `table_element`, `table_rows`, `table_columns`, `overlap_rows`: which table, which data
  rows (indexes into the table's data rows, header excluded) and columns a table piece
  holds, and how many of its leading rows repeat the previous piece;
- `table_elements`: the tables (element indexes) of a child that holds a whole short
  section, tables and prose together (its body is its parent's body);
- `oversize`: the chunk is over its size limit because a table header plus one row
  label leaves no room to split further;
- `over_embedding_limit`: `token_count` exceeds `settings.embedding_limit`;
- `heading_path_truncated`: the section's heading path took over half the child limit
  and was shortened (outermost headings dropped, then the last one cut at a word).
"""

from __future__ import annotations

from bisect import bisect_right

from ingest.chunking.packing import Context, Draft, TableUnit
from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document


class ElementIndex:
    """Finds the body elements under a canonical span."""

    def __init__(self, document: Document):
        self.elements = document.elements
        self.entries = [
            (span[0], span[1], index)
            for index, span in enumerate(document.body_spans())
            if span is not None and span[1] > span[0]
        ]
        self.starts = [entry[0] for entry in self.entries]

    def under(self, start: int, end: int) -> list[int]:
        found = []
        position = max(0, bisect_right(self.starts, start) - 1)
        while position < len(self.entries) and self.entries[position][0] < end:
            entry_start, entry_end, index = self.entries[position]
            if entry_end > start:
                found.append(index)
            position += 1
        return found


def draft_to_chunk(
    draft: Draft,
    index: int,
    kind: str,
    parent: int | None,
    elements: ElementIndex,
    limit: int,
    embedding_limit: int,
    metadata: dict,
) -> Chunk:
    indexes: set[int] = set()
    starts, ends = [], []
    metadata = dict(metadata)
    parts = draft.parts()
    tables = [part for part in parts if isinstance(part, TableUnit)]
    if kind == "child" and tables:
        if len(parts) == 1:
            metadata.update(_table_metadata(tables[0]))
        else:
            metadata["table_elements"] = [part.block.element for part in tables]
    for part in parts:
        if isinstance(part, TableUnit):
            indexes.update(part.block.elements)
            start, end = part.span
        else:
            start, end = part.start, part.end
            indexes.update(elements.under(start, end))
        starts.append(start)
        ends.append(end)
    ordered = sorted(indexes)
    pages = [elements.elements[i].page for i in ordered] + [elements.elements[i].last_page for i in ordered]
    if draft.lead_in:
        metadata["lead_in"] = draft.lead_in
    if draft.tokens > limit:
        metadata["oversize"] = True
    if draft.tokens > embedding_limit:
        metadata["over_embedding_limit"] = True
    types: list[str] = []
    for i in ordered:
        value = elements.elements[i].type.value
        if value not in types:
            types.append(value)
    return Chunk(
        kind=kind,
        index=index,
        parent=parent,
        text=draft.text,
        body=draft.body,
        heading_path=list(draft.heading_path),
        page_start=min(pages, default=1),
        page_end=max(pages, default=1),
        char_start=min(starts),
        char_end=max(ends),
        token_count=draft.tokens,
        element_types=types,
        element_indexes=ordered,
        metadata=metadata,
    )


def _table_metadata(unit: TableUnit) -> dict:
    piece = unit.piece
    data = {"table_element": unit.block.element, "table_rows": list(piece.rows)}
    if piece.columns is not None:
        data["table_columns"] = list(piece.columns)
    if piece.overlap_rows:
        data["overlap_rows"] = piece.overlap_rows
    if piece.oversize:
        data["oversize"] = True
    return data


def measure_overlaps(chunks: list[Chunk], context: Context) -> None:
    """Set `overlap_tokens` on each flowing child: what it shares with the previous child of its section."""
    previous: Chunk | None = None
    for chunk in chunks:
        if chunk.kind != "child" or "table_element" in chunk.metadata:
            continue
        shared = 0
        if (
            previous is not None
            and previous.metadata.get("section") == chunk.metadata.get("section")
            and previous.char_end > chunk.char_start >= previous.char_start
        ):
            shared = context.count_span(chunk.char_start, previous.char_end)
        chunk.metadata["overlap_tokens"] = shared
        previous = chunk
