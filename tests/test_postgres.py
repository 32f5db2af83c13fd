"""What only PostgreSQL has: the tsvector index, the per-folder advisory locks (two writers),
the read-only query's server-side guards, and the read-only role docs/scaling.md tells users to
create. Against a real server (tests/engines.py); the shared behaviour is in test_engines.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from test_pipeline import make_pdf
from typer.testing import CliRunner

from ingest.cli import app
from ingest.contracts.errors import QueryError
from storage import SCHEMA_VERSION, open_database, run_query
from storage.postgres import path_lock_plan, search_chunks
from storage.runs import run_lock

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def run(folder: Path, db: str, *extra: str):
    return runner.invoke(app, ["run", str(folder), "--db", db, "--workers", "0", "--ocr", "never", "-q", *extra])


def test_schema_is_versioned_and_search_is_a_generated_tsvector_with_a_gin_index(postgres_url, tmp_path):
    make_pdf(tmp_path / "a" / "cotton.pdf", "Cotton manual", ["Whitefly is controlled by spraying neem oil."])
    assert run(tmp_path / "a", postgres_url).exit_code == 0
    assert run_query(postgres_url, "select value from meta where key = 'schema_version'").rows == [
        [str(SCHEMA_VERSION)]
    ]
    [[generated, kind]] = run_query(
        postgres_url,
        "select is_generated, data_type from information_schema.columns "
        "where table_name = 'chunks' and column_name = 'search_vector'",
    ).rows
    assert (generated, kind) == ("ALWAYS", "tsvector")
    assert (
        "gin"
        in run_query(postgres_url, "select indexdef from pg_indexes where indexname = 'ix_chunks_search_vector'")
        .rows[0][0]
        .lower()
    )
    with open_database(postgres_url) as database, database.reader() as session:
        # English chunks are stemmed ("sprayed" finds "spraying"); the simple configuration finds exact words
        assert search_chunks(session, "sprayed")
        assert search_chunks(session, "whitefly")
        assert not search_chunks(session, "planthopper")
    open_database(postgres_url).close()  # opening again neither recreates nor migrates


def test_search_on_postgresql_runs_read_only_and_vectors_say_to_use_bm25(postgres_url, tmp_path):
    make_pdf(tmp_path / "a" / "cotton.pdf", "Cotton manual", ["Whitefly is controlled by spraying neem oil."])
    assert run(tmp_path / "a", postgres_url).exit_code == 0
    found = runner.invoke(app, ["search", "--db", postgres_url, "--format", "json", "sprayed whiteflies"])
    assert found.exit_code == 0, found.output
    assert "neem oil" in found.stdout  # English chunks are stemmed: "sprayed" finds "spraying"

    for option in ("--vector", "--hybrid"):
        refused = runner.invoke(app, ["search", "--db", postgres_url, option, "whitefly"])
        assert refused.exit_code == 2
        assert "sqlite-vec" in refused.output and "on PostgreSQL search with BM25" in refused.output
        assert "Traceback" not in refused.output

    before = run_query(postgres_url, "select last_value from chunks_id_seq").rows
    writing = runner.invoke(
        app, ["search", "--db", postgres_url, "--where", "nextval('chunks_id_seq') > 0", "whitefly"]
    )
    assert writing.exit_code != 0 and "read-only transaction" in writing.output
    assert run_query(postgres_url, "select last_value from chunks_id_seq").rows == before


@pytest.mark.parametrize(
    "sql",
    [
        "set transaction read write",
        "select 1; commit; delete from chunks",
        "do $$ begin delete from chunks; end $$",
        "select nextval('chunks_id_seq')",
        "create index ix_t on chunks (seq)",
    ],
)
def test_query_refuses_postgresql_escapes(postgres_url, tmp_path, sql):
    make_pdf(tmp_path / "a" / "cotton.pdf", "Cotton manual", ["Whitefly."])
    assert run(tmp_path / "a", postgres_url).exit_code == 0
    before = run_query(postgres_url, "select id, text from chunks order by id").rows
    with pytest.raises(QueryError):
        run_query(postgres_url, sql)
    assert run_query(postgres_url, "select id, text from chunks order by id").rows == before
    assert run_query(postgres_url, "select count(*) from pg_indexes where indexname = 'ix_t'").rows == [[0]]


def test_query_is_stopped_by_the_statement_timeout(postgres_url):
    open_database(postgres_url).close()
    with pytest.raises(QueryError, match="statement_timeout"):
        run_query(postgres_url, "select pg_sleep(60)", timeout=0.2)


def test_read_only_role_from_the_docs_reads_and_cannot_write(postgres_server, postgres_url, tmp_path):
    make_pdf(tmp_path / "a" / "cotton.pdf", "Cotton manual", ["Whitefly."])
    assert run(tmp_path / "a", postgres_url).exit_code == 0
    database = make_url(postgres_url).database
    docs = (ROOT / "docs" / "scaling.md").read_text()
    [block] = [part.split("```", 1)[0] for part in docs.split("```sql\n")[1:] if "CREATE ROLE" in part]
    for statement in filter(None, (part.strip() for part in block.split(";"))):
        postgres_server.execute(statement.replace("ingest_db", database).replace("'change-me'", "'secret'"), database)
    as_reader = postgres_url.replace(f"{postgres_server.user}@", "rag_reader:secret@")
    assert run_query(as_reader, "select count(*) from chunks").rows[0][0] > 0
    with pytest.raises(QueryError, match="refused"):
        run_query(as_reader, "delete from chunks")
    import psycopg

    host = str(postgres_server.root)
    with psycopg.connect(host=host, user="rag_reader", password="secret", dbname=database, autocommit=True) as c:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            c.execute("delete from chunks")  # even outside `ingest query`: its sessions are read-only
        c.execute("set default_transaction_read_only = off")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            c.execute("delete from chunks")  # and with that undone, it has no right to write


def test_path_locks_conflict_exactly_for_nested_paths():
    a, a_sub, b = path_lock_plan(["/d/a"]), path_lock_plan(["/d/a/sub"]), path_lock_plan(["/d/b"])

    def conflict(first, second):
        return bool(first[0] & (second[0] | second[1]) or second[0] & (first[0] | first[1]))

    assert conflict(a, a_sub) and conflict(a_sub, a) and conflict(a, a)
    assert not conflict(a, b) and not conflict(a_sub, b)


def test_run_over_a_folder_being_written_is_refused_and_a_sibling_folder_runs(postgres_url, tmp_path):
    for name in ("a", "b"):
        make_pdf(tmp_path / "pdfs" / name / f"{name}.pdf", f"Manual {name}", [f"Text of {name}."])
    database = open_database(postgres_url)
    with run_lock(database, "run", [str((tmp_path / "pdfs" / "a").resolve())], None, "test") as holder:
        for overlapping in (tmp_path / "pdfs", tmp_path / "pdfs" / "a"):
            result = run(overlapping, postgres_url)
            assert result.exit_code == 3, result.output
            assert f"run {holder}" in result.stderr and "wait for it" in result.stderr
        assert run(tmp_path / "pdfs" / "b", postgres_url).exit_code == 0
    database.close()
    assert run(tmp_path / "pdfs", postgres_url).exit_code == 0
    statuses = run_query(postgres_url, "select status, count(*) from runs group by status order by 1").rows
    # the holder never called finish_run: the next run found its row `running` with no live lock
    assert statuses == [["interrupted", 1], ["ok", 2]]


def test_two_processes_over_two_folders_write_side_by_side_without_duplicates(postgres_url, tmp_path):
    folders = []
    for name in ("north", "south"):
        folder = tmp_path / name
        for index in range(3):
            make_pdf(folder / f"{name}{index}.pdf", f"{name} {index}", [f"Advice {index} for the {name} region."])
        folders.append(folder)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ingest.cli", "run", "--db", postgres_url, "--workers", "1", "--ocr", "never"]
    processes = [subprocess.Popen([*command, "-q", str(folder)], env=env, stderr=subprocess.PIPE) for folder in folders]
    for process in processes:
        _out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err.decode()
    assert run_query(postgres_url, "select count(*), count(distinct source_path) from documents").rows == [[6, 6]]
    assert run_query(postgres_url, "select status, new from runs order by id").rows == [["ok", 3], ["ok", 3]]
    per_document = run_query(
        postgres_url,
        "select d.chunk_count, count(c.id) from documents d left join chunks c on c.document_id = d.id group by d.id",
    ).rows
    assert all(stored == counted and counted > 0 for stored, counted in per_document)
    # and a second pass over both folders finds every file unchanged
    assert run(folders[0], postgres_url).exit_code == 0 and run(folders[1], postgres_url).exit_code == 0
    assert run_query(postgres_url, "select sum(unchanged) from runs where id > 2").rows == [[6]]


def test_a_killed_run_leaves_no_lock_and_is_closed_as_interrupted(postgres_server, postgres_url, tmp_path):
    folder = tmp_path / "pdfs"
    make_pdf(folder / "a.pdf", "A", ["Text."])
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from storage import open_database\nfrom storage.runs import run_lock\n"
            "from sqlalchemy import text\n"
            f"db = open_database({postgres_url!r})\n"
            f"with run_lock(db, 'run', [{str(folder.resolve())!r}], None, 'test') as run_id:\n"
            "    print(run_id, flush=True)\n"
            "    time.sleep(600)\n",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    run_id = int(holder.stdout.readline())
    assert run(folder, postgres_url).exit_code == 3
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    # the server ends the dead client's sessions when it sees their sockets close; wait for that
    with open_database(postgres_url) as database, database.reader() as session:
        for _ in range(600):
            others = session.execute(
                text("select count(*) from pg_locks where locktype = 'advisory' and pid <> pg_backend_pid()")
            ).scalar()
            session.rollback()
            if not others:
                break
            time.sleep(0.1)
    assert run(folder, postgres_url).exit_code == 0
    assert run_query(postgres_url, f"select status from runs where id = {run_id}").rows == [["interrupted"]]
