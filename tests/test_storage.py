"""Storage on hand-built documents and chunks: no PDF, no parser, no chunker."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from ingest.contracts.chunks import Chunk
from ingest.contracts.elements import Document, Element, ElementType, PageInfo
from ingest.contracts.errors import (
    ChunkingError,
    DocumentNotFoundError,
    QueryError,
    RunLockedError,
    SchemaVersionError,
    StorageError,
)
from ingest.contracts.processes import process_start_time
from storage import (
    DocumentInfo,
    document_id_for,
    find_document,
    load_chunks,
    load_document,
    mark_removed,
    open_database,
    run_query,
    save_document,
)
from storage.runs import acquire_lock, release_lock
from storage.schema import RunLockRow, RunRow


def make_document(path: str, body: str = "Whitefly is controlled with neem oil.") -> Document:
    elements = [
        Element(type=ElementType.header, text="Crop manual 2024", page=1, bbox=(10, 5, 200, 15)),
        Element(type=ElementType.title, text="Pests", page=1, heading_level=1, bbox=(10, 20, 100, 40)),
        Element(type=ElementType.paragraph, text=body, page=1, bbox=(10, 50, 300, 70)),
        Element(
            type=ElementType.table,
            text="Pest | Dose\nWhitefly | 2 ml/l",
            page=2,
            rows=[["Pest", "Dose"], ["Whitefly", "2 ml/l"]],
            header_rows=1,
            caption="Table 1",
            list_level=None,
        ),
        Element(type=ElementType.list_item, text="Spray at dusk", page=2, list_level=0, data={"marker": "-"}),
    ]
    return Document(
        source_path=path,
        content_sha256="a" * 64,
        size_bytes=123,
        page_count=2,
        pages=[
            PageInfo(page_no=1, width=595, height=842),
            PageInfo(page_no=2, width=595, height=842, text_source="ocr", ocr_confidence=91.5),
        ],
        elements=elements,
        metadata={"pdf": {"Title": "x"}},
        warnings=["page 2: OCR"],
    )


def make_chunks(document: Document, limit_breaker: bool = False) -> list[Chunk]:
    text = document.canonical_text()
    spans = [span for span in document.body_spans() if span]
    parent = Chunk(
        kind="parent",
        index=0,
        text="Pests\n\n" + text,
        body=text,
        heading_path=["Pests"],
        page_start=1,
        page_end=2,
        char_start=0,
        char_end=len(text),
        token_count=30,
        element_types=["paragraph"],
        element_indexes=[1, 2, 3, 4],
    )
    first = Chunk(
        kind="child",
        index=1,
        parent=0,
        text="Pests\n\n" + document.elements[2].text,
        body=document.elements[2].text,
        heading_path=["Pests"],
        page_start=1,
        page_end=1,
        char_start=spans[1][0],
        char_end=spans[1][1],
        token_count=9000 if limit_breaker else 8,
        element_types=["paragraph"],
        element_indexes=[2],
        metadata={"own": 1, "source": "chunk", **({"over_embedding_limit": True} if limit_breaker else {})},
    )
    second = Chunk(
        kind="child",
        index=2,
        parent=0,
        text="Pests\n\n" + document.elements[3].text,
        body=document.elements[3].text,
        heading_path=["Pests"],
        page_start=2,
        page_end=2,
        char_start=spans[2][0],
        char_end=spans[2][1],
        token_count=6,
        element_types=["table"],
        element_indexes=[3],
        language="en",
    )
    return [parent, first, second]


def info(**overrides) -> DocumentInfo:
    return DocumentInfo(
        **{"pipeline_version": "1", "metadata": {"doc_type": "manual", "source": "doc"}, "title": "Pests", **overrides}
    )


@pytest.fixture
def db(tmp_path):
    database = open_database(tmp_path / "t.db")
    yield database
    database.close()


def save(db, path, document=None, chunks=None, **overrides):
    document = document or make_document(path)
    chunks = chunks if chunks is not None else make_chunks(document)
    with db.transaction() as session:
        return save_document(session, document_id_for(path), document, chunks, info(**overrides))


def test_document_round_trips_exactly(db, tmp_path):
    path = str(tmp_path / "a.pdf")
    document = make_document(path)
    save(db, path, document)
    # metadata comes back as the pipeline stored it (enriched); the rest exactly as parsed,
    # including the parser's title (None here), not the display title "Pests"
    expected = document.model_copy(update={"metadata": info().metadata})
    assert load_document(db, document_id_for(path)) == expected


def test_chunks_round_trip_with_parents_and_merged_metadata(db, tmp_path):
    path = str(tmp_path / "a.pdf")
    document = make_document(path)
    chunks = make_chunks(document)
    save(db, path, document, chunks)
    loaded = load_chunks(db, document_id_for(path))
    assert [c.kind for c in loaded] == ["parent", "child", "child"]
    assert [c.parent for c in loaded] == [None, 0, 0]
    assert [c.body for c in loaded] == [c.body for c in chunks]
    # document metadata merged with the chunk's own; the chunk's keys win
    assert loaded[1].metadata == {"doc_type": "manual", "source": "chunk", "own": 1}
    assert loaded[2].metadata == {"doc_type": "manual", "source": "doc"}
    rows = run_query(
        db.sqlite_path, "select c.seq, p.seq from chunks c join chunks p on p.id = c.parent_id order by c.seq"
    ).rows
    assert rows == [[1, 0], [2, 0]]


def test_heading_path_stored_as_joined_text_and_json(db, tmp_path):
    save(db, str(tmp_path / "a.pdf"))
    rows = run_query(db.sqlite_path, "select heading_path, heading_path_json from chunks where seq = 1").rows
    assert rows == [["Pests", '["Pests"]']]


def test_replace_is_delete_then_insert_and_fts_follows(db, tmp_path):
    path = str(tmp_path / "a.pdf")
    assert save(db, path) == (0, 3)
    new = make_document(path, body="Aphids are controlled with soap.")
    assert save(db, path, new) == (3, 3)
    sql = "select count(*) from chunks_fts where chunks_fts match ?"
    assert run_query(db.sqlite_path, sql, ["whitefly"]).rows == [[2]]  # only the table chunks mention it now
    assert run_query(db.sqlite_path, sql, ["neem"]).rows == [[0]]
    assert run_query(db.sqlite_path, sql, ["aphids"]).rows == [[2]]
    assert run_query(db.sqlite_path, "select count(*) from chunks").rows == [[3]]
    with sqlite3.connect(db.sqlite_path) as connection:  # FTS index agrees with its content table
        connection.execute("insert into chunks_fts(chunks_fts, rank) values ('integrity-check', 1)")


def test_chunker_over_limit_flag_is_stored_in_its_column(db, tmp_path):
    path = str(tmp_path / "a.pdf")
    document = make_document(path)
    save(db, path, document, make_chunks(document, limit_breaker=True))
    rows = run_query(db.sqlite_path, "select seq, over_embedding_limit from chunks order by seq").rows
    assert rows == [[0, 0], [1, 1], [2, 0]]


def test_failed_write_leaves_previous_version(db, tmp_path):
    path = str(tmp_path / "a.pdf")
    save(db, path)
    document = make_document(path, body="new text")
    broken = make_chunks(document)
    broken[2] = broken[2].model_copy(update={"parent": 2})  # points at a child: refused mid-transaction
    # a ChunkingError (this document's fault), not a StorageError (which would stop the batch)
    with pytest.raises(ChunkingError, match="chunker bug"):
        save(db, path, document, broken)
    assert [c.body for c in load_chunks(db, document_id_for(path))][1] == "Whitefly is controlled with neem oil."


def test_mark_removed_keeps_row_and_deletes_content(db, tmp_path):
    path = str(tmp_path / "a.pdf")
    save(db, path)
    with db.transaction() as session:
        assert mark_removed(session, document_id_for(path)) == 3
    counts = run_query(
        db.sqlite_path,
        "select (select status from documents), (select count(*) from chunks), "
        "(select count(*) from elements), (select count(*) from chunks_fts)",
    ).rows
    assert counts == [["removed", 0, 0, 0]]


def test_document_ids_are_short_stable_and_path_based(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = document_id_for("docs/a.pdf")
    assert first == document_id_for(str(tmp_path / "docs" / "a.pdf"))
    assert first == document_id_for("docs/../docs/a.pdf")
    assert len(first) == 10 and all(c in "0123456789abcdef" for c in first)
    assert first != document_id_for("docs/b.pdf")


def test_find_document_by_id_prefix_or_path(db, tmp_path):
    path = str(tmp_path / "a.pdf")
    save(db, path)
    doc_id = document_id_for(path)
    assert find_document(db, doc_id[:6]).id == doc_id
    assert find_document(db, path).id == doc_id
    with pytest.raises(DocumentNotFoundError):
        find_document(db, "nosuchid")


@pytest.mark.parametrize(
    "sql",
    [
        "insert into documents(id, source_path, status) values ('x', 'y', 'ok')",
        "update chunks set text = 'x'",
        "delete from chunks",
        "drop table chunks",
        "create table t(x)",
        "create temp table t(x)",
        "attach database 'other.db' as other",
        "pragma query_only = 0",
        "pragma journal_mode = delete",
        "pragma user_version = 7",
        "insert into chunks_fts(chunks_fts) values ('rebuild')",
        "select 1; delete from chunks",
    ],
)
def test_query_is_read_only(db, tmp_path, sql, monkeypatch):
    monkeypatch.chdir(tmp_path)
    save(db, str(tmp_path / "a.pdf"))
    before = _dump(db.sqlite_path)
    with pytest.raises(QueryError):
        run_query(db.sqlite_path, sql)
    assert _dump(db.sqlite_path) == before
    assert not (tmp_path / "other.db").exists()


def _dump(path: str) -> list[str]:
    with sqlite3.connect(path) as connection:
        return list(connection.iterdump()) + [str(connection.execute("pragma user_version").fetchone())]


def test_query_reads_and_reading_pragmas_work(db, tmp_path):
    save(db, str(tmp_path / "a.pdf"))
    assert run_query(
        db.sqlite_path, "select count(*) from chunks where json_extract(metadata, '$.doc_type') = 'manual'"
    ).rows == [[3]]
    names = [row[1] for row in run_query(db.sqlite_path, "pragma table_info(chunks)").rows]
    assert {"parent_id", "heading_path", "metadata", "element_types"} <= set(names)


def test_query_on_missing_database_is_a_storage_error(tmp_path):
    with pytest.raises(StorageError, match="no database"):
        run_query(str(tmp_path / "missing.db"), "select 1")
    assert not (tmp_path / "missing.db").exists()


@pytest.mark.parametrize(
    "version, message",
    [("99", "newer"), ("0", "older .* re-ingest into a new --db")],
    ids=["newer", "older-without-migration"],
)
def test_other_schema_version_is_refused_untouched(tmp_path, version, message):
    path = tmp_path / "t.db"
    open_database(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("update meta set value = ? where key = 'schema_version'", [version])
    before = path.read_bytes()
    with pytest.raises(SchemaVersionError, match=message):
        open_database(path)
    assert path.read_bytes() == before


def test_foreign_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("create table documents(x)")
    with pytest.raises(SchemaVersionError, match="not written by this tool"):
        open_database(path)


def test_not_a_database_file_is_a_storage_error(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("hello, this is not sqlite" * 100)
    with pytest.raises(StorageError):
        open_database(path)


def test_database_uses_wal(db):
    assert run_query(db.sqlite_path, "pragma journal_mode").rows == [["wal"]]


def test_second_writer_is_refused_while_lock_holder_lives(db):
    run_id = acquire_lock(db, "run", [], None, "1")
    with pytest.raises(RunLockedError, match=f"pid {os.getpid()}"):
        acquire_lock(db, "run", [], None, "1")
    release_lock(db, run_id)
    release_lock(db, acquire_lock(db, "run", [], None, "1"))


def test_stale_lock_of_dead_process_is_taken_over(db):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with db.transaction() as session:
        session.add(
            RunRow(
                id=41,
                command="run",
                started_at="2026-01-01T00:00:00Z",
                status="running",
                pid=dead.pid,
                hostname="here",
                paths=[],
                pipeline_version="1",
            )
        )
        session.add(
            RunLockRow(
                id=1,
                pid=dead.pid,
                hostname=__import__("socket").gethostname(),
                process_start=process_start_time(os.getpid()),
                run_id=41,
                acquired_at="2026-01-01T00:00:00Z",
            )
        )
    run_id = acquire_lock(db, "run", [], None, "1")
    assert run_id != 41
    assert run_query(db.sqlite_path, "select status from runs where id = 41").rows == [["interrupted"]]
    release_lock(db, run_id)


def test_failure_replaces_a_stored_version_and_keeps_no_stale_content(db, tmp_path):
    from storage import save_failure

    path = str(tmp_path / "a.pdf")
    save(db, path)
    with db.transaction() as session:
        removed = save_failure(
            session,
            document_id_for(path),
            path,
            "[parse] damaged PDF",
            content_sha256="b" * 64,
            size_bytes=9,
            mtime=1.5,
            info=info(title=None, settings={"chunk": {}}, run_id=None),
        )
    assert removed == 3
    row = run_query(
        db.sqlite_path,
        "select status, error, content_sha256, size_bytes, mtime, page_count, text, "
        "chunk_count, warnings, title, parsed_title, settings, pipeline_version "
        "from documents",
    ).rows
    assert row == [
        ["failed", "[parse] damaged PDF", "b" * 64, 9, 1.5, None, None, 0, "[]", None, None, '{"chunk": {}}', "1"]
    ]
    counts = run_query(
        db.sqlite_path,
        "select (select count(*) from chunks), (select count(*) from elements), (select count(*) from pages)",
    ).rows
    assert counts == [[0, 0, 0]]


def _stored_rows(path) -> dict[str, list[tuple]]:
    """Every row of the content tables, ids included (ingested_at lives in `documents`)."""
    with sqlite3.connect(path) as connection:
        return {
            table: connection.execute(f"select * from {table} order by rowid").fetchall()
            for table in ("pages", "elements", "chunks", "chunks_fts")
        }


def test_bulk_writes_store_the_rows_the_orm_would(db, tmp_path):
    """`save_document` writes through Core executemany; a reference written as ORM objects,
    one at a time, holds exactly the same rows (ids, parent ids, JSON text, FTS index)."""
    from storage.convert import chunk_to_row, element_to_row, page_to_row
    from storage.schema import ChunkRow, DocumentRow, ElementRow, PageRow

    path = str(tmp_path / "manual.pdf")
    document = make_document(path)
    chunks = make_chunks(document) + [
        make_chunks(document)[0].model_copy(update={"index": 3, "body": "Second section", "text": "S\n\nSecond"})
    ]
    save(db, path, document, chunks)
    save(db, path, document, chunks)  # a replace: new ids after the deleted ones
    reference = open_database(tmp_path / "reference.db")
    document_id = document_id_for(path)
    for _ in range(2):
        with reference.transaction() as session:
            session.query(ChunkRow).filter(ChunkRow.parent_id.is_not(None)).delete()
            for row_class in (ChunkRow, ElementRow, PageRow):
                session.query(row_class).delete()
            if session.get(DocumentRow, document_id) is None:
                session.add(DocumentRow(id=document_id, source_path=path, status="ok"))
                session.flush()
            session.add_all(PageRow(**page_to_row(document_id, page)) for page in document.pages)
            session.add_all(
                ElementRow(**element_to_row(document_id, seq, element)) for seq, element in enumerate(document.elements)
            )
            metadata = info().metadata
            parents = {
                chunk.index: ChunkRow(**chunk_to_row(document_id, chunk, {**metadata, **chunk.metadata}))
                for chunk in chunks
                if chunk.parent is None
            }
            session.add_all(parents.values())
            session.flush()
            for chunk in chunks:
                if chunk.parent is not None:
                    row = chunk_to_row(document_id, chunk, {**metadata, **chunk.metadata})
                    session.add(ChunkRow(**row, parent_id=parents[chunk.parent].id))
    reference.close()
    assert _stored_rows(tmp_path / "t.db") == _stored_rows(tmp_path / "reference.db")


def test_a_new_document_is_stored_without_deletes_and_a_replaced_one_with_them(db, tmp_path):
    """A new document has no content to delete (pages, elements and chunks need
    its `documents` row), so it costs one look-up and one insert per table; replacing it
    deletes the old rows first, and the result is the same as storing it once."""
    from sqlalchemy import event

    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2].split()[0].upper()))
    path = str(tmp_path / "a.pdf")
    save(db, path)
    first = _stored_rows(tmp_path / "t.db")
    assert "DELETE" not in statements
    assert statements.count("INSERT") == 5  # documents, pages, elements, parent chunks, child chunks
    statements.clear()
    assert save(db, path) == (3, 3)
    assert statements.count("DELETE") == 4
    second = _stored_rows(tmp_path / "t.db")
    assert [row[1:] for row in second["elements"]] == [row[1:] for row in first["elements"]]
    assert second["pages"] == first["pages"]
