"""The vector side of `ingest eval --retriever vector|hybrid`: an in-memory exact cosine index over
the re-chunked child chunks, and the ranking per retriever (hybrid fuses with the full-text
ranking by `storage.search.fuse_rankings`, exactly as `ingest search --hybrid` does)."""

from __future__ import annotations

from collections.abc import Sequence

from storage.search import FUSION_DEPTH, ChunkIndex, fuse_rankings


class VectorIndex:
    """Unit vectors with a key and a scope (document id); `search` ranks by cosine distance
    (1 - dot product), nearest first, ties by insertion order."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.scopes: list[str] = []
        self.vectors: list[Sequence[float]] = []
        self._matrix = None

    def add(self, keys: Sequence[str], scope: str, vectors: Sequence[Sequence[float]]) -> None:
        self.keys.extend(keys)
        self.scopes.extend([scope] * len(keys))
        self.vectors.extend(vectors)
        self._matrix = None

    def search(self, vector: Sequence[float], limit: int, scope: str | None = None) -> list[tuple[str, float]]:
        import numpy as np

        if not self.keys:
            return []
        if self._matrix is None:
            self._matrix = np.asarray(self.vectors, dtype=np.float32)
            self._scopes = np.asarray(self.scopes)
        distances = 1.0 - self._matrix @ np.asarray(vector, dtype=np.float32)
        if scope is not None:
            distances = np.where(self._scopes == scope, distances, np.inf)
        order = np.argsort(distances, kind="stable")[:limit]
        return [(self.keys[i], float(distances[i])) for i in order if np.isfinite(distances[i])]


def ranked_keys(
    retriever: str,
    question: str,
    question_vector: Sequence[float] | None,
    text_index: ChunkIndex,
    vector_index: VectorIndex | None,
    depth: int,
    scope: str | None,
) -> list[tuple[str, float]]:
    """`(key, score)` best first for one question: bm25 (`ChunkIndex`), vector (cosine distance)
    or hybrid (reciprocal rank fusion of the FUSION_DEPTH best of each)."""
    if retriever == "bm25":
        return text_index.search(question, limit=depth, scope=scope)
    assert vector_index is not None and question_vector is not None
    if retriever == "vector":
        return vector_index.search(question_vector, limit=depth, scope=scope)
    fetch = max(depth, FUSION_DEPTH)
    text = [key for key, _ in text_index.search(question, limit=fetch, scope=scope)]
    near = [key for key, _ in vector_index.search(question_vector, limit=fetch, scope=scope)]
    return [(str(key), score) for key, score in fuse_rankings([text, near], depth=fetch)][:depth]
