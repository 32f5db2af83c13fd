"""Where things are on the page: element boxes, table row bands, and the fragments of each chunk.

Everything here is pure and in PDF points with the origin at the top-left (the `Element.bbox`
convention); the renderer and the report scale to pixels or percentages themselves.

The database stores one box per element (one per page part for a table continued across pages),
not per line or per table row. So two things are estimated, and drawn as estimates:

- a chunk that starts or ends inside a paragraph covers the share of the paragraph's height
  that its share of the paragraph's characters gives (text flows top to bottom);
- a table's rows are taken as equally tall, laid over its page parts in order, and its columns
  as equally wide. Good enough to see which rows a table piece holds; not a cell extractor.
"""

from __future__ import annotations

from typing import NamedTuple

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import BBox, Document, Element, ElementType


class Fragment(NamedTuple):
    """One box on one page (1-based), in PDF points, top-left origin."""

    page: int
    rect: BBox


def page_spec_to_numbers(spec: str | None, page_count: int) -> list[int]:
    """'1,3-5' -> [1, 3, 4, 5] (sorted, unique); None or '' = every page. Raises ValueError naming
    the first bad part, so the caller can turn it into a usage error."""
    if not spec or not spec.strip():
        return list(range(1, page_count + 1))
    numbers: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        first, dash, last = part.partition("-")
        try:
            start, stop = int(first), int(last) if dash else int(first)
        except ValueError:
            raise ValueError(f"{part!r} is not a page number or range such as 3-5") from None
        if start > stop:
            raise ValueError(f"range {part!r} runs backwards")
        if start < 1 or stop > page_count:
            bad = start if start < 1 else stop
            raise ValueError(f"page {bad} is out of range: the document has {page_count} page(s)")
        numbers.update(range(start, stop + 1))
    return sorted(numbers)


def element_to_parts(element: Element) -> list[Fragment]:
    """The element's box on each page it covers: a table continued across pages keeps one box per
    page in `data['parts']`; every other element has its one `bbox`."""
    parts = element.data.get("parts") if element.type is ElementType.table else None
    if parts:
        return [Fragment(int(part["page"]), tuple(float(v) for v in part["bbox"])) for part in parts]
    return [Fragment(element.page, element.bbox)]


def table_to_row_bands(element: Element) -> list[Fragment]:
    """One band per table row (header rows first), rows equally tall over the table's page parts."""
    rows = len(element.rows or [])
    parts = element_to_parts(element)
    if rows == 0:
        return []
    heights = [max(part.rect[3] - part.rect[1], 0.0) for part in parts]
    row_height = sum(heights) / rows
    bands = []
    for row in range(rows):
        middle = (row + 0.5) * row_height
        offset = 0.0
        for part, height in zip(parts, heights):
            if middle <= offset + height or part is parts[-1]:
                x0, top, x1, bottom = part.rect
                start = top + max(row * row_height - offset, 0.0)
                stop = min(top + (row + 1) * row_height - offset, bottom)
                bands.append(Fragment(part.page, (x0, start, x1, max(stop, start))))
                break
            offset += height
    return bands


def table_to_column_edges(element: Element) -> list[float]:
    """The x positions of the inner column lines, columns taken as equally wide."""
    columns = max((len(row) for row in element.rows or []), default=0)
    x0, _, x1, _ = element.bbox
    return [x0 + (x1 - x0) * column / columns for column in range(1, columns)]


def _text_share(element: Element, span: tuple[int, int], chunk: Chunk) -> Fragment | None:
    """The part of a text element's box that the chunk's characters cover (see the module note)."""
    start, stop = span
    length = max(stop - start, 1)
    first = min(max((chunk.char_start - start) / length, 0.0), 1.0)
    last = min(max((chunk.char_end - start) / length, 0.0), 1.0)
    x0, top, x1, bottom = element.bbox
    if last <= first:  # a repeated caption or lead-in outside the chunk's range: the whole element
        return Fragment(element.page, element.bbox)
    height = bottom - top
    return Fragment(element.page, (x0, top + first * height, x1, top + last * height))


def chunk_to_fragments(chunk: Chunk, document: Document, spans: list[tuple[int, int] | None]) -> list[Fragment]:
    """The boxes a chunk covers, in reading order: table rows for a table piece, the covered share
    of each text element, whole boxes for whole tables and furniture. `spans` is
    `document.body_spans()` (passed in so a document's spans are computed once)."""
    fragments: list[Fragment] = []
    rows: list[Fragment] = []  # a table piece's rows lead, so its label sits over them, not its caption
    piece_table = chunk.metadata.get("table_element")
    piece_rows = chunk.metadata.get("table_rows")
    for index in chunk.element_indexes:
        if not 0 <= index < len(document.elements):
            continue
        element = document.elements[index]
        if element.type is ElementType.table:
            if index == piece_table and piece_rows is not None:
                bands = table_to_row_bands(element)
                body = bands[element.header_rows :]
                rows.extend(body[row] for row in piece_rows if 0 <= row < len(body))
            else:
                fragments.extend(element_to_parts(element))
        elif spans[index] is not None:
            share = _text_share(element, spans[index], chunk)
            if share is not None:
                fragments.append(share)
        else:
            fragments.append(Fragment(element.page, element.bbox))
    return rows + fragments


#: Fragments closer than this (points) on the same page merge into one box: a table piece's rows,
#: a paragraph and the list under it. Body text line gaps are well under it, section gaps over.
MERGE_GAP = 12.0


def fragments_to_outlines(fragments: list[Fragment]) -> list[Fragment]:
    """Consecutive fragments on one page that touch vertically (within MERGE_GAP) as one union box."""
    merged: list[Fragment] = []
    for fragment in fragments:
        if merged and merged[-1].page == fragment.page:
            x0, top, x1, bottom = merged[-1].rect
            if -MERGE_GAP <= fragment.rect[1] - bottom <= MERGE_GAP:
                f0, ftop, f1, fbottom = fragment.rect
                rect = (min(x0, f0), min(top, ftop), max(x1, f1), max(bottom, fbottom))
                merged[-1] = Fragment(fragment.page, rect)
                continue
        merged.append(fragment)
    return merged


def document_to_chunk_fragments(document: Document, chunks: list[Chunk]) -> dict[int, list[Fragment]]:
    """Chunk index -> its outline boxes, for the child chunks (the retrieval units) only."""
    spans = document.body_spans()
    return {
        chunk.index: fragments_to_outlines(chunk_to_fragments(chunk, document, spans))
        for chunk in chunks
        if chunk.kind == "child"
    }
