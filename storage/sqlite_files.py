"""Where the database is, and reading an SQLite file without writing anything next to it.

Imports the standard library only (no SQLAlchemy): `ingest query` on a file path needs
nothing else, so it starts in a fraction of the time.

Read-only opens (`connect_readonly`): `mode=ro`, so the file itself cannot be written. Two
cases need more, because SQLite's WAL mode keeps a `-wal` and a `-shm` file beside the
database and a read-only connection can neither create them in a read-only folder nor
remove them when it closes:

- a folder this process cannot write (read-only media, a shared archive) and no `-wal`
  file: `immutable=1`, so SQLite reads the file alone and needs no lock or side files. No
  writer can be at work there (it would need the folder to create its `-wal`).
- a writable folder: SQLite creates `-wal`/`-shm` for the read-only connection and leaves
  them. `tidy_side_files` removes them after the last read when this open created them, the
  way SQLite itself does when a read-write connection closes: it opens the file once more
  without `mode=ro`, reads the schema cookie and closes; SQLite deletes the side files only if
  no other connection uses the database (a running `ingest run` keeps them).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ingest.contracts.errors import StorageError

#: How long a connection waits for a lock before "database is locked" (ms).
BUSY_TIMEOUT_MS = 30_000

#: The side files SQLite's WAL mode keeps next to the database.
SIDE_SUFFIXES = ("-wal", "-shm")


def database_url(db: str | os.PathLike) -> str:
    """A file path becomes `sqlite:///<absolute path>`; anything with `://` is taken as an SQLAlchemy URL
    (checked here: a malformed one is a StorageError naming the accepted forms)."""
    value = os.fspath(db)
    if "://" not in value:
        return f"sqlite:///{Path(value).expanduser().resolve()}"
    scheme, rest = value.split("://", 1)
    if scheme.split("+")[0] == "sqlite":
        if rest and not rest.startswith("/"):
            raise StorageError(
                f"--db {value!r} is not a valid SQLite URL: SQLite URLs have no host; use a file path, "
                "sqlite:///relative/path.db or sqlite:////absolute/path.db"
            )
        return value
    from sqlalchemy.engine import make_url  # only for other databases
    from sqlalchemy.exc import ArgumentError

    try:
        make_url(value)
    except (ArgumentError, ValueError) as error:
        raise StorageError(f"--db {value!r} is not a valid SQLAlchemy URL: {error}") from error
    return value


def sqlite_path(url: str) -> str | None:
    """The file of an SQLite URL from `database_url` (None: not SQLite, or in memory)."""
    scheme, _, rest = url.partition("://")
    if scheme.split("+")[0] != "sqlite":
        return None
    path = rest[1:].split("?", 1)[0] if rest.startswith("/") else ""
    return path if path and path != ":memory:" else None


def is_sqlite_url(url: str) -> bool:
    return url.partition("://")[0].split("+")[0] == "sqlite"


def _needs_immutable(path: Path) -> bool:
    """The folder cannot be written and no `-wal` holds pages the file lacks."""
    wal = Path(f"{path}-wal")
    return not os.access(path.parent, os.W_OK) and not (wal.exists() and wal.stat().st_size > 0)


def readonly_uri(path: str) -> str:
    """The `file:` URI of a read-only open of `path` (`immutable=1` in a folder that cannot be written)."""
    resolved = Path(path).resolve()
    return resolved.as_uri() + ("?mode=ro&immutable=1" if _needs_immutable(resolved) else "?mode=ro")


def missing_side_files(path: str) -> list[Path]:
    """The WAL side files that do not exist yet (call before opening; pass to `tidy_side_files`)."""
    return [Path(f"{path}{suffix}") for suffix in SIDE_SUFFIXES if not Path(f"{path}{suffix}").exists()]


def connect_readonly(path: str) -> sqlite3.Connection:
    """A connection that cannot write `path` (mode=ro, `PRAGMA query_only`). StorageError when there
    is no such file or it cannot be opened."""
    if not Path(path).exists():
        raise StorageError(f"no database at {path}; run `ingest run PATH... --db {path}` first", path=path)
    try:
        connection = sqlite3.connect(
            readonly_uri(path), uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        connection.execute("PRAGMA query_only = ON")
    except sqlite3.Error as error:
        raise StorageError(f"cannot open {path} read-only: {error}", path=path) from error
    return connection


def tidy_side_files(path: str, created: list[Path]) -> None:
    """Remove the `-wal`/`-shm` files a read-only open created (`created`: `missing_side_files` taken
    before it). Leaves them when the `-wal` holds data or another connection still uses the file."""
    if not any(side.exists() for side in created) or not os.access(Path(path).parent, os.W_OK):
        return
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        return
    try:
        connection = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=rw", uri=True, timeout=0.1)
        try:
            connection.execute("PRAGMA schema_version").fetchone()
        finally:
            connection.close()  # the last connection of a WAL database removes -wal and -shm
    except (sqlite3.Error, OSError):
        pass  # a busy or unwritable file keeps its side files; nothing is lost
