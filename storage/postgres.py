"""PostgreSQL: what differs from SQLite, in one place (full text, locks, read-only queries).

The tables are the same SQLAlchemy models (`storage.schema`); only these differ:

- Full text: instead of the FTS5 table `chunks_fts`, `chunks.search_vector` is a generated
  `tsvector` column (`GENERATED ALWAYS AS ... STORED`, so every write path, the library or a
  user's SQL, keeps it right, as FTS5's triggers do on SQLite) with a GIN index. The text
  search configuration follows the chunk's `language` where the server has one (`en` ->
  `english`, `hi` -> `hindi`, ...; the map is fixed when the schema is created, from the
  server's `pg_ts_config`) and is `simple` (lower-cased words, no stemming) otherwise.
  `ingest search` (`ranked_children_sql`, called by `storage.search`) ORs the user's words over
  every configuration in use, so a stemmed English chunk and an unstemmed Marathi one are both
  found, and ranks by `ts_rank_cd`; vector search stays SQLite-only (sqlite-vec).
- Locks: session-level advisory locks (`pg_try_advisory_lock`), held on a connection of their
  own for the whole run. The server drops them when that session ends, however it ends (a
  clean exit, an exception, kill -9, a lost machine once TCP notices), so a crashed run never
  leaves a lock behind. Keys: one 64-bit key per path (SHA-256 of the normalised path), and
  (RUN_LOCK_SPACE, run id) per live run, which tells a live `running` run from a dead one.
- `ingest query`: one statement (the extended protocol refuses several), inside a `READ ONLY`
  transaction whose snapshot is taken before the user's statement (so `SET TRANSACTION READ
  WRITE` is refused too), with `statement_timeout`, always rolled back (`readonly_transaction`,
  which `ingest search` also uses for its `--where`).

This module imports nothing from the rest of `storage`, so `storage.db` and `storage.runs` can
call it without a cycle. psycopg is imported only when a PostgreSQL URL is used.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import PurePosixPath
from typing import Any

from sqlalchemy import Connection, text
from sqlalchemy.orm import Session

#: ISO 639-1 code (what `chunks.language` holds) -> PostgreSQL text search configuration. Only the
#: ones the server has are used; every other language (e.g. `mr`, Marathi) indexes as `simple`.
LANGUAGE_CONFIGS = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}

#: First key of the two-key advisory locks naming live runs: (RUN_LOCK_SPACE, runs.id).
#: The one-key (bigint) path locks live in a separate key space in pg_locks, so they cannot clash.
RUN_LOCK_SPACE = 0x1D9E
#: `ts_rank_cd` normalisation flags for `ingest search` (PostgreSQL's bit mask; 0 = none). On the
#: fixtures' golden questions (top 4, without --doc) 0, 1, 16 and 1|32 found 30 of 34, 32 found 29,
#: 2, 4 and 8 found 24-27 (docs/search.md): chunks are already size-bounded, so no length division.
RANK_NORMALIZATION = 0
#: Advisory lock taken (transaction-scoped) while the schema is created or migrated.
SCHEMA_LOCK_KEY = 0x1D9E_5C4E


def server_configs(connection: Connection) -> set[str]:
    return set(connection.execute(text("SELECT cfgname FROM pg_ts_config")).scalars())


def search_config_expression(configs: set[str]) -> str:
    """SQL choosing each chunk's configuration from its `language` (constants only, so PostgreSQL
    accepts it in a generated column)."""
    cases = " ".join(
        f"WHEN '{code}' THEN '{name}'::regconfig" for code, name in sorted(LANGUAGE_CONFIGS.items()) if name in configs
    )
    return f"CASE language {cases} ELSE 'simple'::regconfig END" if cases else "'simple'::regconfig"


def create_search_vector(connection: Connection) -> None:
    """Add `chunks.search_vector` and its GIN index (schema creation, inside its transaction)."""
    expression = search_config_expression(server_configs(connection))
    connection.execute(
        text(
            "ALTER TABLE chunks ADD COLUMN IF NOT EXISTS search_vector tsvector "
            f"GENERATED ALWAYS AS (to_tsvector({expression}, text)) STORED"
        )
    )
    connection.execute(text("CREATE INDEX IF NOT EXISTS ix_chunks_search_vector ON chunks USING GIN (search_vector)"))


def lock_schema(connection: Connection) -> None:
    """Serialise schema creation/migration between processes until this transaction ends."""
    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})


_SEARCH_VECTOR_DEFINITION = (
    "SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN pg_attribute a "
    "ON a.attrelid = d.adrelid AND a.attnum = d.adnum "
    "WHERE d.adrelid = 'chunks'::regclass AND a.attname = 'search_vector'"
)


def definition_to_configs(definition: str | None) -> list[str]:
    """The text search configurations a `search_vector` definition names, plus `simple` (its fallback)."""
    names = {name for name in LANGUAGE_CONFIGS.values() if f"'{name}'::regconfig" in (definition or "")}
    return sorted(names | {"simple"})


def used_configs(session: Session) -> list[str]:
    """The text search configurations `chunks.search_vector` uses (read from its definition)."""
    return definition_to_configs(session.execute(text(_SEARCH_VECTOR_DEFINITION)).scalar())


def search_chunks(session: Session, query: str, limit: int = 10) -> list[tuple[int, float]]:
    """(chunks.id, rank) of the chunks matching `query` (web-search syntax: words, "phrases",
    OR, -word), best first; rank is `ts_rank_cd` (higher is better; not comparable with FTS5's bm25).
    A low-level probe for tests and operators; `ingest search` is `storage.search.search_chunks`."""
    configs = used_configs(session)
    tsquery = " || ".join(f"websearch_to_tsquery('{name}', :q)" for name in configs)
    rows = session.execute(
        text(
            f"SELECT c.id, ts_rank_cd(c.search_vector, q.query) AS rank FROM chunks c, (SELECT {tsquery} AS query) q "
            "WHERE c.search_vector @@ q.query ORDER BY rank DESC, c.id LIMIT :limit"
        ),
        {"q": query, "limit": limit},
    )
    return [(row[0], float(row[1])) for row in rows]


def ranked_children_sql(driver_connection: Any, terms: Sequence[str], columns: str) -> tuple[str, list[str]]:
    """(SQL, parameters) selecting `columns` + `score` of the child chunks holding any of `terms`,
    for `ingest search` (`storage.search` adds the narrowing, order and limit; psycopg `%s` marks).

    Each term goes through `plainto_tsquery`, so no character of it is tsquery syntax, once per
    configuration in use; the terms are ORed. A chunk matches when any configuration's query
    matches its vector, and is ranked with the query of its own language's configuration (the
    one its vector was built with, as the generated column chooses it), so a word whose stem
    is the word itself is not counted twice. `score` is minus `ts_rank_cd` (cover density: how
    often and how close together the words occur), normalised by RANK_NORMALIZATION, so lower
    is better, as with FTS5's bm25 (through `numeric`, so a `real` 2.1 reads 2.1, not 2.0999999).
    """
    definition = driver_connection.execute(_SEARCH_VECTOR_DEFINITION).fetchone()
    configs = definition_to_configs(definition[0] if definition else None)
    queries = ", ".join(
        " || ".join(f"plainto_tsquery('{name}', %s)" for _ in terms) + f" AS {name}" for name in configs
    )
    by_language = " ".join(
        f"WHEN '{code}' THEN q.{name}" for code, name in sorted(LANGUAGE_CONFIGS.items()) if name in configs
    )
    own_query = f"CASE c.language {by_language} ELSE q.simple END" if by_language else "q.simple"
    any_query = " || ".join(f"q.{name}" for name in configs)
    sql = (
        f"SELECT {columns}, -ts_rank_cd(c.search_vector, {own_query}, {RANK_NORMALIZATION})::numeric::float8 AS score "
        f"FROM chunks c JOIN documents d ON d.id = c.document_id, (SELECT {queries}) q "
        f"WHERE c.search_vector @@ ({any_query}) AND c.kind = 'child'"
    )
    return sql, [term for _ in configs for term in terms]


@contextmanager
def readonly_transaction(connection_factory: Any, timeout_s: float) -> Iterator[Any]:
    """A psycopg 3 connection inside a READ ONLY transaction with `statement_timeout`, rolled back
    and closed at the end. `connection_factory()` returns a DBAPI connection (SQLAlchemy's
    `engine.raw_connection`). The snapshot is taken by a query before the caller's first
    statement, so a later `SET TRANSACTION READ WRITE` is refused."""
    raw = connection_factory()
    try:
        connection = raw.driver_connection
        connection.autocommit = False
        connection.execute("SET TRANSACTION READ ONLY")
        connection.execute("SELECT set_config('statement_timeout', %s, true)", [f"{int(timeout_s * 1000)}"])
        yield connection
    finally:
        try:
            raw.rollback()
        finally:
            raw.close()


def path_lock_key(path: str) -> int:
    """A signed 64-bit advisory lock key for a normalised path (a collision only makes two
    unrelated runs wait for each other: safe)."""
    return int.from_bytes(hashlib.sha256(f"ingest-path:{path}".encode()).digest()[:8], "big", signed=True)


def path_lock_plan(paths: list[str]) -> tuple[set[int], set[int]]:
    """(exclusive keys, shared keys) for a run over `paths`: each path exclusively, each of its
    ancestors shared. Two runs conflict exactly when one's path is, or is inside, the other's:
    nested paths meet on an exclusive key, siblings share only ancestors (shared + shared)."""
    exclusive = {path_lock_key(path) for path in paths}
    shared = {path_lock_key(str(parent)) for path in paths for parent in PurePosixPath(path).parents}
    return exclusive, shared - exclusive


def try_lock_paths(connection: Connection, paths: list[str]) -> bool:
    """Take the path locks of `paths` on `connection` (a session of its own, autocommit); all or none."""
    exclusive, shared = path_lock_plan(paths)
    taken: list[tuple[str, int]] = []
    for function, keys in (("pg_try_advisory_lock", exclusive), ("pg_try_advisory_lock_shared", shared)):
        for key in sorted(keys):
            if not connection.execute(text(f"SELECT {function}(:key)"), {"key": key}).scalar():
                for taken_function, taken_key in taken:
                    unlock = "pg_advisory_unlock_shared" if taken_function.endswith("shared") else "pg_advisory_unlock"
                    connection.execute(text(f"SELECT {unlock}(:key)"), {"key": taken_key})
                return False
            taken.append((function, key))
    return True


def lock_run(connection: Connection, run_id: int) -> None:
    """Mark run `run_id` live for as long as `connection`'s session lasts."""
    connection.execute(text("SELECT pg_advisory_lock(:space, :run)"), {"space": RUN_LOCK_SPACE, "run": run_id})


def run_is_live(connection: Connection, run_id: int) -> bool:
    """Whether a session holds run `run_id`'s lock, i.e. the process running it is alive."""
    free = connection.execute(
        text("SELECT pg_try_advisory_lock(:space, :run)"), {"space": RUN_LOCK_SPACE, "run": run_id}
    ).scalar()
    if free:
        connection.execute(text("SELECT pg_advisory_unlock(:space, :run)"), {"space": RUN_LOCK_SPACE, "run": run_id})
    return not free


def paths_overlap(first: list[str], second: list[str]) -> bool:
    """Whether any path of one list is, or is inside, a path of the other."""

    def inside(path: str, other: str) -> bool:
        return path == other or PurePosixPath(other) in PurePosixPath(path).parents

    return any(inside(a, b) or inside(b, a) for a in first for b in second)


def run_readonly_query(
    connection_factory: Any, sql: str, parameters: dict[str, Any] | list[Any] | None, timeout_s: float
) -> tuple[list[str], list[list[Any]]]:
    """(columns, rows) of one statement, read-only by construction; raises the driver's error.

    `connection_factory()` returns a DBAPI (psycopg 3) connection, closed here. JSON columns
    come back as their text, as on SQLite, so `ingest query` prints the same on both engines.
    Parameters use psycopg's placeholders (`%s`, `%(name)s`).
    """
    from psycopg.types.string import TextLoader

    with readonly_transaction(connection_factory, timeout_s) as connection:
        for name in ("json", "jsonb"):
            connection.adapters.register_loader(name, TextLoader)
        with connection.cursor() as cursor:
            # prepare=True: the extended protocol, one statement only ("...; COMMIT; DELETE ..." is refused)
            cursor.execute(sql, parameters or None, prepare=True)
            columns = [column.name for column in cursor.description or []]
            rows = [list(row) for row in cursor.fetchall()] if cursor.description else []
        return columns, rows
