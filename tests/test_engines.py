"""The batch's behaviour on every engine: each test runs on SQLite and on a real PostgreSQL
(`db_url`, tests/engines.py), so the guarantees are written once and checked on both.

Covered here: new / unchanged / changed / removed, full text following a replacement, a failed
file staying failed until it changes, reprocess, `ingest query` refusing writes, and the CLI
(`run`, `reprocess`, `query`, `show`, `runs`, `eval`) printing the same on both engines.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from sqlalchemy import text
from test_pipeline import make_pdf
from typer.testing import CliRunner

from ingest.cli import app
from ingest.contracts.errors import QueryError
from storage import document_id_for, open_database, run_query
from storage.postgres import search_chunks

runner = CliRunner()


def ingest(*args: str):
    return runner.invoke(app, [*args])


def run(folder: Path, db: str, *extra: str):
    return ingest("run", str(folder), "--db", db, "--workers", "0", "--ocr", "never", "-q", *extra)


def rows(db: str, sql: str) -> list[list]:
    return run_query(db, sql).rows


def outcomes(db: str, run_id: int) -> dict[str, str]:
    found = rows(db, f"select source_path, outcome from run_items where run_id = {run_id}")
    return {Path(path).name: outcome for path, outcome in found}


def content(db: str) -> list:
    """What a reader sees of the documents (no run history), in a stable order."""
    return [
        rows(db, "select id, content_sha256, ingested_at, status, chunk_count, text from documents order by id"),
        rows(db, "select document_id, page_no, width, text_source from pages order by 1, 2"),
        rows(db, "select document_id, seq, type, text from elements order by 1, 2"),
        rows(db, "select id, document_id, seq, kind, text from chunks order by id"),
    ]


def fulltext(db: str, word: str) -> int:
    """How many chunks the engine's full-text index finds for `word`."""
    with open_database(db, create=False) as database, database.reader() as session:
        if database.is_postgresql:
            return len(search_chunks(session, word, limit=1000))
        return session.execute(text("select count(*) from chunks_fts where chunks_fts match :w"), {"w": word}).scalar()


@pytest.fixture
def folder(tmp_path) -> Path:
    root = tmp_path / "pdfs"
    make_pdf(root / "cotton.pdf", "Cotton manual", ["Whitefly is controlled by spraying neem oil at dusk."])
    make_pdf(root / "rice.pdf", "Rice manual", ["Stem borer damage is reduced by early transplanting."])
    make_pdf(root / "sub" / "wheat.pdf", "Wheat manual", ["Rust appears as orange pustules on the leaves."])
    return root


def test_run_stores_new_skips_unchanged_replaces_changed_and_marks_removed(db_url, folder, tmp_path):
    assert run(folder, db_url).exit_code == 0
    assert outcomes(db_url, 1) == {"cotton.pdf": "new", "rice.pdf": "new", "wheat.pdf": "new"}
    assert rows(db_url, "select count(*) from documents where status = 'ok' and chunk_count > 0") == [[3]]

    before = content(db_url)
    assert run(folder, db_url).exit_code == 0
    assert set(outcomes(db_url, 2).values()) == {"unchanged"}
    assert content(db_url) == before

    make_pdf(folder / "rice.pdf", "Rice manual", ["Brown planthopper needs resistant varieties."])
    assert run(folder, db_url).exit_code == 0
    assert outcomes(db_url, 3) == {"cotton.pdf": "unchanged", "rice.pdf": "changed", "wheat.pdf": "unchanged"}
    assert fulltext(db_url, "borer") == 0 and fulltext(db_url, "planthopper") >= 1
    rice = document_id_for(str(folder / "rice.pdf"))
    assert rows(db_url, f"select count(*) from documents where id = '{rice}'") == [[1]]

    wheat = document_id_for(str(folder / "sub" / "wheat.pdf"))
    shutil.move(folder / "sub" / "wheat.pdf", tmp_path / "wheat.pdf")
    assert run(folder, db_url).exit_code == 0
    assert outcomes(db_url, 4)["wheat.pdf"] == "removed"
    assert rows(db_url, f"select status, chunk_count from documents where id = '{wheat}'") == [["removed", 0]]
    for table in ("chunks", "elements", "pages"):
        assert rows(db_url, f"select count(*) from {table} where document_id = '{wheat}'") == [[0]]
    assert fulltext(db_url, "pustules") == 0


def test_failed_file_stays_failed_without_retry_until_it_changes(db_url, tmp_path):
    root = tmp_path / "pdfs"
    root.mkdir()
    (root / "bad.pdf").write_text("not a pdf")
    assert run(root, db_url).exit_code == 1
    assert run(root, db_url).exit_code == 1
    assert outcomes(db_url, 2) == {"bad.pdf": "still_failed"}
    make_pdf(root / "bad.pdf", "Fixed", ["Now a real PDF."])
    assert run(root, db_url).exit_code == 0
    assert outcomes(db_url, 3) == {"bad.pdf": "changed"}
    assert rows(db_url, "select status, error from documents") == [["ok", None]]


def test_reprocess_replaces_one_document_in_a_run_of_its_own(db_url, folder):
    assert run(folder, db_url).exit_code == 0
    doc_id = document_id_for(str(folder / "cotton.pdf"))
    [[count]] = rows(db_url, f"select chunk_count from documents where id = '{doc_id}'")
    result = ingest("reprocess", doc_id, "--db", db_url, "--ocr", "never")
    assert result.exit_code == 0, result.output
    assert f"chunks: {count} -> {count}" in result.stdout
    assert rows(db_url, "select command, status from runs order by id") == [["run", "ok"], ["reprocess", "ok"]]
    assert rows(db_url, "select outcome, chunks_before, chunks_after from run_items where run_id = 2") == [
        ["reprocessed", count, count]
    ]


#: Write attempts both engines must refuse (engine-specific ones: test_storage.py, test_postgres.py).
WRITES = [
    "insert into documents(id, source_path, status) values ('x', 'y', 'ok')",
    "update chunks set text = 'x'",
    "delete from chunks",
    "drop table chunks",
    "create table t(x integer)",
    "create temp table t(x integer)",
    "select 1; delete from chunks",
]


@pytest.mark.parametrize("sql", WRITES)
def test_query_refuses_writes_and_changes_nothing(db_url, folder, sql):
    assert run(folder, db_url).exit_code == 0
    before = content(db_url)
    with pytest.raises(QueryError, match="refused"):
        run_query(db_url, sql)
    assert content(db_url) == before
    assert rows(db_url, "select count(*) from chunks") == [[len(before[3])]]


# --- the same output on both engines ---------------------------------------------------------

_VOLATILE = [
    (re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+Z?"), "<time>"),  # timestamps
    (re.compile(r"\b\d+\.\d+( ?s)?\b"), "<secs>"),  # durations ("run 1: 0.4 s", the runs table's seconds)
    (re.compile(r"[ \t]+"), " "),  # table column widths follow the longest cell
    (re.compile(r"[─━]+"), "-"),
]


#: eval's CPU cost (the table's `chunk s/page`/`embed s/page` cells, three decimals; the JSON and
#: eval_runs `*_cpu_seconds`, whose quotes are escaped where a JSON column is printed as JSON):
#: measured, so never equal between two runs.
_CPU_COST = [
    (re.compile(r'(\\?"(?:chunk|embed)_cpu_seconds\\?": ?)[\d.e-]+'), r"\1<cpu>"),
    (re.compile(r"\b\d+\.\d{3}\b"), "<cpu>"),
]


def normalise(output: str, db: str, folder: Path, keep_numbers: bool = False) -> str:
    """Paths, times and table widths out; with `keep_numbers`, decimals stay (eval's scores are
    what must match) except its CPU cost."""
    output = output.replace(db, "<db>").replace(str(folder.resolve()), "<folder>")
    if keep_numbers:
        for pattern, replacement in _CPU_COST:
            output = pattern.sub(replacement, output)
    for pattern, replacement in _VOLATILE:
        if not (keep_numbers and replacement == "<secs>"):
            output = pattern.sub(replacement, output)
    return output


#: Golden questions over the `folder` fixture for `ingest eval` (one per document, one across all).
GOLDEN = [
    {"question": "How is whitefly controlled?", "must_contain": ["neem oil"], "doc": "cotton.pdf"},
    {"question": "What reduces stem borer damage?", "must_contain": ["early transplanting"], "doc": "rice"},
    {"question": "What does rust look like on wheat?", "must_contain": ["orange pustules"]},
    {"question": "When is cotton sown?", "must_contain": ["sown in June"], "doc": "cotton"},  # a miss
]


def session_outputs(db: str, folder: Path, golden: Path) -> list[str]:
    """The CLI's output for one session of work: run, run again, reprocess, query, show, runs, eval
    (then the eval_runs rows it stored)."""
    doc_id = document_id_for(str(folder / "cotton.pdf"))
    commands = [
        ["run", str(folder), "--db", db, "--workers", "0", "--ocr", "never", "-q"],
        ["run", str(folder), "--db", db, "--workers", "0", "--ocr", "never", "-q"],
        ["reprocess", doc_id, "--db", db, "--ocr", "never"],
        ["query", "select id, title, page_count, chunk_count, metadata from documents order by id", "--db", db],
        ["query", "select document_id, seq, kind, heading_path, token_count from chunks order by 1, 3", "--db", db],
        ["query", "select id, title from documents order by id", "--db", db, "--format", "json"],
        ["show", doc_id, "--db", db],
        ["runs", "--db", db],
        ["eval", str(golden), "--db", db],
        ["eval", str(golden), "--db", db, "--strategies", "structure", "--k", "1,4", "--format", "json"],
        # As JSON: a table wraps the long `results` cell wherever the line fills, which can put a
        # CPU figure at the start of a line, away from its key.
        [
            "query",
            "select id, golden_path, strategy, params, results from eval_runs order by 1",
            "-f",
            "json",
            "--db",
            db,
        ],
    ]
    outputs = []
    for command in commands:
        result = runner.invoke(app, command, env={"COLUMNS": "200"})
        shown = normalise(result.output, db, folder, keep_numbers="eval" in command or "eval_runs" in command[1])
        outputs.append(f"$ {' '.join(command[:2])}\nexit {result.exit_code}\n{shown}")
    return outputs


def test_cli_prints_the_same_on_sqlite_and_postgresql(postgres_server, folder, tmp_path):
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps(item) + "\n" for item in GOLDEN))
    on_sqlite = session_outputs(str(tmp_path / "ingest.db"), folder, golden)
    on_postgresql = session_outputs(postgres_server.create_database(), folder, golden)
    for sqlite_output, postgresql_output in zip(on_sqlite, on_postgresql):
        assert postgresql_output == sqlite_output
    assert all("exit 0" in output for output in on_sqlite)
