"""chunk_document: elements in, chunks out. Pure: no files, no database.

The default `structure` strategy (the README's "Chunking" section states the full contract):

    document -> sections (heading paths) -> blocks (prose, lists, tables)
             -> small sections merged with their sub-sections (one child each)
             -> parent drafts (a section, split when over parent_max_tokens)
             -> child drafts inside each parent (at most child_max_tokens)
             -> Chunk list

Output order: each parent followed by its children, sections in reading order;
`index` is the position in the list and a child's `parent` is its parent's index.
A parent that would equal its only child (a section that fits in one child, tables
whole) is not emitted: the chunk is one `child` with `parent` None, which stands for
itself wherever parents are expanded (`ingest eval`, `ingest search --parents`). Two
identical rows would double every full-text hit.
Every chunk's `text` is its heading path joined by " / " (document title first), a
blank line, then `body`. Token counts are exact counts of `text` with the counter.

`fixed` and `recursive` are the structure-blind baselines (children only).
`contextual` is `structure` with a context line after each child's heading path
(`ingest.chunking.context`: title, table caption, the section's first sentence).
`semantic` is `structure` whose children also start at topic shifts between prose sentences
(`chunking.semantic`; it needs `embed_texts`). `late` chunks exactly like `structure`: late
chunking changes how the chunks are embedded (`ingest.integrations.late`), not where they end.
"""

from __future__ import annotations

from ingest.chunking.blind import fixed_chunks, langchain_chunks, naive_chunks, recursive_chunks
from ingest.chunking.context import chunks_to_contextual
from ingest.chunking.document_line import DOCUMENT_LINE_KEY, document_line
from ingest.chunking.merge import sections_to_chunk
from ingest.chunking.packing import Context
from ingest.chunking.parents import section_to_drafts
from ingest.chunking.render import ElementIndex, draft_to_chunk, measure_overlaps
from ingest.chunking.sections import document_to_sections
from ingest.chunking.semantic import EmbedTexts, semantic_breaks
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document
from ingest.contracts.errors import ConfigError
from ingest.tokens import TokenCounter, tiktoken_counter


def chunk_document(
    document: Document,
    settings: ChunkSettings | dict | None = None,
    counter: TokenCounter | None = None,
    embed_texts: EmbedTexts | None = None,
) -> list[Chunk]:
    """Split a parsed document into chunks with the strategy named in `settings.strategy`.

    `embed_texts` (texts -> vectors) is used by the `semantic` strategy only, which needs it."""
    settings = ChunkSettings.resolve(settings)
    counter = counter or tiktoken_counter(settings.encoding)
    context = Context(document.canonical_text(), counter)
    if settings.strategy == "fixed":
        return fixed_chunks(document, context, settings)
    if settings.strategy == "recursive":
        return recursive_chunks(document, context, settings)
    if settings.strategy == "naive":
        return naive_chunks(document, context, settings)
    if settings.strategy == "langchain":
        return langchain_chunks(document, context, settings)
    if settings.strategy == "contextual":
        return chunks_to_contextual(document, structure_chunks(document, context, settings), settings, counter)
    if settings.strategy == "semantic":
        if embed_texts is None:
            raise ConfigError("the semantic strategy needs an embedding function (embed_texts)", stage="chunk")
        sections = document_to_sections(document, settings=settings)
        breaks = semantic_breaks(sections, context, embed_texts, settings.semantic_percentile, settings.min_tokens)
        context = Context(context.text, counter, breaks)
    return structure_chunks(document, context, settings)


def structure_chunks(document: Document, context: Context, settings: ChunkSettings) -> list[Chunk]:
    elements = ElementIndex(document)
    chunks: list[Chunk] = []
    line = document_line(document, settings)
    for section in sections_to_chunk(document, context, settings):
        section.heading_path, cut = _fit_path(section.heading_path, context, settings)
        meta = {"section": section.index, **({"heading_path_truncated": True} if cut else {})}
        if line and section.heading_path[:1] == [line]:
            meta[DOCUMENT_LINE_KEY] = line
        for parent, children in section_to_drafts(section, context, settings):
            if len(children) == 1 and children[0] is parent:  # the section is one child: no twin parent
                chunks.append(
                    draft_to_chunk(
                        parent,
                        len(chunks),
                        "child",
                        None,
                        elements,
                        settings.child_max_tokens,
                        settings.embedding_limit,
                        meta,
                    )
                )
                continue
            parent_index = len(chunks)
            chunks.append(
                draft_to_chunk(
                    parent,
                    parent_index,
                    "parent",
                    None,
                    elements,
                    settings.parent_max_tokens,
                    settings.embedding_limit,
                    meta,
                )
            )
            for child in children:
                chunks.append(
                    draft_to_chunk(
                        child,
                        len(chunks),
                        "child",
                        parent_index,
                        elements,
                        settings.child_max_tokens,
                        settings.embedding_limit,
                        meta,
                    )
                )
    measure_overlaps(chunks, context)
    return chunks


def _fit_path(path: list[str], context: Context, settings: ChunkSettings) -> tuple[list[str], bool]:
    """A heading path may take at most half the child limit; a longer one (usually a parser
    mistake: a paragraph taken for a heading) loses its outermost entries first, then its
    last entry is cut at a word and ends with "…". Returns the path and whether it was cut."""
    limit = settings.child_max_tokens // 2
    if context.path_cost(path) <= limit:
        return path, False
    path = list(path)
    while len(path) > 1 and context.path_cost(path) > limit:
        path.pop(0)
    if context.path_cost(path) > limit:
        words = path[0].split()
        while words and context.path_cost([" ".join(words) + " …"]) > limit:
            words.pop()
        path = [" ".join(words) + " …"] if words else []
    return path, True
