"""Embedding in batches of similar length, and the vector cache of `ingest eval --vector-cache`:
both must give exactly the vectors the model gives a text alone (within float rounding)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")

from ingest.integrations.embed import DEFAULT_MODEL  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

TEXTS = [
    "Whitefly on cotton: spray Pyriproxyfen 10 EC, 2 ml per litre of water.",
    "yes",
    "word " * 400,  # longer than the model's 256-token window: two windows, averaged
    "Sowing time for rainfed cotton is the first fortnight of June, after 75 mm of rain.",
    "MSP",
    "Gram pod borer: the larvae bore into the pods and eat the seeds; one larva destroys 30 to 40 pods.",
    "Consolidated Balance Sheets (in millions)",
]


@pytest.fixture(scope="module")
def embedder():
    from ingest.integrations.embed import shared_embedder

    return shared_embedder()


def test_batches_sorted_by_length_give_each_text_its_own_vector_in_input_order(embedder):
    from ingest.integrations.embed import encode_by_length

    alone = [embedder.encode([text]) for text in TEXTS]
    batched = encode_by_length(embedder, TEXTS, batch=3)  # 3 batches mixing short and long texts
    for single, vector, tokens, cut in zip(alone, batched.vectors, batched.tokens, batched.truncated):
        assert vector == pytest.approx(single.vectors[0], abs=1e-5)
        assert (tokens, cut) == (single.tokens[0], single.truncated[0])
    assert batched.truncated == [False] * len(TEXTS) and batched.windows == [1, 1, 2, 1, 1, 1, 1]
    assert encode_by_length(embedder, [], batch=3).vectors == []


def test_ingest_embed_stores_the_vector_each_chunk_gets_alone(tmp_path, embedder):
    pytest.importorskip("sqlite_vec")
    from ingest.api import embed, run
    from storage import open_database
    from storage.vectors import stored_vectors

    db = str(tmp_path / "crop.db")
    run([str(FIXTURES / "crop_manual.pdf")], db=db)
    embed(db, batch=4)  # several batches, each sorted by length
    with open_database(db, create=False) as database:
        stored = stored_vectors(database, DEFAULT_MODEL)
    assert len(stored) >= 5
    for text, vector in stored.items():
        assert vector == pytest.approx(embedder.encode([text]).vectors[0], abs=1e-5)


def test_vector_cache_serves_a_later_invocation_without_the_model(tmp_path, embedder, monkeypatch):
    from ingest.integrations import embed

    cache = tmp_path / "vectors.sqlite"
    first = embed.texts_embedder(cache=cache)(TEXTS)

    calls = []
    original = embed.encode_by_length
    monkeypatch.setattr(embed, "encode_by_length", lambda *args, **kw: calls.append(args[1]) or original(*args, **kw))
    again = embed.texts_embedder(cache=cache)(TEXTS + ["a text never embedded"])  # a new invocation
    assert calls == [["a text never embedded"]]  # only the new text goes through the model
    for vector, before in zip(again, first):
        assert vector == pytest.approx(before, abs=1e-6)
    assert again[-1] == pytest.approx(embedder.encode(["a text never embedded"]).vectors[0], abs=1e-5)


def test_semantic_sentences_are_cached_for_the_next_evaluation_and_keep_their_order(tmp_path, embedder, monkeypatch):
    """`ingest eval --strategies semantic --vector-cache F` run once per retriever embeds every
    sentence only in the first run; the vectors come back in the caller's order, duplicates too."""
    from ingest.integrations import embed

    cache = tmp_path / "vectors.sqlite"
    first = embed.sentence_embedder(cache=cache)(TEXTS)

    calls = []
    original = embed.encode_by_length
    monkeypatch.setattr(embed, "encode_by_length", lambda *args, **kw: calls.append(args[1]) or original(*args, **kw))
    sentences = [TEXTS[3], "a sentence never embedded", TEXTS[0], TEXTS[3]]
    again = embed.sentence_embedder(cache=cache)(sentences)
    assert calls == [["a sentence never embedded"]]
    assert again[0] == pytest.approx(first[3], abs=1e-6) and again[3] == pytest.approx(first[3], abs=1e-6)
    assert again[2] == pytest.approx(first[0], abs=1e-6)
    assert again[1] == pytest.approx(embedder.encode(["a sentence never embedded"]).vectors[0], abs=1e-5)
