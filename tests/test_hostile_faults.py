"""Database faults: each gives one `error: [store] ...` line and its exit code.

A corrupted file, a non-numeric schema version, a malformed URL, a read-only file, a full disk
(a 256 KiB tmpfs, when this process may mount one) and another application's database each end
with exit 4, no traceback and no lock row left behind. Read commands work in a read-only
folder and leave no `-wal`/`-shm` files; `ingest unlock` refuses while the holder lives.
"""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ingest.cli import app

sys.path.insert(0, str(Path(__file__).parent))
from test_hostile_inputs import SETPRIV, ingest_process  # noqa: E402
from test_pipeline import make_pdf  # noqa: E402

runner = CliRunner()
QUIET_RUN = ("--workers", "0", "--ocr", "never", "-q")
needs_setpriv = pytest.mark.skipif(
    os.geteuid() != 0 or SETPRIV is None, reason="needs root and setpriv to drop capabilities"
)


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, Path]:
    """(folder with one PDF, a database holding it)."""
    root = tmp_path_factory.mktemp("faults")
    make_pdf(root / "pdfs" / "manual.pdf", "Pest manual", ["Whitefly control with neem oil at 5 ml per litre."])
    db = root / "clean.db"
    result = runner.invoke(app, ["run", str(root / "pdfs"), "--db", str(db), *QUIET_RUN])
    assert result.exit_code == 0, result.output
    return root / "pdfs", db


def copy_of(db: Path, target: Path) -> Path:
    shutil.copy(db, target)
    return target


def document_id(db: Path) -> str:
    with sqlite3.connect(db) as connection:
        return connection.execute("select id from documents").fetchone()[0]


def lock_rows(db: Path) -> list:
    with sqlite3.connect(db) as connection:
        return connection.execute("select pid from run_lock").fetchall()


def assert_one_store_error(result, code: int = 4) -> str:
    text = result.stderr
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: [store] "), text
    return lines[0]


def test_a_corrupted_file_is_a_store_error(stored, tmp_path):
    pdfs, clean = stored
    db = copy_of(clean, tmp_path / "corrupt.db")
    with open(db, "r+b") as handle:  # the schema pages: every statement finds the damage
        handle.seek(100)
        handle.write(b"\xde\xad" * 2000)
    for args in (["run", str(pdfs), "--db", str(db), *QUIET_RUN], ["runs", "--db", str(db)]):
        line = assert_one_store_error(runner.invoke(app, args))
        assert "corrupted" in line and "backup" in line


def test_a_schema_version_that_is_not_a_number_is_refused(stored, tmp_path):
    pdfs, clean = stored
    db = copy_of(clean, tmp_path / "two.db")
    with sqlite3.connect(db) as connection:
        connection.execute("update meta set value = 'two' where key = 'schema_version'")
    for args in (["run", str(pdfs), "--db", str(db), *QUIET_RUN], ["show", document_id(clean), "--db", str(db)]):
        line = assert_one_store_error(runner.invoke(app, args))
        assert "'two'" in line
    assert lock_rows(db) == []


@pytest.mark.parametrize("command", ["run", "runs", "query"])
def test_a_malformed_url_is_a_store_error(stored, command):
    pdfs, _ = stored
    args = {"run": ["run", str(pdfs), *QUIET_RUN], "runs": ["runs"], "query": ["query", "select 1"]}[command]
    line = assert_one_store_error(runner.invoke(app, [*args, "--db", "sqlite://:::"]))
    assert "sqlite:///" in line  # says which forms are accepted


def test_another_applications_database_is_refused_and_left_alone(stored, tmp_path):
    pdfs, _ = stored
    db = tmp_path / "app.db"
    with sqlite3.connect(db) as connection:
        connection.execute("create table users (id integer primary key, name text)")
        connection.execute("insert into users (name) values ('ada')")
    line = assert_one_store_error(runner.invoke(app, ["run", str(pdfs), "--db", str(db), *QUIET_RUN]))
    assert "another application" in line and "users" in line
    with sqlite3.connect(db) as connection:
        assert [name for (name,) in connection.execute("select name from sqlite_master")] == ["users"]


@needs_setpriv
def test_a_read_only_database_file_is_a_store_error_and_leaves_no_lock(stored, tmp_path):
    pdfs, clean = stored
    db = copy_of(clean, tmp_path / "ro.db")
    os.chmod(db, 0o444)
    (pdfs / "manual.pdf").touch()  # changed mtime: the run wants to write
    result = ingest_process("run", str(pdfs), "--db", str(db), *QUIET_RUN, drop_caps=True)
    assert result.returncode == 4, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.startswith("error: [store] ")
    assert "read-only" in result.stderr
    assert lock_rows(db) == []


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    return done.returncode == 0


def test_a_full_disk_stops_the_run_with_a_store_error_and_releases_the_lock(tmp_path):
    from conftest import FIXTURES

    full = tmp_path / "full"
    if not _mount_tmpfs(full, "256k"):
        pytest.skip("cannot mount a small tmpfs here (needs root and CAP_SYS_ADMIN)")
    try:
        pdfs = tmp_path / "pdfs"
        pdfs.mkdir()
        for pdf in sorted(FIXTURES.glob("*.pdf")):  # ~1 MB of chunks: more than 256 KiB holds
            shutil.copy(pdf, pdfs / pdf.name)
        db = full / "ingest.db"
        result = runner.invoke(app, ["run", str(pdfs), "--db", str(db), *QUIET_RUN])
        line = assert_one_store_error(result)
        assert "disk" in line and "full" in line
        with sqlite3.connect(db) as connection:
            assert connection.execute("select count(*) from run_lock").fetchone() == (0,)
            assert connection.execute("select status from runs").fetchall() == [("interrupted",)]
    finally:
        subprocess.run(["umount", "--lazy", str(full)], check=False)  # lazy: a pooled handle may linger


@needs_setpriv
def test_read_commands_work_in_a_read_only_folder(stored, tmp_path):
    _, clean = stored
    folder = tmp_path / "archive"
    folder.mkdir()
    db = copy_of(clean, folder / "ingest.db")
    os.chmod(db, 0o444)
    os.chmod(folder, 0o555)
    try:
        query = ingest_process("query", "select count(*) from chunks", "--db", str(db), "-f", "csv", drop_caps=True)
        assert query.returncode == 0, query.stderr
        assert int(query.stdout.splitlines()[1]) > 0
        runs = ingest_process("runs", "--db", str(db), "--json", drop_caps=True)
        assert runs.returncode == 0 and '"status": "ok"' in runs.stdout, runs.stderr
        show = ingest_process("show", document_id(clean), "--db", str(db), "--json", drop_caps=True)
        assert show.returncode == 0 and "Whitefly" in show.stdout, show.stderr
        assert sorted(os.listdir(folder)) == ["ingest.db"]
    finally:
        os.chmod(folder, 0o755)


@pytest.mark.parametrize("command", [["query", "select count(*) from chunks"], ["runs"], ["show"]])
def test_read_commands_leave_no_wal_files_next_to_a_clean_database(stored, tmp_path, command):
    _, clean = stored
    db = copy_of(clean, tmp_path / "clean.db")
    if command == ["show"]:
        command = ["show", document_id(clean)]
    result = runner.invoke(app, [*command, "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert sorted(os.listdir(tmp_path)) == ["clean.db"]


def test_unlock_refuses_while_the_holder_is_alive_on_this_host(stored, tmp_path):
    from ingest.contracts.processes import process_start_time

    _, clean = stored
    db = copy_of(clean, tmp_path / "locked.db")
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with sqlite3.connect(db) as connection:
            connection.execute(
                "insert into run_lock (id, pid, hostname, process_start, run_id, acquired_at) "
                "values (1, ?, ?, ?, 1, ?)",
                (holder.pid, socket.gethostname(), process_start_time(holder.pid), "2026-01-01T00:00:00Z"),
            )
        refused = runner.invoke(app, ["unlock", "--db", str(db)])
        assert refused.exit_code == 3, refused.output
        assert str(holder.pid) in refused.stderr and "alive" in refused.stderr
        assert lock_rows(db) == [(holder.pid,)]
    finally:
        holder.kill()
        holder.wait()
    cleared = runner.invoke(app, ["unlock", "--db", str(db)])  # the holder is gone: cleared
    assert cleared.exit_code == 0 and str(holder.pid) in cleared.stdout
    assert lock_rows(db) == []
