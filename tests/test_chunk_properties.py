"""Property tests: the chunker's invariants over generated element lists (hypothesis).

Invariants (see docs/chunking.md): size limits, exact token counts, text = heading
path + body, canonical offsets, parent containment, no section crossing, overlap
within the configured figure (and present where the text allows it), one table
header per piece, furniture never in chunk text, nothing of the body lost.

The heading paths and the table headers are checked against `chunk_oracle`, which computes
them from the generated elements alone; the chunker's own `chunk_violations` builds its
sections with the chunker's code, so a bug in that code would pass it.
"""

from __future__ import annotations

import os

import pytest
from chunk_oracle import heading_path_problems, table_header_problems
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.chunker import chunk_document
from ingest.chunking.checks import chunk_violations, contextual_violations
from ingest.chunking.packing import Context
from ingest.chunking.sections import ListBlock, ProseBlock, TableBlock, document_to_sections
from ingest.chunking.semantic import semantic_breaks
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.elements import Document, Element, table_rows_to_text
from ingest.tokens import WhitespaceCounter, tiktoken_counter

LATIN = [
    "cotton",
    "whitefly",
    "spray",
    "dose",
    "per",
    "litre",
    "the",
    "of",
    "seed",
    "field",
    "water",
    "2",
    "ml",
    "approx.",
    "e.g.",
    "Dr.",
    "kg",
    "12.5",
    "leaf",
    "farmer",
    "(note)",
    "acre",
    "urea",
    "sow",
]
DEVANAGARI = ["कपास", "की", "फसल", "में", "सफेद", "मक्खी", "दवा", "पानी", "किसान", "योजना"]
ENDS = [".", "?", "!", "।", "॥"]
FURNITURE_MARK = "RUNNINGHEADERXQ"

words = st.sampled_from(LATIN + DEVANAGARI)
latin_words = st.sampled_from(LATIN)


@st.composite
def sentence(draw, vocabulary=words):
    body = draw(st.lists(vocabulary, min_size=2, max_size=18))
    return " ".join(body).capitalize() + draw(st.sampled_from(ENDS))


@st.composite
def paragraph_text(draw, vocabulary=words, giant=True):
    sentences = draw(st.lists(sentence(vocabulary), min_size=1, max_size=8))
    if giant and draw(st.integers(0, 9)) == 0:
        sentences.insert(draw(st.integers(0, len(sentences))), "x" * draw(st.integers(50, 400)))
    joiner = draw(st.sampled_from([" ", " ", "\n"]))
    return joiner.join(sentences)


@st.composite
def table(draw, page):
    width = draw(st.integers(1, 5))
    cell = st.lists(words, min_size=1, max_size=draw(st.sampled_from([3, 3, 30]))).map(" ".join)
    rows = draw(st.lists(st.lists(cell, min_size=width, max_size=width), min_size=1, max_size=12))
    header_rows = draw(st.integers(0, min(2, len(rows))))
    caption = draw(st.one_of(st.none(), st.just("Table 9: Doses per pest")))
    return Element(
        type="table", text=table_rows_to_text(rows), rows=rows, header_rows=header_rows, caption=caption, page=page
    )


@st.composite
def document(draw, prose_only=False):
    elements: list[Element] = []
    page = 1
    for _ in range(draw(st.integers(1, 14))):
        page += draw(st.integers(0, 1))
        if draw(st.integers(0, 4)) == 0:
            elements.append(
                Element(
                    type=draw(st.sampled_from(["header", "footer", "page_number"])),
                    text=f"{FURNITURE_MARK} {page}",
                    page=page,
                )
            )
        kind = (
            "paragraph"
            if prose_only
            else draw(st.sampled_from(["title", "paragraph", "paragraph", "list", "table", "caption"]))
        )
        if prose_only and draw(st.integers(0, 3)) == 0:
            kind = "title"
        if kind == "title":
            elements.append(
                Element(
                    type="title",
                    text=" ".join(draw(st.lists(latin_words, min_size=1, max_size=3))),
                    heading_level=draw(st.integers(1, 3)),
                    page=page,
                )
            )
        elif kind == "paragraph":
            elements.append(
                Element(
                    type="paragraph",
                    page=page,
                    text=draw(paragraph_text(latin_words if prose_only else words, giant=not prose_only)),
                )
            )
        elif kind == "caption":
            elements.append(Element(type="caption", text="Table 9: Doses per pest", page=page))
        elif kind == "list":
            if draw(st.booleans()):
                elements.append(Element(type="paragraph", text="Documents needed for the scheme:", page=page))
            for _ in range(draw(st.integers(1, 8))):
                elements.append(
                    Element(
                        type="list_item",
                        page=page,
                        list_level=draw(st.integers(0, 1)),
                        text="- " + draw(paragraph_text(giant=False)),
                    )
                )
        else:
            elements.append(draw(table(page)))
    title = draw(st.one_of(st.none(), st.just("Cotton manual")))
    return Document(
        source_path="generated.pdf",
        content_sha256="0" * 64,
        size_bytes=1,
        page_count=page,
        title=title,
        elements=elements,
    )


@st.composite
def chunk_settings(draw):
    child = draw(st.integers(40, 260))
    overlap = draw(st.integers(0, child // 4))
    parent = draw(st.integers(child, child * 4))
    return ChunkSettings(
        child_max_tokens=child,
        overlap_tokens=overlap,
        parent_max_tokens=parent,
        embedding_limit=draw(st.integers(16, 400)),
        table_max_tokens=draw(st.one_of(st.none(), st.integers(30, 300))),
    )


#: The default run is quick; the `slow` soak tests run 600/300 documents; CHUNK_PROPERTY_SCALE=10
#: multiplies every count (a longer soak).
SCALE = int(os.environ.get("CHUNK_PROPERTY_SCALE", "1"))


def examples(count: int) -> settings:
    return settings(max_examples=count * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def word_embedder(texts):
    """A deterministic stand-in for the sentence model: which of a few marker words a text holds."""
    markers = ("cotton", "whitefly", "water", "seed", "कपास", "पानी")
    return [[float(marker in text.lower()) for marker in markers] + [0.05] for text in texts]


def assert_invariants(doc: Document, config: ChunkSettings, counter) -> None:
    chunks = chunk_document(doc, config, counter, word_embedder)
    assert heading_path_problems(doc, chunks, config.carried_headings_max) == []
    assert table_header_problems(doc, chunks) == []
    assert chunk_violations(doc, chunks, config, counter) == []
    assert all(FURNITURE_MARK not in chunk.text for chunk in chunks)


@examples(50)
@given(document(), chunk_settings())
def test_invariants_hold_with_word_counts(doc, chunk_settings_):
    assert_invariants(doc, chunk_settings_, WhitespaceCounter())


@examples(30)
@given(document(), chunk_settings())
def test_invariants_hold_with_cl100k(doc, chunk_settings_):
    assert_invariants(doc, chunk_settings_, tiktoken_counter("cl100k_base"))


@pytest.mark.slow
@examples(600)
@given(document(), chunk_settings())
def test_invariants_soak_with_word_counts(doc, chunk_settings_):
    assert_invariants(doc, chunk_settings_, WhitespaceCounter())


@pytest.mark.slow
@examples(300)
@given(document(), chunk_settings())
def test_invariants_soak_with_cl100k(doc, chunk_settings_):
    assert_invariants(doc, chunk_settings_, tiktoken_counter("cl100k_base"))


@examples(40)
@given(document(), chunk_settings(), st.floats(5, 95))
def test_semantic_strategy_keeps_every_structure_invariant(doc, chunk_settings_, percentile):
    """Heading paths prepended, canonical offsets, parents, tables split only between rows with
    their header, nothing lost: the checks of the structure strategy, with topic breaks."""
    config = chunk_settings_.model_copy(update={"strategy": "semantic", "semantic_percentile": percentile})
    assert_invariants(doc, config, WhitespaceCounter())


@examples(40)
@given(document(), st.floats(5, 95), st.integers(0, 40))
def test_semantic_breaks_are_prose_sentence_starts_never_inside_a_list_or_table(doc, percentile, min_tokens):
    counter = WhitespaceCounter()
    context = Context(doc.canonical_text(), counter)
    sections = document_to_sections(doc)
    breaks = semantic_breaks(sections, context, word_embedder, percentile, min_tokens)
    blocks = [block for section in sections for block in section.blocks]
    for offset in breaks:
        assert any(isinstance(b, ProseBlock) and b.start <= offset < b.end for b in blocks)
        assert not any(isinstance(b, (ListBlock, TableBlock)) and b.start <= offset < b.end for b in blocks)
        assert offset == 0 or context.text[offset - 1].isspace() or context.text[offset - 1] in "।॥。！？"


@examples(15)
@given(document(), chunk_settings())
def test_late_strategy_chunks_exactly_like_structure(doc, chunk_settings_):
    counter = WhitespaceCounter()
    late = chunk_document(doc, chunk_settings_.model_copy(update={"strategy": "late"}), counter)
    assert late == chunk_document(doc, chunk_settings_, counter)


@examples(40)
@given(document(prose_only=True), st.integers(60, 200), st.integers(6, 40))
def test_neighbouring_prose_children_share_the_overlap(doc, child_max, overlap):
    """Where the text allows it (prose of short words), every child after the first of a
    section repeats a tail of its predecessor of at most the configured overlap."""
    counter = tiktoken_counter("cl100k_base")
    config = ChunkSettings(
        child_max_tokens=child_max, overlap_tokens=min(overlap, child_max // 3), parent_max_tokens=child_max * 2
    )
    chunks = chunk_document(doc, config, counter)
    text = doc.canonical_text()
    children = [c for c in chunks if c.kind == "child"]
    for previous, chunk in zip(children, children[1:]):
        if previous.metadata["section"] != chunk.metadata["section"]:
            continue
        assert previous.char_start < chunk.char_start < previous.char_end, "no overlap where the text allows it"
        shared = text[chunk.char_start : previous.char_end]
        assert previous.body.endswith(shared) and chunk.body.startswith(shared)
        assert 0 < counter.count(shared) == chunk.metadata["overlap_tokens"] <= config.overlap_tokens
        assert chunk.char_start == 0 or text[chunk.char_start - 1].isspace(), "overlap must start at a word"


@examples(25)
@given(document(), chunk_settings(), st.sampled_from(["fixed", "recursive"]))
def test_blind_strategies_cut_the_canonical_text(doc, chunk_settings_, strategy):
    counter = tiktoken_counter("cl100k_base")
    config = chunk_settings_.model_copy(update={"strategy": strategy})
    chunks = chunk_document(doc, config, counter)
    text = doc.canonical_text()
    for position, chunk in enumerate(chunks):
        assert chunk.index == position and chunk.kind == "child" and chunk.parent is None
        assert chunk.heading_path == [] and chunk.text == chunk.body == text[chunk.char_start : chunk.char_end]
        assert chunk.token_count == counter.count(chunk.text) <= config.child_max_tokens
    covered = bytearray(len(text))
    for chunk in chunks:
        covered[chunk.char_start : chunk.char_end] = b"\x01" * (chunk.char_end - chunk.char_start)
    assert all(covered[i] or text[i].isspace() for i in range(len(text)))


@examples(30)
@given(document(), chunk_settings(), st.integers(0, 60), st.booleans())
def test_contextual_is_structure_with_a_context_line(doc, chunk_settings_, context_max, words):
    """`contextual`: every structure invariant (canonical slices, no table split mid-row, one header per
    piece, paths prepended, limits) holds with the context line taken out; the context adds at most
    `context_max_tokens`; and the chunks are the structure chunks, same spans, pages and parents."""
    counter = WhitespaceCounter() if words else tiktoken_counter("cl100k_base")
    config = chunk_settings_.model_copy(update={"strategy": "contextual", "context_max_tokens": context_max})
    chunks = chunk_document(doc, config, counter)
    assert heading_path_problems(doc, chunks, config.carried_headings_max) == []
    assert contextual_violations(doc, chunks, config, counter) == []
    assert all(FURNITURE_MARK not in chunk.text for chunk in chunks)
    structure = chunk_document(doc, config.model_copy(update={"strategy": "structure"}), counter)
    fields = ("kind", "parent", "body", "heading_path", "char_start", "char_end", "page_start", "page_end")
    assert [[getattr(c, f) for f in fields] for c in chunks] == [[getattr(c, f) for f in fields] for c in structure]
    for chunk, bare in zip(chunks, structure):
        assert chunk.text.endswith("\n\n" + bare.body) or chunk.text == bare.body
        assert chunk.text.startswith(" / ".join(chunk.heading_path))
