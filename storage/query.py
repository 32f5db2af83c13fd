"""Read-only SQL for users: `ingest query "SQL"`.

Read-only by construction, not by keyword filter. On SQLite the query runs on its own
connection opened with `mode=ro` (the file itself cannot be written), `PRAGMA query_only`
(no temp tables either), and an authorizer that denies ATTACH/DETACH and any PRAGMA that
sets a value (so `PRAGMA query_only = 0` cannot undo the rest). A write attempt fails with
QueryError and changes nothing. On PostgreSQL, `storage.postgres.run_readonly_query`: one
statement in a READ ONLY transaction with a statement timeout (QUERY_TIMEOUT_S), always rolled
back. On other databases the statement runs in a transaction that is always rolled back (READ
ONLY where the dialect supports it).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from ingest.contracts.errors import QueryError, StorageError
from storage.db import BUSY_TIMEOUT_MS, database_url
from storage.postgres import run_readonly_query

#: Seconds one `ingest query` statement may run on a database server before it is cancelled.
QUERY_TIMEOUT_S = 60.0

#: PRAGMAs that take an argument but only read (e.g. `PRAGMA table_info(chunks)`).
_READING_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "foreign_key_check",
        "integrity_check",
        "quick_check",
        "function_list",
        "pragma_list",
        "collation_list",
        "module_list",
        "compile_options",
        "database_list",
    }
)


class QueryResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    columns: list[str]
    rows: list[list[Any]]


def _authorize(action: int, arg1, arg2, _db, _trigger) -> int:
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and arg2 is not None and (arg1 or "").lower() not in _READING_PRAGMAS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def open_readonly_sqlite(path: str) -> sqlite3.Connection:
    """A connection that cannot write `path` nor anything else."""
    if not Path(path).exists():
        raise StorageError(f"no database at {path}; run `ingest run PATH... --db {path}` first", path=path)
    uri = f"{Path(path).resolve().as_uri()}?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        connection.execute("PRAGMA query_only = ON")
    except sqlite3.Error as error:
        raise StorageError(f"cannot open {path} read-only: {error}", path=path) from error
    connection.set_authorizer(_authorize)
    return connection


#: Words of the engines' messages when a write is refused (SQLite, PostgreSQL, a read-only role).
_REFUSALS = (
    "readonly",
    "read-only",
    "not authorized",
    "query_only",
    "multiple commands",
    "one statement at a time",
    "transaction read-write mode",
    "permission denied",
)


def _explain(error: Exception) -> str:
    message = str(error).strip()
    lowered = message.lower()
    if "statement timeout" in lowered:
        return f"stopped: the query ran longer than {QUERY_TIMEOUT_S:g} s (statement_timeout); nothing was changed"
    if any(word in lowered for word in _REFUSALS):
        return (
            f"refused: {message}. `ingest query` is read-only (no INSERT/UPDATE/DELETE/DROP/ATTACH or "
            "writing PRAGMA); nothing was changed. Writes go through `ingest run` and `ingest reprocess`."
        )
    return f"SQL error: {message}"


def run_query(db: str, sql: str, parameters: dict[str, Any] | list[Any] | None = None) -> QueryResult:
    """Run one SQL statement read-only against the database at path/URL `db`."""
    url = database_url(db)
    if url.startswith("sqlite"):
        connection = open_readonly_sqlite(make_url(url).database or "")
        try:
            cursor = connection.execute(sql, parameters or ())
            columns = [description[0] for description in cursor.description or []]
            rows = [list(row) for row in cursor.fetchall()]
        except (sqlite3.Error, sqlite3.Warning, ValueError) as error:
            raise QueryError(_explain(error)) from error
        finally:
            connection.close()
        return QueryResult(columns=columns, rows=rows)
    engine = create_engine(url)
    if engine.dialect.name == "postgresql":
        try:
            columns, rows = run_readonly_query(engine.raw_connection, sql, parameters, QUERY_TIMEOUT_S)
        except Exception as error:
            raise QueryError(_explain(error)) from error
        finally:
            engine.dispose()
        return QueryResult(columns=columns, rows=rows)
    try:
        with engine.connect() as connection:
            transaction = connection.begin()
            try:
                if engine.dialect.name in ("postgresql", "mysql", "mariadb"):
                    connection.exec_driver_sql("SET TRANSACTION READ ONLY")
                result = connection.execute(text(sql), parameters or {})
                columns = list(result.keys()) if result.returns_rows else []
                rows = [list(row) for row in result] if result.returns_rows else []
            finally:
                transaction.rollback()
    except Exception as error:
        raise QueryError(_explain(error)) from error
    finally:
        engine.dispose()
    return QueryResult(columns=columns, rows=rows)


def result_to_json(result: QueryResult) -> str:
    """A JSON array of objects, one per row, keyed by column name."""
    return json.dumps(
        [dict(zip(result.columns, row)) for row in result.rows], ensure_ascii=False, indent=2, default=str
    )


def result_to_csv(result: QueryResult) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(result.columns)
    writer.writerows(result.rows)
    return buffer.getvalue()
