"""The peers a team would use instead of the product: a plain Okapi BM25 over the exported chunk
text (`ingest eval --retriever plain`) and the `naive` / `langchain` splitters (`--strategies`)."""

from __future__ import annotations

import math

import pytest

from ingest.chunker import chunk_document
from ingest.chunking.blind import text_to_langchain_spans, text_to_naive_spans
from ingest.contracts.elements import Document, Element, ElementType
from ingest.contracts.evaluation import GoldenItem
from ingest.evaluation.evaluate import evaluate_documents
from ingest.evaluation.plain import PlainBM25, text_to_words
from ingest.tokens import WhitespaceCounter


def test_plain_bm25_scores_match_a_hand_computed_example():
    # N = 3 chunks, lengths 2, 3, 1 words: avgdl = 2; "apple" in 2 of them:
    # idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln 1.6.
    # d1: tf 1, |d| = avgdl -> 1 * 2.2 / (1 + 1.2) = 1.0
    # d2: tf 2, |d| = 1.5 avgdl -> 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 1.5)) = 4.4 / 3.65
    index = PlainBM25()
    index.add([("d1", "a", "Apple banana"), ("d2", "a", "apple, APPLE cherry"), ("d3", "b", "cherry")])
    hits = index.search("apple?", limit=10)
    idf = math.log(1.6)
    assert [key for key, _ in hits] == ["d2", "d1"]  # d3 shares no word: not returned
    assert hits[0][1] == pytest.approx(idf * 4.4 / 3.65, abs=1e-9)
    assert hits[1][1] == pytest.approx(idf * 1.0, abs=1e-9)


def test_plain_bm25_counts_its_statistics_over_the_searched_document_only():
    index = PlainBM25()
    index.add([("d1", "a", "apple banana"), ("d2", "a", "apple apple cherry"), ("d3", "b", "cherry")])
    # scope b: N = 1, n(cherry) = 1, avgdl = 1 -> idf ln(1 + 0.5 / 1.5), tf part 2.2 / 2.2
    assert index.search("cherry", limit=5, scope="b") == [("d3", pytest.approx(math.log(1 + 0.5 / 1.5)))]


def test_plain_bm25_words_are_lowercase_unstemmed_unicode_words():
    assert text_to_words("Spraying sprays, Pyriproxyfen-10EC; किसान") == [
        "spraying",
        "sprays",
        "pyriproxyfen",
        "10ec",
        "किसान",
    ]


def test_naive_windows_are_2000_characters_with_no_overlap():
    text = "x" * 4500
    assert text_to_naive_spans(text) == [(0, 2000), (2000, 4000), (4000, 4500)]


def test_langchain_pieces_are_at_most_1000_characters_and_overlap_by_whole_words():
    sentence = "The whitefly lays eggs under the leaf. "
    text = sentence * 100  # one long paragraph: cut at spaces, with overlap
    spans = text_to_langchain_spans(text)
    assert len(spans) > 1
    assert all(end - start <= 1000 for start, end in spans)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start < end  # consecutive pieces share text (200-character overlap)
    assert spans[-1][1] == len(text.rstrip())
    assert sum(end - start for start, end in spans) > len(text)


def _document() -> Document:
    words = " ".join(f"word{n}" for n in range(900))
    elements = [
        Element(type=ElementType.title, text="Seed treatment", page=1, heading_level=1),
        Element(type=ElementType.paragraph, text=words, page=1),
        Element(type=ElementType.paragraph, text="Treat seed with Thiram 2 g per kg before sowing.", page=2),
    ]
    return Document(source_path="/d/seed.pdf", content_sha256="0" * 64, size_bytes=1, page_count=2, elements=elements)


@pytest.mark.parametrize("strategy", ["naive", "langchain"])
def test_peer_chunks_are_slices_of_the_canonical_text_with_their_pages(strategy):
    document = _document()
    text = document.canonical_text()
    chunks = chunk_document(document, {"strategy": strategy}, WhitespaceCounter())
    assert len(chunks) > 1 and all(chunk.kind == "child" and chunk.parent is None for chunk in chunks)
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.body == chunk.text
    assert chunks[-1].page_end == 2


def test_eval_ranks_with_plain_bm25_and_scores_the_peers():
    items = [GoldenItem(line=1, question="how much thiram per kg of seed", must_contain=["Thiram 2 g per kg"])]
    report = evaluate_documents(
        {"doc1": _document()},
        items,
        strategies=["structure", "naive", "langchain"],
        ks=(1,),
        counter=WhitespaceCounter(),
        retriever="plain",
    )
    assert report.retriever == "plain"
    assert [result.strategy for result in report.strategies] == ["structure", "naive", "langchain"]
    assert all(result.overall.hit_at_k[1] == 1.0 for result in report.strategies)
