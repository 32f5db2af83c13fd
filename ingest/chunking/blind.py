"""The structure-blind baselines, selectable by name for measurement: `fixed` and `recursive`.

Both cut the canonical text alone: no sections, no heading path (`text == body`),
no tables or lists, no parents (every chunk is a child with `parent` None), and
`canonical[char_start:char_end] == body` for every chunk.

- `fixed`: windows of `child_max_tokens` tokens, each starting `overlap_tokens` tokens
  before the previous one ends, cut at token boundaries (so inside words and sentences).
- `recursive`: separator hierarchy blank line, line, sentence end, whitespace, then
  characters (like LangChain's RecursiveCharacterTextSplitter, plus sentence ends),
  neighbours merged up to the limit with the configured overlap.
"""

from __future__ import annotations

from ingest.chunking.packing import Context, Draft, FlowUnit, Packer
from ingest.chunking.prose import split_span, word_starts
from ingest.chunking.render import ElementIndex, draft_to_chunk, measure_overlaps
from ingest.chunking.sections import Section
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document


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
