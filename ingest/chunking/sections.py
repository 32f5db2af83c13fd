"""Elements to sections to blocks: the structure the chunker never cuts across.

A section is a heading and the body elements up to the next heading (of any level:
a sub-heading opens a sub-section with a longer heading path). Its heading path is
built from a level -> heading map, dropping deeper levels when a heading appears
(docling-core's hierarchical chunker). The document title comes first when the
document has a line naming it (`chunking.document_line`), unless the first heading repeats it.

Within a section the body is a sequence of blocks:
- `ProseBlock`: one paragraph (or caption, unknown element) element;
- `FigureBlock`: a figure element (its labels) with its caption element: one unit, never
  packed with the prose around it;
- `ListBlock`: consecutive list items, with the paragraph just before them as lead-in
  when it ends with ":";
- `TableBlock`: one table element with rows, with its caption (the element's own
  `caption`, else a caption element right before or after it, else a lead-in paragraph
  of at most `TABLE_LEAD_IN_MAX_WORDS` words ending with ":" right before it); an
  adjacent caption element (with the same text, when the table has its own caption) or
  lead-in is absorbed, so it is not also chunked as prose, and it is repeated in every
  piece of the table. A table with none of these takes the last sentence of the paragraph
  right before it as its caption when that sentence points at it ("The following table sets
  forth net sales by segment."; `ChunkSettings.table_intro_words`); the paragraph stays prose.
Furniture (headers, footers, page numbers) and empty elements belong to no block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingest.chunking.document_line import document_line
from ingest.chunking.prose import sentence_boundaries
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.elements import Document, Element, ElementType

Span = tuple[int, int]
DEFAULT_CHUNK_SETTINGS = ChunkSettings()

#: A lead-in paragraph becomes a table's caption (repeated in every piece) only up to this
#: many words; a longer paragraph ending with ":" stays prose, or it would be copied into
#: every piece of a long table.
TABLE_LEAD_IN_MAX_WORDS = 30


#: Elements kept with empty text: a table (its rows), a figure (its caption, in `caption`).
_MAY_BE_EMPTY = (ElementType.table, ElementType.figure)


@dataclass
class ProseBlock:
    start: int
    end: int
    elements: list[int]


@dataclass
class FigureBlock(ProseBlock):
    """A figure element with its caption element (`elements`, in reading order): one unit,
    never packed with the prose around it (the caption and the figure's labels belong
    together and to nothing else)."""


@dataclass
class ListBlock:
    start: int
    end: int
    elements: list[int]
    items: list[Span]
    item_levels: list[int]
    lead_in: Span | None = None
    lead_in_text: str | None = None


@dataclass
class TableBlock:
    element: int
    start: int
    end: int
    elements: list[int]
    header: list[str]
    rows: list[list[str]]
    row_spans: list[Span] | None
    caption: str | None
    page: int
    page_end: int


Block = ProseBlock | ListBlock | TableBlock


@dataclass
class Section:
    """A heading's own body (up to the next heading of any level) with its heading path.

    `heading` is the block of the title element that opened the section (None for the
    body before the first heading); it is not part of `blocks`, since the heading is in
    the path, until sections are merged (`merge.merge_small_sections`) and a sub-heading
    becomes a line of its parent's body.
    """

    index: int
    heading_path: list[str]
    blocks: list[Block] = field(default_factory=list)
    heading: ProseBlock | None = None
    #: the path holds bodiless headings carried from before it (`chunking.carry`): the section
    #: heads its own subtree and is nobody's sub-section, whatever its path's prefix reads
    carried: bool = False

    @property
    def element_indexes(self) -> set[int]:
        return {index for block in self.blocks for index in block.elements}


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def document_to_sections(
    document: Document, keep_empty: bool = False, settings: ChunkSettings = DEFAULT_CHUNK_SETTINGS
) -> list[Section]:
    """Group the body elements into sections in reading order.

    Every path starts with the document line (`chunking.document_line`: the title, or what the
    metadata names when the title is boilerplate or absent), unless the first heading repeats it.
    Sections without a body (a heading directly followed by a sub-heading) are dropped
    unless `keep_empty`: merging needs them, since their heading joins the merged body.
    """
    spans = document.body_spans()
    title = document_line(document, settings) or ""
    headings: dict[int, str] = {}
    sections: list[Section] = []
    pending: list[int] = []
    heading: ProseBlock | None = None

    def close() -> None:
        path = [headings[level] for level in sorted(headings)]
        if title and not (path and _same(path[0], title)):
            path = [title] + path
        blocks = elements_to_blocks(document, spans, pending, settings) if pending else []
        if blocks or (keep_empty and heading is not None):
            sections.append(Section(index=len(sections), heading_path=path, blocks=blocks, heading=heading))
        pending.clear()

    for index, element in enumerate(document.elements):
        if spans[index] is None or not element.text.strip() and element.type not in _MAY_BE_EMPTY:
            continue
        if element.type is ElementType.title:
            close()
            level = element.heading_level or 1
            headings = {lvl: text for lvl, text in headings.items() if lvl < level}
            headings[level] = " ".join(element.text.split())
            heading = ProseBlock(start=spans[index][0], end=spans[index][1], elements=[index])
            continue
        pending.append(index)
    close()
    return sections


def elements_to_blocks(
    document: Document,
    spans: list[Span | None],
    indexes: list[int],
    settings: ChunkSettings = DEFAULT_CHUNK_SETTINGS,
) -> list[Block]:
    """Turn one section's body element indexes into prose, list and table blocks."""
    elements = document.elements
    blocks: list[Block] = []
    absorbed: set[int] = set()
    position = 0
    while position < len(indexes):
        index = indexes[position]
        element = elements[index]
        if index in absorbed:
            position += 1
            continue
        if element.type is ElementType.table and element.rows:
            before = indexes[position - 1] if position > 0 else None
            after = indexes[position + 1] if position + 1 < len(indexes) else None
            caption_index = None

            def is_caption(i: int | None) -> bool:
                return (
                    i is not None
                    and elements[i].type is ElementType.caption
                    and (not element.caption or _same(elements[i].text, element.caption))  # noqa: B023 - called at once, in this iteration
                )

            just_before = blocks and isinstance(blocks[-1], ProseBlock) and blocks[-1].elements == [before]
            if is_caption(before) and just_before:
                caption_index = before
                blocks.pop()
            elif is_caption(after):
                caption_index = after
                absorbed.add(after)
            elif (
                not element.caption
                and just_before
                and _is_lead_in(elements[before])
                and len(elements[before].text.split()) <= TABLE_LEAD_IN_MAX_WORDS
            ):
                caption_index = before  # "Doses for sucking pests:" introduces the table like a caption
                blocks.pop()
            intro = None
            if caption_index is None and not element.caption and just_before:
                intro = introducing_sentence(elements[before], settings)
            blocks.append(_table_block(elements, spans, index, caption_index, intro))
            position += 1
            continue
        if element.type is ElementType.figure:
            blocks.append(_figure_block(elements, spans, indexes, position, blocks, absorbed))
            position += 1
            continue
        if element.type is ElementType.list_item:
            end = position
            while end < len(indexes) and elements[indexes[end]].type is ElementType.list_item:
                end += 1
            item_indexes = indexes[position:end]
            lead = None
            if blocks and isinstance(blocks[-1], ProseBlock) and len(blocks[-1].elements) == 1:
                candidate = blocks[-1].elements[0]
                if _is_lead_in(elements[candidate]):
                    lead = candidate
                    blocks.pop()
            blocks.append(_list_block(elements, spans, item_indexes, lead))
            position = end
            continue
        span = spans[index]
        blocks.append(ProseBlock(start=span[0], end=span[1], elements=[index]))
        position += 1
    return blocks


def _figure_block(
    elements: list[Element], spans, indexes: list[int], position: int, blocks: list, absorbed: set[int]
) -> FigureBlock:
    """The figure at `indexes[position]` with the caption element right before it (taken
    back from `blocks`) or right after it (added to `absorbed`)."""
    index = indexes[position]
    before = indexes[position - 1] if position > 0 else None
    after = indexes[position + 1] if position + 1 < len(indexes) else None
    members = [index]
    if (
        before is not None
        and elements[before].type is ElementType.caption
        and blocks
        and blocks[-1].elements == [before]
    ):
        blocks.pop()
        members.insert(0, before)
    elif after is not None and elements[after].type is ElementType.caption:
        absorbed.add(after)
        members.append(after)
    filled = [spans[i] for i in members if spans[i][1] > spans[i][0]] or [spans[index]]
    return FigureBlock(start=filled[0][0], end=filled[-1][1], elements=members)


def _is_lead_in(element: Element) -> bool:
    """A paragraph ending with ":" announces what follows (a list or a table) and travels with it."""
    return element.type is ElementType.paragraph and element.text.rstrip().endswith(":")


def _list_block(elements: list[Element], spans, item_indexes: list[int], lead: int | None) -> ListBlock:
    items = [spans[i] for i in item_indexes]
    levels = [elements[i].list_level or 0 for i in item_indexes]
    lead_span = spans[lead] if lead is not None else None
    start = lead_span[0] if lead_span else items[0][0]
    return ListBlock(
        start=start,
        end=items[-1][1],
        elements=([lead] if lead is not None else []) + item_indexes,
        items=items,
        item_levels=levels,
        lead_in=lead_span,
        lead_in_text=" ".join(elements[lead].text.split()) if lead is not None else None,
    )


def introducing_sentence(element: Element, settings: ChunkSettings) -> str | None:
    """The last sentence of the paragraph `element` when it points at the table after it (holds one
    of `settings.table_intro_words`, at most TABLE_LEAD_IN_MAX_WORDS words), else None."""
    if element.type is not ElementType.paragraph:
        return None
    text = element.text.strip()
    ends = sentence_boundaries(text, 0, len(text))
    sentence = " ".join(text[ends[-1] if ends else 0 :].split())
    words = sentence.casefold().replace(",", " ").replace(".", " ").split()
    if not words or len(words) > TABLE_LEAD_IN_MAX_WORDS or not settings.table_intro_words & set(words):
        return None
    return sentence


def _table_block(
    elements: list[Element], spans, index: int, caption_index: int | None, intro: str | None = None
) -> TableBlock:
    element = elements[index]
    rows = [[" ".join(cell.split()) if cell else "" for cell in row] for row in element.rows or []]
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    header_count = element.header_rows if element.header_rows < len(rows) else 0
    header = _merge_header(rows[:header_count]) if header_count else []
    span = spans[index]
    caption = element.caption or (elements[caption_index].text if caption_index is not None else intro)
    block_elements = sorted([index] + ([caption_index] if caption_index is not None else []))
    return TableBlock(
        element=index,
        start=span[0],
        end=span[1],
        elements=block_elements,
        header=header,
        rows=rows[header_count:],
        row_spans=_row_spans(element, span, header_count),
        caption=" ".join(caption.split()) if caption else None,
        page=element.page,
        page_end=element.last_page,
    )


def _merge_header(header_rows: list[list[str]]) -> list[str]:
    """Several header rows become one: per column, the distinct non-empty cells top-down joined by ' / '."""
    merged = []
    for column in zip(*header_rows):
        parts: list[str] = []
        for cell in column:
            if cell and cell not in parts:
                parts.append(cell)
        merged.append(" / ".join(parts))
    return merged


def _row_spans(element: Element, span: Span, header_count: int) -> list[Span] | None:
    """Canonical spans of the data rows when `Element.text` is the standard one-line-a-row form."""
    lines = element.text.split("\n")
    if len(lines) != len(element.rows or []):
        return None
    spans, position = [], span[0]
    for line in lines:
        spans.append((position, position + len(line)))
        position += len(line) + 1
    return spans[header_count:]
