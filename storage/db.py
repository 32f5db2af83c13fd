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
from typing import Iterator

from sqlalchemy import Engine, create_engine, event, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from ingest.contracts.errors import SchemaVersionError, StorageError
from ingest.contracts.files import DEFAULT_DB
from storage.schema import FTS_DDL, SCHEMA_VERSION, Base, Meta

BUSY_TIMEOUT_MS = 30_000


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _json_dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def database_url(db: str | os.PathLike) -> str:
    """A file path becomes `sqlite:///<absolute path>`; anything with `://` is taken as an SQLAlchemy URL."""
    value = os.fspath(db)
    if "://" in value:
        try:
            make_url(value)
        except ArgumentError as error:
            raise StorageError(f"--db {value!r} is not a valid SQLAlchemy URL: {error}") from error
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


@dataclass
class Database:
    """An open database: the engine and a session factory. Build with `open_database`."""

    url: str
    engine: Engine
    sessions: sessionmaker[Session]
    write_sessions: sessionmaker[Session]

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @property
    def sqlite_path(self) -> str | None:
        return self.engine.url.database if self.is_sqlite else None

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One write transaction (BEGIN IMMEDIATE on SQLite): committed when the block ends,
        rolled back on any exception."""
        with self.write_sessions() as session, session.begin():
            yield session

    @contextmanager
    def reader(self) -> Iterator[Session]:
        """A session for reads; it never takes the write lock."""
        with self.sessions() as session:
            yield session

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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


def open_database(db: str | os.PathLike = DEFAULT_DB, *, create: bool = True) -> Database:
    """Open (and with `create`, create or migrate) the database at a path or URL.

    Raises StorageError when the file cannot be opened or is not a database, and
    SchemaVersionError when it was written by a schema this code cannot migrate.
    """
    url = database_url(db)
    is_sqlite = url.startswith("sqlite")
    if is_sqlite:
        path = make_url(url).database
        if path and not create and not Path(path).exists():
            raise StorageError(f"no database at {path}; run `ingest run PATH... --db {path}` first", path=path)
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        engine = create_engine(url, json_serializer=_json_dumps)
    except Exception as error:  # a missing driver for a non-SQLite URL, a bad URL
        raise StorageError(f"cannot open database {url}: {error}") from error
    if is_sqlite:
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _begin)
    database = Database(
        url=url,
        engine=engine,
        sessions=sessionmaker(engine, expire_on_commit=False),
        write_sessions=sessionmaker(engine.execution_options(immediate=True), expire_on_commit=False),
    )
    try:
        if create:
            ensure_schema(database)
        else:
            check_schema_version(database)
    except (OperationalError, DatabaseError) as error:
        engine.dispose()
        raise StorageError(f"cannot open database {url}: {error.orig}; is it an ingest database?") from error
    except Exception:
        engine.dispose()
        raise
    return database


def stored_schema_version(database: Database) -> int | None:
    """The version recorded in `meta`, or None for an empty database."""
    names = set(inspect(database.engine).get_table_names())
    if "meta" not in names:
        if names & {"documents", "chunks"}:
            raise SchemaVersionError(
                f"{database.url} has ingest-like tables but no schema version; it was not written by this "
                "tool: use another --db",
                path=database.sqlite_path,
            )
        return None
    with database.sessions() as session:
        value = session.scalar(select(Meta.value).where(Meta.key == "schema_version"))
    return int(value) if value is not None else None


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
    """2 -> 3: the conservation counts of `pages` (NULL = not counted: parsed before they existed)."""
    for column, kind in (("text_chars", "INTEGER"), ("element_chars", "INTEGER"), ("lost_chars", "INTEGER")):
        session.execute(text(f"ALTER TABLE pages ADD COLUMN {column} {kind}"))
    session.execute(text("ALTER TABLE pages ADD COLUMN dropped JSON"))


#: version -> function migrating a database from that version to the next one (one transaction).
MIGRATIONS: dict[int, object] = {1: _add_pinned_settings, 2: _add_page_conservation}


def ensure_schema(database: Database) -> None:
    """Create the tables in an empty database, migrate a known older one, refuse anything else."""
    version = stored_schema_version(database)
    if version == SCHEMA_VERSION:
        return
    if version is not None:
        if version > SCHEMA_VERSION or any(v not in MIGRATIONS for v in range(version, SCHEMA_VERSION)):
            raise SchemaVersionError(_version_message(database, version), path=database.sqlite_path)
        with database.transaction() as session:
            for step in range(version, SCHEMA_VERSION):
                MIGRATIONS[step](session)  # type: ignore[operator]
            session.merge(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
        return
    # BEGIN IMMEDIATE: two processes opening a new file at once create the schema once.
    with database.engine.execution_options(immediate=True).begin() as connection:
        if "meta" in inspect(connection).get_table_names():
            return
        Base.metadata.create_all(connection)
        if database.is_sqlite:
            for statement in FTS_DDL:
                connection.execute(text(statement))
        connection.execute(
            Base.metadata.tables["meta"].insert(),
            [
                {"key": "schema_version", "value": str(SCHEMA_VERSION)},
                {"key": "created_at", "value": utc_now()},
            ],
        )
