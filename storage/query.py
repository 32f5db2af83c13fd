"""Read-only SQL for users: `ingest query "SQL"`.

Read-only by construction, not by keyword filter. On SQLite the query runs on its own
connection opened with `mode=ro` (the file itself cannot be written), `PRAGMA query_only`
(no temp tables either), and an authorizer that denies ATTACH/DETACH and any PRAGMA that
sets a value (so `PRAGMA query_only = 0` cannot undo the rest). A write attempt fails with
QueryError and changes nothing. On PostgreSQL, `storage.postgres.run_readonly_query`: one
statement in a READ ONLY transaction with a statement timeout (the query time limit), always rolled
back. On other databases the statement runs in a transaction that is always rolled back (READ
ONLY where the dialect supports it).
"""

from __future__ import annotations

import base64
import csv
import io
import json
import math
import sqlite3
import time
from contextlib import contextmanager
from typing import Any, Iterator, TextIO

from pydantic import BaseModel, ConfigDict

from ingest.contracts.errors import QueryError
from storage.sqlite_files import connect_readonly, database_url, missing_side_files, sqlite_path, tidy_side_files

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
    """A connection that cannot write `path` nor anything else (`connect_readonly` plus the authorizer)."""
    connection = connect_readonly(path)
    connection.set_authorizer(_authorize)
    return connection


#: Words of the engines' messages when a write is refused (SQLite, PostgreSQL, a read-only role).
_REFUSALS = (
    "readonly",
    "read-only",
    "not authorized",
    "query_only",
    "authorization denied",
    "multiple commands",
    "one statement at a time",
    "transaction read-write mode",
    "permission denied",
)


def _explain(error: Exception) -> str:
    message = str(error).strip()
    lowered = message.lower()
    if "statement timeout" in lowered:
        return "stopped: the query ran longer than the time limit (statement_timeout); nothing was changed"
    if any(word in lowered for word in _REFUSALS):
        return (
            f"refused: {message}. `ingest query` is read-only (no INSERT/UPDATE/DELETE/DROP/ATTACH or "
            "writing PRAGMA); nothing was changed. Writes go through `ingest run` and `ingest reprocess`."
        )
    return f"SQL error: {message}"


#: Seconds a query may run when the caller gives no limit (`ingest query --timeout`).
DEFAULT_QUERY_TIMEOUT = 60.0
#: SQLite VM steps between two checks of the time limit and of Ctrl-C (~1 ms of work).
_PROGRESS_STEPS = 10_000
#: Rows fetched from the cursor at a time: the result is streamed, never held whole.
_FETCH_ROWS = 500


class QueryStream(BaseModel):
    """A running query: its column names and an iterator over its rows (each a list), fetched
    `_FETCH_ROWS` at a time, so a result of millions of rows never sits in memory."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    columns: list[str]
    rows: Any  # Iterator[list[Any]]


class _Guard:
    """SQLite's progress handler: stops the statement when `timeout` seconds have passed or
    Ctrl-C/SIGTERM arrived. A KeyboardInterrupt raised inside the handler is swallowed by sqlite3
    (the statement just ends "interrupted"), so it is caught, remembered and re-raised; when it
    lands before the handler's `try`, a plain KeyboardInterrupt stands for it."""

    def __init__(self, timeout: float | None):
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.interrupt: KeyboardInterrupt | None = None

    def __call__(self) -> int:
        try:
            return 1 if self.deadline is not None and time.monotonic() > self.deadline else 0
        except KeyboardInterrupt as interrupt:
            self.interrupt = interrupt
            return 1

    def error(self, error: Exception) -> BaseException:
        """What the caller sees for an error of the statement."""
        if self.interrupt is not None:
            return self.interrupt
        if "interrupted" in str(error):
            if self.deadline is not None and time.monotonic() > self.deadline:
                return QueryError(
                    f"stopped after the time limit of {self.timeout:g} s; raise it with --timeout SECONDS "
                    "(or add a LIMIT / a narrower WHERE)"
                )
            # the handler raised before its `try` (a signal lands at the call's first instruction):
            # only an interrupt makes it raise, and sqlite3 swallowed it
            return KeyboardInterrupt()
        return QueryError(_explain(error))


@contextmanager
def stream_query(
    db: str,
    sql: str,
    parameters: dict[str, Any] | list[Any] | None = None,
    timeout: float | None = DEFAULT_QUERY_TIMEOUT,
) -> Iterator[QueryStream]:
    """Run one SQL statement read-only against the database at path/URL `db`; yields its stream.

    SQLite: the statement stops with QueryError after `timeout` seconds (None: no limit) and with
    KeyboardInterrupt on Ctrl-C, checked every `_PROGRESS_STEPS` VM steps by a progress handler.
    Other databases: rows streamed from a transaction that is always rolled back."""
    if timeout is not None and not (0 < timeout < math.inf):
        raise QueryError(f"the time limit must be a positive number of seconds, not {timeout}")
    url = database_url(db)
    path = sqlite_path(url)
    if path is None:
        with _stream_other(url, sql, parameters, timeout) as stream:
            yield stream
        return
    created = missing_side_files(path)
    connection = open_readonly_sqlite(path)
    guard = _Guard(timeout)
    connection.set_progress_handler(guard, _PROGRESS_STEPS)
    try:
        try:
            cursor = connection.execute(sql, parameters or ())
        except (sqlite3.Error, sqlite3.Warning, ValueError) as error:
            raise guard.error(error) from error
        if guard.interrupt is not None:
            raise guard.interrupt
        yield QueryStream(columns=[d[0] for d in cursor.description or []], rows=_fetch(cursor, guard))
    finally:
        connection.close()
        tidy_side_files(path, created)


def _fetch(cursor: sqlite3.Cursor, guard: _Guard) -> Iterator[list[Any]]:
    while True:
        try:
            batch = cursor.fetchmany(_FETCH_ROWS)
        except (sqlite3.Error, sqlite3.Warning, ValueError) as error:
            raise guard.error(error) from error
        if guard.interrupt is not None:
            raise guard.interrupt
        if not batch:
            return
        for row in batch:
            yield list(row)


@contextmanager
def _stream_other(url: str, sql: str, parameters, timeout: float | None) -> Iterator[QueryStream]:
    """PostgreSQL: one statement in a READ ONLY transaction with a statement timeout
    (`storage.postgres.run_readonly_query`; its rows are fetched whole). Other servers: rows
    streamed from a transaction that is always rolled back."""
    from sqlalchemy import create_engine, text  # other databases only: SQLite needs just sqlite3

    engine = create_engine(url)
    if engine.dialect.name == "postgresql":
        from storage.postgres import run_readonly_query

        try:
            columns, rows = run_readonly_query(engine.raw_connection, sql, parameters, timeout or DEFAULT_QUERY_TIMEOUT)
        except Exception as error:
            raise QueryError(_explain(error)) from error
        finally:
            engine.dispose()
        yield QueryStream(columns=columns, rows=iter(rows))
        return
    try:
        with engine.connect() as connection:
            transaction = connection.begin()
            try:
                if engine.dialect.name in ("postgresql", "mysql", "mariadb"):
                    connection.exec_driver_sql("SET TRANSACTION READ ONLY")
                try:
                    result = connection.execution_options(stream_results=True).execute(text(sql), parameters or {})
                except Exception as error:
                    raise QueryError(_explain(error)) from error
                columns = list(result.keys()) if result.returns_rows else []
                streamed = (list(row) for row in result) if result.returns_rows else iter(())
                yield QueryStream(columns=columns, rows=streamed)
            finally:
                transaction.rollback()
    finally:
        engine.dispose()


def run_query(
    db: str, sql: str, parameters: dict[str, Any] | list[Any] | None = None, timeout: float | None = None
) -> QueryResult:
    """`stream_query` with every row collected (for the library and tests; no time limit by default)."""
    with stream_query(db, sql, parameters, timeout) as stream:
        return QueryResult(columns=stream.columns, rows=list(stream.rows))


def value_to_text(value: Any) -> Any:
    """A value as output shows it: a blob as `blob(N bytes) base64:...` (its first
    `BLOB_SHOWN_BYTES`, marked when cut), anything else unchanged. Bytes never reach csv or
    json raw (a 900 MB blob crashed the csv module)."""
    if not isinstance(value, (bytes, bytearray, memoryview)):
        return value
    data = bytes(value[:BLOB_SHOWN_BYTES])
    cut = "" if len(value) <= BLOB_SHOWN_BYTES else f", first {BLOB_SHOWN_BYTES} shown"
    return f"blob({len(value)} bytes{cut}) base64:{base64.b64encode(data).decode('ascii')}"


#: Bytes of a blob printed (as base64) by `value_to_text`; the size is always printed whole.
BLOB_SHOWN_BYTES = 4096


def write_json(columns: list[str], rows: Iterator[list[Any]], out: TextIO) -> int:
    """A JSON array of objects, one per row keyed by column name, written row by row; returns the row count."""
    count = 0
    out.write("[")
    for row in rows:
        item = json.dumps(dict(zip(columns, map(value_to_text, row))), ensure_ascii=False, default=str)
        out.write(("," if count else "") + "\n  " + item)
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count


def write_csv(columns: list[str], rows: Iterator[list[Any]], out: TextIO) -> int:
    """A header line then one line per row, written row by row; returns the row count."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    count = 0
    for row in rows:
        writer.writerow([value_to_text(value) for value in row])
        count += 1
    return count


def result_to_json(result: QueryResult) -> str:
    """A JSON array of objects, one per row, keyed by column name."""
    buffer = io.StringIO()
    write_json(result.columns, iter(result.rows), buffer)
    return buffer.getvalue()


def result_to_csv(result: QueryResult) -> str:
    buffer = io.StringIO()
    write_csv(result.columns, iter(result.rows), buffer)
    return buffer.getvalue()
