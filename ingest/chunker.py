"""chunk_document: elements in, chunks out. Pure: no files, no database.

FIRST VERSION (walking skeleton): one child chunk per body element under its heading path.
Issue 5 replaces the inside; the signature is the contract.
"""

from __future__ import annotations

from parsers.models import Document, ElementType
from ingest.models import HEADING_PATH_SEPARATOR, Chunk, ChunkSettings
from ingest.tokens import TokenCounter, tiktoken_counter


def chunk_document(document: Document, settings: ChunkSettings | dict | None = None,
                   counter: TokenCounter | None = None) -> list[Chunk]:
    settings = ChunkSettings.resolve(settings)
    counter = counter or tiktoken_counter(settings.encoding)
    chunks: list[Chunk] = []
    headings: dict[int, str] = {}
    for index, (element, span) in enumerate(zip(document.elements, document.body_spans())):
        if span is None:
            continue
        if element.type is ElementType.title:
            level = element.heading_level or 1
            headings = {lvl: text for lvl, text in headings.items() if lvl < level}
            headings[level] = element.text
            continue
        path = [headings[level] for level in sorted(headings)]
        text = HEADING_PATH_SEPARATOR.join(path) + "\n\n" + element.text if path else element.text
        chunks.append(Chunk(index=len(chunks), text=text, body=element.text, heading_path=path,
                            page_start=element.page, page_end=element.last_page, char_start=span[0],
                            char_end=span[1], token_count=counter.count(text),
                            element_types=[element.type.value], element_indexes=[index]))
    return chunks
