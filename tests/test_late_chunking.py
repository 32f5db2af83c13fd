"""Late chunking: section windows, pooling over each chunk's span, the fall-back to model-sized
windows. A fake token model (words as tokens, each token mixed with its window's mean, as
attention would) for the rules; the packaged model for "a chunk alone gets its usual vector"."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest

from ingest.chunker import chunk_document
from ingest.contracts import Document, Element
from ingest.integrations.late import TokenVectors, late_chunk_vectors
from ingest.tokens import WhitespaceCounter


class FakeTokenModel:
    """Tokens are words; a token's vector is its word's hashed axis plus the window's mean, so a
    chunk's late vector depends on its neighbours in the window. Records each window's length."""

    def __init__(self, max_tokens: int):
        self.max_tokens = max_tokens
        self.window_lengths: list[int] = []

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return [match.span() for match in re.finditer(r"\S+", text)]

    def token_vectors(self, texts):
        results = []
        for text in texts:
            offsets = self.token_offsets(text)
            truncated = len(offsets) + 2 > self.max_tokens
            offsets = [(0, 0), *offsets[: self.max_tokens - 2], (0, 0)]
            own = np.array([_axis(text[low:high]) for low, high in offsets], dtype=np.float32)
            self.window_lengths.append(len(offsets))
            results.append(
                TokenVectors(
                    vectors=own + own.mean(axis=0),
                    offsets=offsets,
                    special=[True] + [False] * (len(offsets) - 2) + [True],
                    truncated=truncated,
                )
            )
        return results

    def plain(self, text: str) -> np.ndarray:
        """The ordinary embedding of `text`: the mean of all its tokens, length 1."""
        pooled = self.token_vectors([text])[0].vectors.mean(axis=0)
        return pooled / np.linalg.norm(pooled)


def _axis(word: str) -> np.ndarray:
    vector = np.zeros(32, dtype=np.float32)
    vector[zlib.crc32(word.lower().encode()) % 32] = 1.0
    return vector


def manual(*sections: tuple[str, str]) -> Document:
    elements = []
    for heading, text in sections:
        elements.append(Element(type="title", text=heading, page=1, heading_level=1))
        elements.append(Element(type="paragraph", text=text, page=1))
    return Document(
        source_path="m.pdf", content_sha256="0" * 64, size_bytes=1, page_count=1, title="Manual", elements=elements
    )


LONG = " ".join(f"Whitefly advice sentence {n} about the spray dose." for n in range(12))
SETTINGS = {"strategy": "late", "child_max_tokens": 40, "overlap_tokens": 8, "min_tokens": 0}


def late_children(doc: Document):
    return [c for c in chunk_document(doc, SETTINGS, WhitespaceCounter()) if c.kind == "child"]


def test_late_chunks_are_the_structure_chunks():
    doc = manual(("Pests", LONG), ("Sowing", "Sow after the first rain."))
    structure = chunk_document(doc, {**SETTINGS, "strategy": "structure"}, WhitespaceCounter())
    assert chunk_document(doc, SETTINGS, WhitespaceCounter()) == structure


def test_a_section_that_fits_is_one_pass_and_each_chunk_carries_its_neighbours():
    doc = manual(("Pests", LONG), ("Sowing", "Sow after the first rain."))
    children = late_children(doc)
    model = FakeTokenModel(max_tokens=512)
    result = late_chunk_vectors(doc.canonical_text(), children, model)
    assert (result.sections, result.whole_sections, result.windows, result.truncated_chunks) == (2, 2, 2, 0)
    assert len(model.window_lengths) == 2
    for chunk, vector in zip(children, result.vectors):
        assert abs(np.linalg.norm(vector) - 1) < 1e-5
        similarity = float(np.dot(vector, model.plain(chunk.text)))
        if chunk.heading_path[-1] == "Sowing":  # alone in its section: exactly its usual vector
            assert similarity == pytest.approx(1.0, abs=1e-5)
        else:  # pooled inside the whole section: shaped by the rest of it
            assert similarity < 0.999


def test_a_section_over_the_model_limit_falls_back_to_windows_of_whole_chunks_and_says_so():
    doc = manual(("Pests", LONG))
    children = late_children(doc)
    model = FakeTokenModel(max_tokens=60)
    result = late_chunk_vectors(doc.canonical_text(), children, model)
    assert len(children) > 2 and result.whole_sections == 0
    assert 1 < result.windows <= len(children)
    assert max(model.window_lengths) <= 60
    assert all(abs(np.linalg.norm(v) - 1) < 1e-5 for v in result.vectors)
    assert "0 of 1 sections embedded whole" in result.describe(60)


def test_a_chunk_longer_than_the_window_is_embedded_from_its_first_tokens_and_counted():
    doc = manual(("Pests", LONG))
    children = late_children(doc)
    result = late_chunk_vectors(doc.canonical_text(), children, FakeTokenModel(max_tokens=20))
    assert result.truncated_chunks == len(children) and result.windows == len(children)


def test_with_the_packaged_model_a_chunk_alone_gets_the_vector_ingest_embed_stores():
    pytest.importorskip("onnxruntime")
    from ingest.integrations.embed import DEFAULT_MODEL, Embedder, model_spec

    model = Embedder(model_spec(DEFAULT_MODEL))
    doc = manual(("Pests", LONG), ("Sowing", "Sow the cotton seed after the first good rain."))
    children = late_children(doc)
    vectors = late_chunk_vectors(doc.canonical_text(), children, model).vectors
    plain = model.encode([c.text for c in children]).vectors
    similarities = [float(np.dot(a, b)) for a, b in zip(vectors, plain)]
    assert similarities[-1] == pytest.approx(1.0, abs=1e-4)
    assert min(similarities[:-1]) < 0.999


@pytest.mark.slow
def test_ingest_embed_stores_late_vectors_that_vector_search_uses(tmp_path):
    """`ingest run` with `[chunk] strategy = "late"` then `ingest embed --model all-MiniLM-L6-v2-int8-late`:
    one vector per child under its own model name, a chunk alone in its window equal to the
    ordinary model's vector, the others pooled in context, and `ingest search` uses them.
    Children of 80 tokens, so that several share one 256-token window."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("sqlite_vec")
    import shutil
    import sqlite3
    from pathlib import Path

    from ingest.api import embed, run, search
    from ingest.integrations.embed import DEFAULT_MODEL, LATE_MODEL

    shutil.copy2(Path(__file__).resolve().parent.parent / "fixtures" / "pest_advisory.pdf", tmp_path / "a.pdf")
    db = str(tmp_path / "late.db")
    config = tmp_path / "ingest.toml"
    config.write_text('[chunk]\nstrategy = "late"\nchild_max_tokens = 80\noverlap_tokens = 10\n', encoding="utf-8")
    assert not run([tmp_path], db=db, config=config, workers=0, ocr="never").failed
    late, plain = embed(db, model=LATE_MODEL), embed(db, model=DEFAULT_MODEL)
    with sqlite3.connect(db) as connection:
        children = connection.execute("SELECT count(*) FROM chunks WHERE kind = 'child'").fetchone()[0]
    assert late.chunks == plain.chunks == children > 0
    from storage import open_database
    from storage.vectors import stored_vectors

    with open_database(db, create=False) as database:
        late_vectors, plain_vectors = stored_vectors(database, LATE_MODEL), stored_vectors(database, DEFAULT_MODEL)
    similarities = [float(np.dot(late_vectors[text], plain_vectors[text])) for text in plain_vectors]
    assert max(similarities) == pytest.approx(1.0, abs=1e-4)  # a section of one chunk
    assert min(similarities) < 0.99  # a chunk pooled inside its longer section
    hits = search(db, "what dose of fungicide for seed treatment", k=4, retriever="vector", model=LATE_MODEL)
    assert len(hits) == 4 and [hit.score for hit in hits] == sorted(hit.score for hit in hits)
