"""kill -9 during a run, at several points: the database must hold every document at its old
or its new version, never a mix, and the next run must finish the job.

Each document exists in two versions (A, B) whose stored form is known from a reference run.
The folder is ingested at A, switched to B, and a run in a subprocess is killed (SIGKILL to its
whole process group, workers included) while it writes. Every stored document must then match
the reference of A or of B exactly (content hash, text, chunk count and chunk texts).
The kill tests run on SQLite and on PostgreSQL (`db_url`, tests/engines.py); the reference is
built on SQLite, so on PostgreSQL the stored form must also equal SQLite's.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ingest.api import run as ingest_run
from ingest.cli import app
from ingest.contracts.errors import QueryError, StorageError
from storage import run_query

sys.path.insert(0, str(Path(__file__).parent))
from conftest import CORPUS
from test_pipeline import make_pdf  # noqa: E402

N_DOCUMENTS = 12


def version_text(index: int, version: str) -> list[str]:
    words = f"Document {index} version {version} describes pest number {index} and its control. "
    return [words * 6 for _ in range(12)]


def write_version(folder: Path, version: str) -> None:
    for index in range(N_DOCUMENTS):
        make_pdf(folder / f"doc{index}.pdf", f"Manual {index}", version_text(index, version))


def snapshot(db: str | Path) -> dict[str, tuple]:
    """doc_id -> (content_sha256, text, chunk_count, chunk texts digest, chunks, elements) per stored
    document, read through `ingest query`'s read-only path (either engine)."""
    documents = run_query(str(db), "select id, content_sha256, text, chunk_count from documents where status = 'ok'")
    texts: dict[str, list[str]] = {}
    for doc_id, text in run_query(str(db), "select document_id, text from chunks order by document_id, seq").rows:
        texts.setdefault(doc_id, []).append(text)
    elements = dict(run_query(str(db), "select document_id, count(*) from elements group by document_id").rows)
    result = {}
    for doc_id, sha, text, count in documents.rows:
        chunks = texts.get(doc_id, [])
        digest = hashlib.sha256("\x00".join(chunks).encode()).hexdigest()
        result[doc_id] = (sha, text, count, digest, len(chunks), elements.get(doc_id, 0))
    return result


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """sha -> stored form, for both versions of every document."""
    root = tmp_path_factory.mktemp("reference")
    by_sha = {}
    for version in ("A", "B"):
        folder = root / version
        write_version(folder, version)
        db = root / f"{version}.db"
        summary = ingest_run([folder], db=str(db), workers=0, ocr="never")
        assert not summary.failed
        by_sha.update({sha: rest for sha, *rest in snapshot(db).values()})
    return by_sha


#: Advisory locks held on this PostgreSQL database (by any session; the server drops a dead one's).
ADVISORY_LOCKS_HERE = (
    "select count(*) from pg_locks where locktype = 'advisory' "
    "and database = (select oid from pg_database where datname = current_database())"
)


def is_postgresql(db: str | Path) -> bool:
    return str(db).startswith("postgresql")


def check_consistent(db: str | Path, reference: dict, allowed: dict[str, set[str]]) -> dict[str, str]:
    """Assert the invariants; returns doc_id -> the sha it is stored at."""
    if not is_postgresql(db):  # the file and its FTS5 index (PostgreSQL's tsvector is a generated column)
        with closing(sqlite3.connect(db)) as connection, connection:
            assert connection.execute("pragma integrity_check").fetchone() == ("ok",)
            connection.execute("insert into chunks_fts(chunks_fts, rank) values ('integrity-check', 1)")
    [[orphans]] = run_query(
        str(db),
        "select count(*) from documents d where exists (select 1 from elements e where e.document_id = d.id) "
        "and not exists (select 1 from chunks c where c.document_id = d.id)",
    ).rows
    assert orphans == 0, "a document has elements but no chunks"
    [[bad_parents]] = run_query(
        str(db),
        "select count(*) from chunks c join chunks p on p.id = c.parent_id where p.document_id != c.document_id",
    ).rows
    assert bad_parents == 0
    states = {}
    for doc_id, (sha, text, count, digest, chunks, elements) in snapshot(db).items():
        assert sha in allowed[doc_id], f"{doc_id} stored at an unexpected version"
        assert (text, count, digest, chunks, elements) == tuple(reference[sha]), f"{doc_id} mixes versions"
        states[doc_id] = sha
    return states


def start_run(folder: Path, db: str | Path, workers: int) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ingest.cli",
            "run",
            str(folder),
            "--db",
            str(db),
            "--workers",
            str(workers),
            "--ocr",
            "never",
            "-q",
        ],
        cwd=Path(__file__).resolve().parents[1],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def items_written(db: str | Path, run_id: int) -> int:
    try:
        sql = f"select count(*) from run_items where run_id = {int(run_id)} and outcome = 'changed'"
        return run_query(str(db), sql, timeout=5).rows[0][0]
    except (QueryError, StorageError):  # not created yet, or busy
        return 0


@pytest.mark.slow
@pytest.mark.parametrize(
    "kill_after_items, extra_delay, workers",
    [
        (0, 0.3, 0),  # during start-up / discovery
        (1, 0.0, 0),  # right after the first document's commit
        (3, 0.05, 0),  # a moment later: likely inside a write
        (2, 0.0, 2),  # with worker processes in flight
    ],
)
def test_kill_9_leaves_old_or_new_version_and_next_run_finishes(
    db_url, tmp_path, reference, kill_after_items, extra_delay, workers
):
    folder = tmp_path / "pdfs"
    write_version(folder, "A")
    db = db_url
    assert not ingest_run([folder], db=db, workers=0, ocr="never").failed
    version_a = {doc_id: sha for doc_id, (sha, *_rest) in snapshot(db).items()}
    write_version(folder, "B")
    version_b = {
        doc_id: hashlib.sha256((folder / Path(path).name).read_bytes()).hexdigest()
        for doc_id, path in run_query(db, "select id, source_path from documents").rows
    }
    allowed = {doc_id: {version_a[doc_id], version_b[doc_id]} for doc_id in version_a}

    process = start_run(folder, db, workers)
    deadline = time.monotonic() + 60
    while kill_after_items and items_written(db, 2) < kill_after_items and time.monotonic() < deadline:
        if process.poll() is not None:
            break
        time.sleep(0.01)
    time.sleep(extra_delay)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, (
        f"the run ended by itself (exit {process.returncode}) before it could be killed: {process.stderr.read()}"
    )

    states = check_consistent(db, reference, allowed)
    assert len(states) == N_DOCUMENTS
    done = sum(states[doc_id] == version_b[doc_id] for doc_id in states)
    assert done >= kill_after_items

    summary = ingest_run([folder], db=db, workers=0, ocr="never")  # the next run finishes the job
    assert not summary.failed and summary.counts["changed"] == N_DOCUMENTS - done
    states = check_consistent(db, reference, allowed)
    assert states == version_b
    statuses = [row[0] for row in run_query(db, "select status from runs order by id").rows]
    assert statuses[0] == "ok" and statuses[-1] == "ok"
    if kill_after_items:  # the killed run had started: it is closed as interrupted
        assert statuses == ["ok", "interrupted", "ok"]
    assert run_query(db, "select count(*) from run_lock").rows == [[0]]
    if is_postgresql(db):  # the killed run's session, and its advisory locks, are gone
        assert run_query(db, ADVISORY_LOCKS_HERE).rows == [[0]]


@pytest.mark.slow
def test_second_concurrent_run_is_refused(tmp_path):
    folder = tmp_path / "pdfs"
    for index in range(40):  # enough work (~5 s) that the first run is still going
        make_pdf(folder / f"doc{index}.pdf", f"Manual {index}", version_text(index, "A"))
    db = tmp_path / "i.db"
    first = start_run(folder, db, 0)
    try:
        deadline = time.monotonic() + 30
        while not lock_held(db) and time.monotonic() < deadline:
            time.sleep(0.02)
        # the second run: in this process (no start-up delay), against the live first one
        second = CliRunner().invoke(
            app, ["run", str(folder), "--db", str(db), "--workers", "0", "--ocr", "never", "-q", "--force"]
        )
        assert first.poll() is None, "the first run ended before the second started; slow it down"
        assert second.exit_code == 3, second.output
        assert f"another ingest process (pid {first.pid}" in second.stderr
    finally:
        first.wait(timeout=120)
    assert first.returncode == 0
    assert len(snapshot(db)) == 40


def lock_held(db: Path) -> bool:
    if not db.exists():
        return False
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as connection:
            return connection.execute("select count(*) from run_lock").fetchone()[0] > 0
    except sqlite3.Error:
        return False


def test_reference_has_two_distinct_versions_of_every_document(reference):
    assert len(reference) == 2 * N_DOCUMENTS


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, from /proc (Linux)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.skipif(not (CORPUS / "chelsea_pdta.pdf").is_file(), reason="../shared/corpus not present")
def test_workers_stop_when_the_run_is_killed(tmp_path):
    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "long.pdf").write_bytes((CORPUS / "chelsea_pdta.pdf").read_bytes())  # ~40 s of parsing
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ingest.cli",
            "run",
            str(folder),
            "--db",
            str(tmp_path / "i.db"),
            "--workers",
            "1",
            "--ocr",
            "never",
            "-q",
        ],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        # one document on one worker: the worker is forked from the run itself (no forkserver)
        while not descendants(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)
        workers = descendants(process.pid)
        assert workers, "no worker process started"
        process.kill()  # kill -9 of the main process only
        process.wait()
        deadline = time.monotonic() + 15
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(alive(pid) for pid in workers), "orphaned workers kept running"
    finally:
        for pid in descendants(process.pid) if process.poll() is None else ():
            os.kill(pid, signal.SIGKILL)
