"""Opening the database: path or URL, SQLite pragmas (WAL, busy timeout), schema creation and version check.

`--db` takes a file path (default `./ingest.db`) or an SQLAlchemy URL. SQLite files are
opened in WAL mode so readers (`ingest query`) never block the writer, with a busy timeout
so a short lock wait is not an error. A file written by another schema version is migrated
when a step is known, otherwise refused with `SchemaVersionError` before anything is written.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from sqlalchemy import Engine, create_engine, event, inspect, select, text
from sqlalchemy.exc import DatabaseError, IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from ingest.contracts.errors import SchemaVersionError, StorageError
from ingest.contracts.files import DEFAULT_DB
from storage.migrate_search import migrate_search_index_and_twin_parents, migrate_searched_headings
from storage.postgres import create_search_vector, lock_schema
from storage.schema import FTS_DDL, SCHEMA_VERSION, Base, Meta, views_ddl
from storage.sqlite_files import (
    BUSY_TIMEOUT_MS,
    connect_readonly,
    database_url,
    is_sqlite_url,
    missing_side_files,
    sqlite_path,
    tidy_side_files,
)

__all__ = ["BUSY_TIMEOUT_MS", "DEFAULT_DB", "Database", "database_url", "open_database", "storage_error", "utc_now"]


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _json_dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass
class Database:
    """An open database: the engine and a session factory. Build with `open_database`."""

    url: str
    engine: Engine
    sessions: sessionmaker[Session]
    write_sessions: sessionmaker[Session]
    read_only: bool = False
    #: WAL side files a read-only open created, removed again on close (`tidy_side_files`).
    created_side_files: tuple[Path, ...] = ()

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @property
    def is_postgresql(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    @property
    def sqlite_path(self) -> str | None:
        return sqlite_path(self.url)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One write transaction (BEGIN IMMEDIATE on SQLite): committed when the block ends,
        rolled back on any exception. A full disk, a read-only or corrupted file becomes a
        StorageError (`storage_error`): every later write would fail the same way."""
        try:
            with self.write_sessions() as session, session.begin():
                yield session
        except (OperationalError, DatabaseError) as error:
            raise storage_error(error, self.sqlite_path or self.url) from error

    @contextmanager
    def reader(self) -> Iterator[Session]:
        """A session for reads; it never takes the write lock."""
        try:
            with self.sessions() as session:
                yield session
        except (OperationalError, DatabaseError) as error:
            raise storage_error(error, self.sqlite_path or self.url) from error

    def close(self) -> None:
        self.engine.dispose()
        if self.created_side_files and self.sqlite_path:
            tidy_side_files(self.sqlite_path, list(self.created_side_files))

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


#: (words of SQLite's message, what it means for the operator and how to recover)
_FAULTS = (
    (
        ("database or disk is full", "disk i/o error"),
        "the disk holding the database is full (or failing): the current transaction was rolled back and "
        "documents stored before it are complete; free space and run again",
    ),
    (
        ("readonly database", "read-only"),
        "the database file or its folder is read-only for this user: nothing can be written; fix the "
        "permissions, or use another --db (read commands such as `ingest query` still work)",
    ),
    (
        ("malformed", "file is not a database", "file is encrypted"),
        "the database file is corrupted or is not an SQLite database; restore it from a backup or "
        "re-ingest into a new --db (`sqlite3 FILE 'pragma integrity_check'` shows the damage)",
    ),
    (
        ("unable to open database file",),
        "the database file cannot be opened (missing folder, no permission, or too many open files)",
    ),
)


def storage_error(error: Exception, where: str) -> Exception:
    """A StorageError naming the fault (full disk, read-only, corrupted, cannot open) for a database
    error; any other error (a constraint, a bad value: one document's problem) is returned as is."""
    if isinstance(error, IntegrityError):
        return error
    message = str(getattr(error, "orig", None) or error).splitlines()[0]
    lowered = message.lower()
    for words, meaning in _FAULTS:
        if any(word in lowered for word in words):
            return StorageError(f"{meaning} ({message})", path=where)
    return error


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    # Python's sqlite3 opens transactions lazily and lets SQLAlchemy drive them; BEGIN
    # IMMEDIATE for writers is issued in `_begin` below.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.close()


def _begin(connection) -> None:
    # A writer takes the write lock at BEGIN (IMMEDIATE), so two writers queue on
    # busy_timeout instead of one failing with "database is locked" half way through a
    # transaction; readers BEGIN deferred and never block the writer (WAL).
    immediate = connection.get_execution_options().get("immediate", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def open_database(db: str | os.PathLike = DEFAULT_DB, *, create: bool = True, read_only: bool = False) -> Database:
    """Open (and with `create`, create or migrate) the database at a path or URL.

    `read_only` (the read commands: show, runs, render, report): an SQLite file is opened with
    `mode=ro` (`connect_readonly`), so it works in a read-only folder and on read-only media and
    leaves no `-wal`/`-shm` files behind; the schema must already be this program's.
    Raises StorageError when the file cannot be opened, is not a database or belongs to another
    application, and SchemaVersionError when it was written by a schema this code cannot migrate.
    """
    url = database_url(db)
    is_sqlite = is_sqlite_url(url)
    path = sqlite_path(url)
    if path and not create and not Path(path).exists():
        raise StorageError(f"no database at {path}; run `ingest run PATH... --db {path}` first", path=path)
    created: list[Path] = []
    try:
        if path and read_only:
            created = missing_side_files(path)
            engine = create_engine("sqlite://", creator=lambda: connect_readonly(path), json_serializer=_json_dumps)
        else:
            if path:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url, json_serializer=_json_dumps)
    except StorageError:
        raise
    except Exception as error:  # a missing driver for a non-SQLite URL, a bad URL, a folder we cannot make
        raise StorageError(f"cannot open database {url}: {error}") from error
    if is_sqlite and not read_only:
        event.listen(engine, "connect", _sqlite_pragmas)
    if is_sqlite:
        event.listen(engine, "begin", _begin)
    database = Database(
        url=url,
        engine=engine,
        sessions=sessionmaker(engine, expire_on_commit=False),
        write_sessions=sessionmaker(engine.execution_options(immediate=True), expire_on_commit=False),
        read_only=read_only,
        created_side_files=tuple(created),
    )
    try:
        if create and not read_only:
            ensure_schema(database)
        else:
            check_schema_version(database)
    except (OperationalError, DatabaseError) as error:
        database.close()
        fault = storage_error(error, path or url)
        if isinstance(fault, StorageError):
            raise fault from error
        raise StorageError(f"cannot open database {url}: {error.orig}; is it an ingest database?") from error
    except Exception:
        database.close()
        raise
    return database


def stored_schema_version(database: Database) -> int | None:
    """The version recorded in `meta`, or None for an empty database (no tables at all).

    A database with tables but no `meta.schema_version` belongs to another application (or
    to nobody we know): SchemaVersionError, and nothing is added to it. So is a version that
    is not a number."""
    names = {name for name in inspect(database.engine).get_table_names() if not name.startswith("sqlite_")}
    value = None
    if "meta" in names:
        with database.sessions() as session:
            value = session.scalar(select(Meta.value).where(Meta.key == "schema_version"))
    if value is None:
        if names:
            shown = ", ".join(sorted(names)[:5]) + (", ..." if len(names) > 5 else "")
            raise SchemaVersionError(
                f"not an ingest database (not written by this tool): it holds {len(names)} table(s) of another "
                f"application ({shown}) and "
                "no ingest schema version; nothing was added to it: use another --db (a new file is created)",
                path=database.sqlite_path or database.url,
            )
        return None
    try:
        return int(value)
    except ValueError:
        raise SchemaVersionError(
            f"meta.schema_version is {value!r}, not a version number: the file was edited or not written by "
            "this tool; restore it from a backup or re-ingest into a new --db",
            path=database.sqlite_path or database.url,
        ) from None


def check_schema_version(database: Database) -> None:
    version = stored_schema_version(database)
    if version is None:
        raise StorageError(f"{database.url} is empty; run `ingest run` first", path=database.sqlite_path)
    if version != SCHEMA_VERSION:
        raise SchemaVersionError(_version_message(database, version), path=database.sqlite_path)


def _version_message(database: Database, version: int) -> str:
    if version > SCHEMA_VERSION:
        return (
            f"database schema version {version} is newer than this program's ({SCHEMA_VERSION}); "
            "upgrade pdf-ingest, or use another --db"
        )
    if all(step in MIGRATIONS for step in range(version, SCHEMA_VERSION)):
        return (
            f"database schema version {version} is older than {SCHEMA_VERSION}; any `ingest run` or "
            "`ingest reprocess` on it migrates it in place"
        )
    return (
        f"database schema version {version} is older than {SCHEMA_VERSION} and has no migration; "
        "re-ingest into a new --db file (the old file is left untouched)"
    )


def _add_pinned_settings(session: Session) -> None:
    """1 -> 2: `documents.pinned_settings` (NULL = none pinned, which is every document so far)."""
    session.execute(text("ALTER TABLE documents ADD COLUMN pinned_settings JSON"))


def _add_page_conservation(session: Session) -> None:
    """4 -> 5: the conservation counts of `pages` (NULL = not counted: parsed before they existed)."""
    for column, kind in (("text_chars", "INTEGER"), ("element_chars", "INTEGER"), ("lost_chars", "INTEGER")):
        session.execute(text(f"ALTER TABLE pages ADD COLUMN {column} {kind}"))
    session.execute(text("ALTER TABLE pages ADD COLUMN dropped JSON"))


def _add_chunk_context_view(session: Session) -> None:
    """3 -> 4: the `chunk_context` view for exports; no table changes, no data moved."""
    for statement in views_ddl(session.get_bind().dialect.name == "sqlite"):
        session.execute(text(statement))


#: stored schema version -> the function migrating a database from that version to the next one
#: (all steps in one transaction). The keys are the version numbers written in `meta`; they never
#: change, so a database of any earlier version migrates.
MIGRATIONS: dict[int, Callable[[Session], None]] = {
    1: _add_pinned_settings,  # settings pinned by `ingest reprocess`
    2: migrate_search_index_and_twin_parents,  # stemmed two-column chunks_fts, no twin parents
    3: _add_chunk_context_view,  # chunk + document + parent in one view
    4: _add_page_conservation,  # per-page text conservation counts and drops
    5: migrate_searched_headings,  # chunks_fts indexes a chunk's two innermost headings
}


def ensure_schema(database: Database) -> None:
    """Create the tables in an empty database, migrate a known older one, refuse anything else."""
    version = stored_schema_version(database)
    if version == SCHEMA_VERSION:
        return
    if version is not None:
        if version > SCHEMA_VERSION or any(v not in MIGRATIONS for v in range(version, SCHEMA_VERSION)):
            raise SchemaVersionError(_version_message(database, version), path=database.sqlite_path)
        with database.transaction() as session:
            if database.is_postgresql:
                lock_schema(session.connection())
            for step in range(version, SCHEMA_VERSION):
                MIGRATIONS[step](session)
            session.merge(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
        return
    # BEGIN IMMEDIATE: two processes opening a new file at once create the schema once.
    # PostgreSQL: a transaction-scoped advisory lock does the same.
    with database.engine.execution_options(immediate=True).begin() as connection:
        if database.is_postgresql:
            lock_schema(connection)
        if "meta" in inspect(connection).get_table_names():
            return
        Base.metadata.create_all(connection)
        if database.is_sqlite:
            for statement in FTS_DDL:
                connection.execute(text(statement))
        elif database.is_postgresql:
            create_search_vector(connection)
        for statement in views_ddl(database.is_sqlite):
            connection.execute(text(statement))
        connection.execute(
            Base.metadata.tables["meta"].insert(),
            [
                {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                {"key": "created_at", "value": utc_now()},
            ],
        )
