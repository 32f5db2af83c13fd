"""A file of text vectors kept between `ingest eval` invocations (`--vector-cache FILE`).

`ingest eval --retriever vector` and `--retriever hybrid` embed the same re-chunked texts; on
FinanceBench one strategy's 6,958 children cost ~1,400 CPU seconds, so the second invocation (and
an interrupted one, restarted) reads the vectors the first one wrote instead of paying again.

Keyed by model name and the SHA-256 of the exact text: a vector is reused only for the identical
text embedded by the same model, so scores are unchanged (the same vector the model gives). Vectors
are float32 blobs (4 bytes per dimension). A plain SQLite file (stdlib `sqlite3`): a cache, not
part of the database schema; deleting it only costs the embedding again.
"""

from __future__ import annotations

import hashlib
import sqlite3
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

from ingest.contracts.errors import StorageError


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class VectorCache:
    """`get(texts)` -> {text: vector} for the texts stored for `model`; `put(texts, vectors)` stores
    and commits at once (an interrupted run keeps every batch it finished)."""

    def __init__(self, path: str | Path, model: str) -> None:
        self.path = Path(path)
        self.model = model
        try:
            self._connection = sqlite3.connect(self.path)
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS text_vectors (model TEXT NOT NULL, text_sha256 BLOB NOT NULL, "
                "vector BLOB NOT NULL, PRIMARY KEY (model, text_sha256)) WITHOUT ROWID"
            )
            self._connection.commit()
        except sqlite3.Error as error:
            raise StorageError(f"vector cache: {error}", path=str(self.path), stage="eval") from error

    def get(self, texts: Iterable[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        for text in texts:
            row = self._connection.execute(
                "SELECT vector FROM text_vectors WHERE model = ? AND text_sha256 = ?", (self.model, _key(text))
            ).fetchone()
            if row is not None:
                found[text] = list(struct.unpack(f"{len(row[0]) // 4}f", row[0]))
        return found

    def put(self, texts: Sequence[str], vectors: Sequence[Sequence[float]]) -> None:
        self._connection.executemany(
            "INSERT OR REPLACE INTO text_vectors (model, text_sha256, vector) VALUES (?, ?, ?)",
            [(self.model, _key(text), struct.pack(f"{len(vector)}f", *vector)) for text, vector in zip(texts, vectors)],
        )
        self._connection.commit()

    def close(self) -> None:
        self._connection.close()
