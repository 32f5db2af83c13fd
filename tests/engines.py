"""Real database engines for the tests: a throw-away PostgreSQL server, and a `db_url` fixture
parametrised over SQLite and PostgreSQL so one behaviour test runs on both.

The server is Debian's `postgresql` package (installed by `./install.sh --dev`), started once
per test session with `initdb` + `pg_ctl` in a temporary directory. It listens on a unix
socket in that directory only (`listen_addresses=''`): no TCP port, so parallel sessions on
one machine never collide. PostgreSQL refuses to run as root, so under root the server runs
as the `postgres` system user the package creates (`runuser`). Each test gets a fresh
database (`CREATE DATABASE`), dropped with the server when the session ends.
Tests that need it skip, saying why, only when the PostgreSQL binaries or psycopg are missing.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

_counter = itertools.count()


def postgres_bindir() -> Path | None:
    """The newest `/usr/lib/postgresql/<version>/bin` holding initdb (Debian's layout), else PATH's."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_server_user(argv: list[str]) -> list[str]:
    """Run `argv` as `postgres` when we are root (PostgreSQL will not run as root)."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


class PostgresServer:
    """A running throw-away server; `url(name)` is an SQLAlchemy URL over its unix socket."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="ingest-pg-"))
        self.data = self.root / "data"
        self.user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        if os.geteuid() == 0:
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "postgres", "postgres")

    def start(self) -> None:
        run = lambda argv: subprocess.run(_as_server_user(argv), check=True, capture_output=True, text=True)  # noqa: E731
        run([str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.user, "-E", "UTF8",
             "--locale", "C", "--no-sync"])  # fmt: skip
        options = f"-k {self.root} -c listen_addresses='' -c fsync=off -c max_connections=50"
        run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w",
             "start"])  # fmt: skip

    def stop(self) -> None:
        subprocess.run(
            _as_server_user([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
        )
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{self.user}@/{database}?host={self.root}"

    def create_database(self, prefix: str = "t") -> str:
        """A new empty database; returns its URL."""
        import psycopg

        name = f"{prefix}_{os.getpid()}_{next(_counter)}"
        with psycopg.connect(host=str(self.root), user=self.user, dbname="postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def execute(self, sql: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(host=str(self.root), user=self.user, dbname=database, autocommit=True) as connection:
            connection.execute(sql)


@pytest.fixture(scope="session")
def postgres_server():
    """The session's PostgreSQL server (skips when the binaries or psycopg are missing)."""
    bindir = postgres_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL binaries not found (initdb); install them with ./install.sh --dev")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg not installed; pip install -e '.[dev]' (or '.[postgres]')")
    server = PostgresServer(bindir)
    try:
        server.start()
    except subprocess.CalledProcessError as error:
        server.stop()
        pytest.fail(f"cannot start PostgreSQL: {error.stderr or error.stdout}")
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """A fresh, empty PostgreSQL database for one test."""
    return postgres_server.create_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """`--db` for one test, once per engine: an SQLite file path, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "ingest.db")
    return request.getfixturevalue("postgres_server").create_database()
