"""Chunk vectors in the same SQLite file: `chunk_embeddings` (which chunk has a vector for which
model) plus one sqlite-vec `vec0` table per vector width, `chunk_vectors_<dimensions>`.

Layout (created on first use by `ingest embed`, not by the schema migrations: a database that
never embeds has neither table, and nothing else needs the sqlite-vec extension):

- `chunk_embeddings`(id, chunk_id -> chunks.id ON DELETE CASCADE, model, dimensions, tokens,
  truncated, created_at), unique (chunk_id, model). `id` is AUTOINCREMENT so an id is never
  reused; it is the vector's rowid in the vec0 table.
- `chunk_vectors_<dimensions>`: vec0(embedding float[dimensions] distance_metric=cosine,
  model text partition key), rowid = `chunk_embeddings.id`.

Why this shape: re-ingesting a document deletes its chunks (their ids are never reused), and the
cascade deletes their `chunk_embeddings` rows inside the pipeline's own transaction, with no
trigger into a vec0 table (a trigger would make every `ingest run` need the extension). The
vec0 rows left behind are orphans: `vector_search` skips them and `purge_orphans` (run by each
`ingest embed`) deletes them.

The extension: Python's `sqlite3` is often built without `enable_load_extension` (pyenv's is).
`load_sqlite_vec` then enables loading through the SQLite C API of the very library `sqlite3`
is linked to (ctypes), after checking that the handle it found is this connection's: a second
copy of SQLite in one process (pysqlite3-binary, apsw) would break SQLite's file locking.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import text
from sqlalchemy.orm import Session

from ingest.contracts.errors import MissingExtraError, StorageError
from storage.db import Database, utc_now

EMBEDDINGS_DDL = (
    "CREATE TABLE IF NOT EXISTS chunk_embeddings ("
    "id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE, "
    "model TEXT NOT NULL, dimensions INTEGER NOT NULL, tokens INTEGER NOT NULL, "
    "truncated INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, UNIQUE (chunk_id, model))"
)
EMBEDDINGS_INDEX_DDL = "CREATE INDEX IF NOT EXISTS ix_chunk_embeddings_model ON chunk_embeddings (model)"


class VectorHit(BaseModel):
    """One nearest chunk: cosine distance (0 = same direction, 2 = opposite)."""

    model_config = ConfigDict(extra="forbid")

    chunk_id: int
    distance: float


class PendingChunk(BaseModel):
    model_config = ConfigDict(extra="forbid")

    chunk_id: int
    text: str


def vectors_table(dimensions: int) -> str:
    if not isinstance(dimensions, int) or not 0 < dimensions <= 8192:
        raise StorageError(f"vector width {dimensions!r}: expected 1 to 8192")
    return f"chunk_vectors_{dimensions}"


def _libsqlite_handle(connection: sqlite3.Connection) -> tuple[ctypes.CDLL, ctypes.c_void_p]:
    """The C `sqlite3*` of a stdlib connection and the library it belongs to, checked against the
    connection itself (its main file name and the library version) before anything uses it."""
    name = ctypes.util.find_library("sqlite3")
    if name is None:
        raise StorageError("cannot load sqlite-vec: libsqlite3 not found and Python's sqlite3 cannot load extensions")
    lib = ctypes.CDLL(name)
    lib.sqlite3_libversion.restype = ctypes.c_char_p
    lib.sqlite3_db_filename.restype = ctypes.c_char_p
    lib.sqlite3_db_filename.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    if lib.sqlite3_libversion().decode() != sqlite3.sqlite_version:
        raise StorageError("cannot load sqlite-vec: Python's sqlite3 is not linked to the system libsqlite3")
    # CPython's pysqlite_Connection: PyObject_HEAD (refcount, type), then `sqlite3 *db`.
    handle = ctypes.c_void_p.from_address(id(connection) + 2 * ctypes.sizeof(ctypes.c_void_p)).value
    expected = next((row[2] for row in connection.execute("PRAGMA database_list") if row[1] == "main"), "")
    if not handle or (lib.sqlite3_db_filename(handle, b"main") or b"").decode() != (expected or ""):
        raise StorageError("cannot load sqlite-vec: this Python's sqlite3 cannot load extensions")
    return lib, ctypes.c_void_p(handle)


def load_sqlite_vec(connection: sqlite3.Connection) -> None:
    """Make `vec0` and `vec_*` functions available on this DB-API connection (idempotent)."""
    try:
        connection.execute("select vec_version()")
        return
    except sqlite3.OperationalError:
        pass
    try:
        import sqlite_vec
    except ImportError as error:
        raise MissingExtraError("embed", "sqlite-vec") from error
    if hasattr(connection, "enable_load_extension"):
        connection.enable_load_extension(True)
        try:
            sqlite_vec.load(connection)
        finally:
            connection.enable_load_extension(False)
        return
    lib, handle = _libsqlite_handle(connection)
    error = ctypes.c_char_p()
    lib.sqlite3_enable_load_extension(handle, 1)
    try:
        code = lib.sqlite3_load_extension(handle, sqlite_vec.loadable_path().encode(), None, ctypes.byref(error))
    finally:
        lib.sqlite3_enable_load_extension(handle, 0)
    if code != 0:
        raise StorageError(f"cannot load sqlite-vec: {(error.value or b'').decode()}")


def _dbapi(session: Session) -> sqlite3.Connection:
    return session.connection().connection.dbapi_connection  # type: ignore[return-value]


def prepare(session: Session, dimensions: int) -> None:
    """Load the extension on this session's connection and create the tables (idempotent)."""
    load_sqlite_vec(_dbapi(session))
    session.execute(text(EMBEDDINGS_DDL))
    session.execute(text(EMBEDDINGS_INDEX_DDL))
    session.execute(
        text(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {vectors_table(dimensions)} USING vec0("
            f"embedding float[{dimensions}] distance_metric=cosine, model text partition key)"
        )
    )


def _has_embeddings(session: Session) -> bool:
    found = session.execute(text("select 1 from sqlite_master where name = 'chunk_embeddings'")).first()
    return found is not None


def purge_orphans(session: Session, dimensions: int) -> int:
    """Delete vectors whose chunk is gone (re-ingested or removed documents); returns how many."""
    table = vectors_table(dimensions)
    result = session.execute(text(f"DELETE FROM {table} WHERE rowid NOT IN (SELECT id FROM chunk_embeddings)"))
    return result.rowcount or 0


def _not_embedded_clause(session) -> str:
    """SQL narrowing child chunks `c` to those without a vector for `:model` (none is embedded
    while the `chunk_embeddings` table does not exist yet)."""
    if not _has_embeddings(session):
        return ""
    return "AND NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.chunk_id = c.id AND e.model = :model)"


def documents_to_embed(db: Database, model: str) -> list[str]:
    """Ids of ok documents with at least one child chunk that has no vector for `model`."""
    with db.reader() as session:
        embedded = _not_embedded_clause(session)
        rows = session.execute(
            text(
                "SELECT DISTINCT c.document_id FROM chunks c JOIN documents d ON d.id = c.document_id "
                f"WHERE d.status = 'ok' AND c.kind = 'child' {embedded} ORDER BY c.document_id"
            ),
            {"model": model},
        )
        return [row[0] for row in rows]


def pending_chunks(db: Database, document_id: str, model: str) -> list[PendingChunk]:
    """A document's child chunks without a vector for `model`, in chunker order."""
    with db.reader() as session:
        embedded = _not_embedded_clause(session)
        rows = session.execute(
            text(
                f"SELECT c.id, c.text FROM chunks c WHERE c.document_id = :document AND c.kind = 'child' {embedded} "
                "ORDER BY c.seq"
            ),
            {"document": document_id, "model": model},
        )
        return [PendingChunk(chunk_id=row[0], text=row[1]) for row in rows]


def child_chunk_ids(db: Database, document_id: str) -> list[int]:
    """Ids of a document's child chunks in chunker order (as `storage.read.load_chunks` lists them)."""
    with db.reader() as session:
        rows = session.execute(
            text("SELECT id FROM chunks WHERE document_id = :document AND kind = 'child' ORDER BY seq"),
            {"document": document_id},
        )
        return [row[0] for row in rows]


def save_vectors(
    session: Session,
    model: str,
    chunk_ids: Sequence[int],
    vectors: Sequence[Sequence[float]],
    tokens: Sequence[int],
    truncated: Sequence[bool],
) -> int:
    """Store one vector per chunk (inside the caller's transaction, after `prepare`). Chunks that
    are gone by now (a concurrent re-ingest) or already have a vector for `model` are skipped;
    returns how many were stored."""
    import sqlite_vec

    if not chunk_ids:
        return 0
    dimensions = len(vectors[0])
    table = vectors_table(dimensions)
    placeholders = ", ".join(str(int(chunk_id)) for chunk_id in chunk_ids)
    alive = {row[0] for row in session.execute(text(f"SELECT id FROM chunks WHERE id IN ({placeholders})"))}
    done = {
        row[0]
        for row in session.execute(
            text(f"SELECT chunk_id FROM chunk_embeddings WHERE model = :model AND chunk_id IN ({placeholders})"),
            {"model": model},
        )
    }
    now, stored = utc_now(), 0
    for chunk_id, vector, count, cut in zip(chunk_ids, vectors, tokens, truncated):
        if chunk_id not in alive or chunk_id in done:
            continue
        row_id = session.execute(
            text(
                "INSERT INTO chunk_embeddings (chunk_id, model, dimensions, tokens, truncated, created_at) "
                "VALUES (:chunk, :model, :dimensions, :tokens, :truncated, :now) RETURNING id"
            ),
            {
                "chunk": chunk_id,
                "model": model,
                "dimensions": dimensions,
                "tokens": count,
                "truncated": int(cut),
                "now": now,
            },
        ).scalar_one()
        session.execute(
            text(f"INSERT INTO {table} (rowid, embedding, model) VALUES (:id, :vector, :model)"),
            {"id": row_id, "vector": sqlite_vec.serialize_float32(list(vector)), "model": model},
        )
        stored += 1
    return stored


def vector_search(db: Database, query_vector: Sequence[float], k: int, model: str) -> list[VectorHit]:
    """The `k` child chunks nearest to `query_vector` (cosine) among those embedded with `model`,
    nearest first. Orphan vectors (chunks since deleted) are skipped, fetching more until `k` live
    hits are found or the table is exhausted."""
    import sqlite_vec

    if k <= 0:
        return []
    table = vectors_table(len(query_vector))
    blob = sqlite_vec.serialize_float32(list(query_vector))
    with db.reader() as session:
        load_sqlite_vec(_dbapi(session))
        if not _has_embeddings(session):
            return []
        exists = session.execute(text("select 1 from sqlite_master where name = :name"), {"name": table}).first()
        if exists is None:
            return []
        total = session.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
        fetch = k
        while True:
            rows = session.execute(
                text(
                    "SELECT knn.rowid, knn.distance, e.chunk_id FROM ("
                    f"SELECT rowid, distance FROM {table} WHERE embedding MATCH :vector AND k = {int(fetch)} "
                    "AND model = :model) knn LEFT JOIN chunk_embeddings e ON e.id = knn.rowid ORDER BY knn.distance"
                ),
                {"vector": blob, "model": model},
            ).all()
            hits = [VectorHit(chunk_id=row[2], distance=row[1]) for row in rows if row[2] is not None]
            if len(hits) >= k or fetch >= total:
                return hits[:k]
            fetch = min(total, fetch * 4)


def embedding_counts(db: Database) -> dict[str, Any]:
    """model -> {"chunks": n, "truncated": n} of the stored vectors (empty when none)."""
    with db.reader() as session:
        if not _has_embeddings(session):
            return {}
        rows = session.execute(
            text("SELECT model, count(*), sum(truncated) FROM chunk_embeddings GROUP BY model ORDER BY model")
        )
        return {row[0]: {"chunks": row[1], "truncated": int(row[2] or 0)} for row in rows}


_SAFE_MODEL = re.compile(r"^[\w.\-]+$")


def check_model_name(model: str) -> str:
    if not _SAFE_MODEL.match(model):
        raise StorageError(f"model name {model!r}: letters, digits, '.', '_' and '-' only")
    return model


def stored_vectors(db: Database, model: str) -> dict[str, list[float]]:
    """Chunk text -> its stored vector for `model` (empty when none): lets `ingest eval` reuse
    `ingest embed`'s work for re-chunked texts that are identical to stored chunks."""
    import struct

    with db.reader() as session:
        if not _has_embeddings(session):
            return {}
        row = session.execute(
            text("SELECT dimensions FROM chunk_embeddings WHERE model = :model LIMIT 1"), {"model": model}
        ).first()
        if row is None:
            return {}
        load_sqlite_vec(_dbapi(session))
        rows = session.execute(
            text(
                f"SELECT c.text, v.embedding FROM {vectors_table(int(row[0]))} v "
                "JOIN chunk_embeddings e ON e.id = v.rowid JOIN chunks c ON c.id = e.chunk_id "
                "WHERE v.model = :model AND e.model = :model"
            ),
            {"model": model},
        )
        return {chunk_text: list(struct.unpack(f"{len(blob) // 4}f", blob)) for chunk_text, blob in rows}
