"""The `semantic` strategy on hand-built documents, with a deterministic fake embedder (no model).

The fake embeds a sentence by the topic words it contains, so a topic change is a large
distance and the tests know where the breaks must fall."""

from __future__ import annotations

import pytest

from ingest.chunker import chunk_document
from ingest.chunking.checks import chunk_violations
from ingest.chunking.settings import ChunkSettings
from ingest.contracts import Document, Element
from ingest.contracts.elements import table_rows_to_text
from ingest.contracts.errors import ConfigError
from ingest.tokens import WhitespaceCounter

TOPICS = ("whitefly", "irrigation", "market")


def topic_embedder(texts):
    """One axis per topic word, plus a small constant so a sentence without one is not a zero vector."""
    return [[float(word in text.lower()) for word in TOPICS] + [0.1] for text in texts]


def sentences(topic: str, count: int) -> str:
    return " ".join(f"The {topic} note number {n} says something useful here." for n in range(count))


def document(*elements: Element) -> Document:
    return Document(
        source_path="manual.pdf",
        content_sha256="0" * 64,
        size_bytes=1,
        page_count=1,
        title="Cotton manual",
        elements=[Element(type="title", text="Field work", page=1, heading_level=1), *elements],
    )


def paragraph(text: str) -> Element:
    return Element(type="paragraph", text=text, page=1)


SETTINGS = ChunkSettings(strategy="semantic", child_max_tokens=200, overlap_tokens=0, min_tokens=20)


def children(doc: Document, settings: ChunkSettings = SETTINGS):
    chunks = chunk_document(doc, settings, WhitespaceCounter(), topic_embedder)
    assert chunk_violations(doc, chunks, settings, WhitespaceCounter()) == []
    return [chunk for chunk in chunks if chunk.kind == "child"]


def test_a_section_is_split_where_the_topic_changes_with_its_path_on_every_piece():
    doc = document(paragraph(sentences("whitefly", 6) + " " + sentences("irrigation", 6)))
    pieces = children(doc)
    assert [("whitefly" in c.body.lower(), "irrigation" in c.body.lower()) for c in pieces] == [
        (True, False),
        (False, True),
    ]
    canonical = doc.canonical_text()
    for chunk in pieces:
        assert chunk.heading_path == ["Cotton manual", "Field work"]
        assert chunk.text == "Cotton manual / Field work\n\n" + chunk.body
        assert canonical[chunk.char_start : chunk.char_end] == chunk.body
    # the structure strategy keeps the same 108-word section in one chunk
    structure = chunk_document(doc, SETTINGS.model_copy(update={"strategy": "structure"}), WhitespaceCounter())
    assert len([c for c in structure if c.kind == "child"]) == 1


def test_a_shift_is_not_cut_when_a_side_would_be_under_min_tokens():
    doc = document(paragraph(sentences("whitefly", 1) + " " + sentences("irrigation", 6)))
    assert len(children(doc)) == 1  # 10 words of whitefly < min_tokens 20


def test_lists_and_tables_are_never_cut_by_a_topic_change():
    rows = [["Topic", "Advice"], *[[topic, f"{topic} advice"] for topic in TOPICS * 2]]
    doc = document(
        paragraph("Follow these steps in order:"),
        *[Element(type="list_item", text=f"- {sentences(topic, 1)}", page=1) for topic in TOPICS * 2],
        Element(type="table", text=table_rows_to_text(rows), rows=rows, header_rows=1, page=1),
    )
    pieces = children(doc, SETTINGS.model_copy(update={"min_tokens": 0}))
    assert len(pieces) == 1  # the whole section fits: a list and a table, no prose break inside


def test_the_maximum_size_still_holds_inside_one_topic():
    doc = document(paragraph(sentences("whitefly", 40)))
    pieces = children(doc, SETTINGS.model_copy(update={"child_max_tokens": 60}))
    assert len(pieces) > 1 and all(c.token_count <= 60 for c in pieces)


def test_semantic_without_an_embedder_is_a_config_error():
    with pytest.raises(ConfigError, match="embedding function"):
        chunk_document(document(paragraph("One sentence.")), SETTINGS, WhitespaceCounter())
    for bad in (0, 100, -5):
        with pytest.raises(ValueError):
            ChunkSettings(strategy="semantic", semantic_percentile=bad)


@pytest.mark.slow
def test_ingest_run_with_the_semantic_strategy_stores_chunks_cut_by_the_packaged_model(tmp_path):
    pytest.importorskip("onnxruntime")
    import shutil
    import sqlite3
    from pathlib import Path

    from ingest.api import run

    shutil.copy2(Path(__file__).resolve().parent.parent / "fixtures" / "pest_advisory.pdf", tmp_path / "a.pdf")
    config = tmp_path / "ingest.toml"
    config.write_text('[chunk]\nstrategy = "semantic"\n', encoding="utf-8")
    assert not run([tmp_path], db=str(tmp_path / "s.db"), config=config, workers=0, ocr="never").failed
    with sqlite3.connect(tmp_path / "s.db") as connection:
        paths = connection.execute("SELECT heading_path FROM chunks WHERE kind = 'child'").fetchall()
    assert paths and all(path for (path,) in paths)  # every child has its heading path
