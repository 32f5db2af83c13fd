"""The structure-blind baselines, selectable by name for measurement: `fixed`, `recursive`, and
the peers teams use today, `naive` and `langchain`.

Both cut the canonical text alone: no sections, no heading path (`text == body`),
no tables or lists, no parents (every chunk is a child with `parent` None), and
`canonical[char_start:char_end] == body` for every chunk.

- `fixed`: windows of `child_max_tokens` tokens, each starting `overlap_tokens` tokens
  before the previous one ends, cut at token boundaries (so inside words and sentences).
- `recursive`: separator hierarchy blank line, line, sentence end, whitespace, then
  characters (like LangChain's RecursiveCharacterTextSplitter, plus sentence ends),
  neighbours merged up to the limit with the configured overlap.
- `naive`: consecutive windows of NAIVE_CHARS characters, no overlap, cut wherever the count
  falls (inside words): the simplest splitter a team writes itself.
- `langchain`: LangChain's `RecursiveCharacterTextSplitter` with its documented example sizes
  (LANGCHAIN_CHUNK_CHARS characters, LANGCHAIN_OVERLAP_CHARS overlap; separators blank line, line,
  space, character), the splitter most RAG tutorials load. Needs the optional package
  langchain-text-splitters (a dev dependency), imported only when this strategy runs.

The peers' sizes are module constants, not ChunkSettings fields: they define what the peer is
(the setting a team copies from the tutorial), so `--set child_max_tokens=...` leaves them alone.
"""

from __future__ import annotations

from ingest.chunking.packing import Context, Draft, FlowUnit, Packer
from ingest.chunking.prose import split_span, word_starts
from ingest.chunking.render import ElementIndex, draft_to_chunk, measure_overlaps
from ingest.chunking.sections import Section
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document
from ingest.contracts.errors import ConfigError

#: `naive`: characters per window (about 500 tokens of English prose), no overlap.
NAIVE_CHARS = 2000
#: `langchain`: RecursiveCharacterTextSplitter's chunk_size and chunk_overlap, in characters
#: (LangChain's documented example values, about 250 and 50 tokens of English prose).
LANGCHAIN_CHUNK_CHARS = 1000
LANGCHAIN_OVERLAP_CHARS = 200


def fixed_chunks(document: Document, context: Context, settings: ChunkSettings) -> list[Chunk]:
    text = context.text
    offsets_of = getattr(context.counter, "token_offsets", None)
    offsets = offsets_of(text) if offsets_of else word_starts(text, 0, len(text))
    size = settings.child_max_tokens
    drafts: list[Draft] = []
    first = 0
    while first < len(offsets):
        last = min(first + size, len(offsets))
        while True:
            end = offsets[last] if last < len(offsets) else len(text)
            tokens = context.count(text[offsets[first] : end])
            if tokens <= size or last - first <= 1:
                break
            last -= 1
        drafts.append(
            Draft(
                units=[FlowUnit(offsets[first], end, tokens, 0)],
                heading_path=[],
                body=text[offsets[first] : end],
                text=text[offsets[first] : end],
                tokens=tokens,
            )
        )
        if last >= len(offsets):
            break
        first = max(first + 1, last - settings.overlap_tokens)
    return _to_chunks(document, drafts, context, settings)


def recursive_chunks(document: Document, context: Context, settings: ChunkSettings) -> list[Chunk]:
    text = context.text
    budget = max(1, settings.child_max_tokens - settings.overlap_tokens)
    units = [
        FlowUnit(s, e, t, 0, fresh) for s, e, t, fresh in split_span(text, (0, len(text)), budget, context.count_span)
    ]
    section = Section(index=0, heading_path=[])
    drafts = Packer(
        context,
        section,
        settings.child_max_tokens,
        settings.overlap_tokens,
        mix_tables=False,
        min_tokens=settings.min_tokens,
    ).pack(units)
    return _to_chunks(document, drafts, context, settings)


def text_to_naive_spans(text: str, size: int = NAIVE_CHARS) -> list[tuple[int, int]]:
    """(start, end) character offsets of consecutive `size`-character windows covering `text`;
    windows of whitespace only are left out (nothing to retrieve)."""
    spans = [(start, min(start + size, len(text))) for start in range(0, len(text), size)]
    return [(start, end) for start, end in spans if text[start:end].strip()]


def text_to_langchain_spans(
    text: str, size: int = LANGCHAIN_CHUNK_CHARS, overlap: int = LANGCHAIN_OVERLAP_CHARS
) -> list[tuple[int, int]]:
    """(start, end) offsets of the pieces LangChain's RecursiveCharacterTextSplitter cuts from `text`
    (its own `add_start_index` locates each piece); ConfigError when the package is missing."""
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError as error:
        raise ConfigError(
            "strategy 'langchain' needs the langchain-text-splitters package "
            "(a dev dependency: pip install langchain-text-splitters)",
            stage="chunk",
        ) from error
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, add_start_index=True)
    spans = []
    for piece in splitter.create_documents([text]):
        start = piece.metadata["start_index"]
        if start < 0:  # not found again in the text (never for this splitter; kept safe)
            continue
        spans.append((start, start + len(piece.page_content)))
    return spans


def naive_chunks(document: Document, context: Context, settings: ChunkSettings) -> list[Chunk]:
    return _spans_to_chunks(document, text_to_naive_spans(context.text), context, settings)


def langchain_chunks(document: Document, context: Context, settings: ChunkSettings) -> list[Chunk]:
    return _spans_to_chunks(document, text_to_langchain_spans(context.text), context, settings)


def _spans_to_chunks(
    document: Document, spans: list[tuple[int, int]], context: Context, settings: ChunkSettings
) -> list[Chunk]:
    text = context.text
    drafts = []
    for start, end in spans:
        tokens = context.count(text[start:end])
        drafts.append(
            Draft(
                units=[FlowUnit(start, end, tokens, 0)],
                heading_path=[],
                body=text[start:end],
                text=text[start:end],
                tokens=tokens,
            )
        )
    return _to_chunks(document, drafts, context, settings)


def _to_chunks(document: Document, drafts: list[Draft], context: Context, settings: ChunkSettings) -> list[Chunk]:
    elements = ElementIndex(document)
    chunks = [
        draft_to_chunk(
            draft,
            position,
            "child",
            None,
            elements,
            settings.child_max_tokens,
            settings.embedding_limit,
            {"section": 0},
        )
        for position, draft in enumerate(drafts)
    ]
    measure_overlaps(chunks, context)
    for chunk in chunks:
        chunk.metadata.pop("section")
    return chunks
