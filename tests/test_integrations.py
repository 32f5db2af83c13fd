"""Exports, the chunk_context view and its migration, the LangChain loader, the
LlamaIndex reader, and offline embeddings, all checked against what the database holds."""

from __future__ import annotations

import importlib
import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES
from typer.testing import CliRunner

from ingest.cli import app
from ingest.contracts.errors import MissingExtraError, QueryError, SchemaVersionError
from storage import SCHEMA_VERSION, open_database, run_query

runner = CliRunner()
PDFS = ("crop_manual.pdf", "pest_advisory.pdf")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    """The two born-digital fixtures, ingested without OCR (module-scoped: ~15 s)."""
    from ingest.api import run

    root = tmp_path_factory.mktemp("integrations")
    for name in PDFS:
        shutil.copy2(FIXTURES / name, root / name)
    summary = run([root], db=str(root / "i.db"), workers=0, ocr="never")
    assert not summary.failed
    return str(root / "i.db")


def stored_chunks(db: str, where: str = "1 = 1") -> dict[int, dict]:
    with sqlite3.connect(db) as connection:
        connection.row_factory = sqlite3.Row
        rows = connection.execute(
            "select c.*, d.source_path, d.title from chunks c join documents d on d.id = c.document_id "
            f"where {where} order by c.document_id, c.seq"
        ).fetchall()
    return {row["id"]: dict(row) for row in rows}


def assert_record_matches_row(page_content: str, metadata: dict, row: dict) -> None:
    assert page_content == row["text"]
    for key, value in json.loads(row["metadata"]).items():
        if key not in ("title",):  # the display title wins over a PDF-info `title`
            assert metadata[key] == value, key
    expected = {
        "document_id": row["document_id"],
        "source_path": row["source_path"],
        "title": row["title"],
        "chunk_id": row["id"],
        "parent_id": row["parent_id"],
        "kind": row["kind"],
        "seq": row["seq"],
        "heading_path": json.loads(row["heading_path_json"]),
        "page_start": row["page_start"],
        "page_end": row["page_end"],
        "char_start": row["char_start"],
        "char_end": row["char_end"],
        "element_types": json.loads(row["element_types"]),
        "language": row["language"],
        "token_count": row["token_count"],
        "over_embedding_limit": bool(row["over_embedding_limit"]),
    }
    assert {key: metadata[key] for key in expected} == expected
    pages = {int(page) for page in metadata["bboxes"]}
    assert pages and pages <= set(range(row["page_start"], row["page_end"] + 1))
    assert sum(len(boxes) for boxes in metadata["bboxes"].values()) == len(json.loads(row["element_seqs"]))


def test_jsonl_export_round_trips_every_chunk(db, tmp_path):
    out = tmp_path / "all.jsonl"
    result = runner.invoke(app, ["export", "--db", db, "--kind", "all", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    stored = stored_chunks(db)
    assert len(lines) == len(stored) > 0
    assert [line["metadata"]["chunk_id"] for line in lines] == list(stored)
    for line in lines:
        assert set(line) == {"page_content", "metadata"}
        assert_record_matches_row(line["page_content"], line["metadata"], stored[line["metadata"]["chunk_id"]])


def test_jsonl_defaults_to_children_on_stdout_and_filters(db):
    result = runner.invoke(app, ["export", "--db", db])
    assert result.exit_code == 0, result.output
    ids = [json.loads(line)["metadata"]["chunk_id"] for line in result.stdout.splitlines()]
    assert ids == list(stored_chunks(db, "c.kind = 'child'"))

    document_id = next(iter(stored_chunks(db).values()))["document_id"]
    one = runner.invoke(app, ["export", document_id, "--db", db, "--kind", "parent"])
    ids = [json.loads(line)["metadata"]["chunk_id"] for line in one.stdout.splitlines()]
    sections = "(c.kind = 'parent' or c.parent_id is null)"  # a one-child section is one row
    assert ids == list(stored_chunks(db, f"{sections} and c.document_id = '{document_id}'"))

    where = runner.invoke(app, ["export", "--db", db, "--where", "text like '%Whitefly%' and kind = 'child'"])
    texts = [json.loads(line)["page_content"] for line in where.stdout.splitlines()]
    assert texts and all("Whitefly" in text for text in texts)
    assert len(texts) == len(stored_chunks(db, "c.kind = 'child' and c.text like '%Whitefly%'"))


def test_where_runs_read_only(db):
    before = len(stored_chunks(db))
    result = runner.invoke(app, ["export", "--db", db, "--where", "1) ; delete from chunks; select (1"])
    assert result.exit_code == 6
    from ingest.api import export

    with pytest.raises(QueryError, match="--where"):
        export(db, where="no_such_column = 1", stream=sys.stdout)
    assert len(stored_chunks(db)) == before


def test_markdown_export_keeps_headings_tables_lists(db, tmp_path):
    from storage import iter_documents

    result = runner.invoke(app, ["export", "--db", db, "--format", "markdown", "--out", str(tmp_path / "md")])
    assert result.exit_code == 0, result.output
    with open_database(db, create=False) as database:
        documents = dict(iter_documents(database))
    assert sorted(path.stem for path in (tmp_path / "md").glob("*.md")) == sorted(documents)
    for document_id, document in documents.items():
        markdown = (tmp_path / "md" / f"{document_id}.md").read_text(encoding="utf-8")
        lines = markdown.splitlines()
        for element in document.elements:
            if element.type.value == "title":
                assert "#" * min(element.heading_level, 6) + " " + " ".join(element.text.split()) in lines
            elif element.type.value == "table" and element.rows:
                header = element.rows[0] if element.header_rows else None
                if header:
                    assert "| " + " | ".join(" ".join(cell.split()) for cell in header) + " |" in lines
                for row in element.rows[element.header_rows :]:
                    assert "| " + " | ".join(" ".join(cell.split()) for cell in row) + " |" in lines
            elif element.type.value == "list_item":
                assert any(line.lstrip().startswith(("- ", "1.", "2.", "3.", "4.", "5.")) for line in lines)
            elif not element.is_furniture and element.text.strip():
                assert " ".join(element.text.split()) in " ".join(markdown.split())
    assert sum(
        line.startswith("| --- |")
        for path in (tmp_path / "md").glob("*.md")
        for line in path.read_text(encoding="utf-8").splitlines()
    ) == sum(1 for document in documents.values() for element in document.elements if element.type.value == "table")


def test_markdown_of_several_documents_needs_a_folder(db):
    result = runner.invoke(app, ["export", "--db", db, "--format", "markdown"])
    assert result.exit_code == 2 and "--out FOLDER" in result.stderr


def test_chunk_context_view_is_the_documented_join(db):
    view = run_query(db, "select chunk_id, title, source_path, parent_text from chunk_context order by chunk_id")
    joined = run_query(
        db,
        "select c.id, d.title, d.source_path, p.text from chunks c join documents d on d.id = c.document_id "
        "left join chunks p on p.id = c.parent_id order by c.id",
    )
    assert view.rows == joined.rows and len(view.rows) == len(stored_chunks(db))
    assert any(row[3] for row in view.rows) and any(row[3] is None for row in view.rows)


def test_a_version_3_database_is_migrated_to_the_view(tmp_path, db):
    path = tmp_path / "v3.db"
    shutil.copy2(db, path)
    with sqlite3.connect(path) as connection:  # what version 3 wrote: no view
        connection.execute("drop view chunk_context")
        connection.execute("alter table pages drop column text_chars")  # added by step 4 -> 5
        connection.execute("alter table pages drop column element_chars")  # added by step 4 -> 5
        connection.execute("alter table pages drop column lost_chars")  # added by step 4 -> 5
        connection.execute("alter table pages drop column dropped")  # added by step 4 -> 5
        connection.execute("update meta set value = '3' where key = 'schema_version'")
    with pytest.raises(SchemaVersionError, match="migrates it in place"):
        open_database(path, create=False)  # a reader does not migrate
    open_database(path).close()
    with sqlite3.connect(path) as connection:
        assert connection.execute("select value from meta where key = 'schema_version'").fetchone()[0] == str(
            SCHEMA_VERSION
        )
        count = connection.execute("select count(*) from chunk_context").fetchone()[0]
    assert count == len(stored_chunks(db))


def test_langchain_loader_returns_what_the_database_holds(db):
    from ingest.integrations.langchain import IngestLoader

    children = IngestLoader(db).load()
    stored = stored_chunks(db, "c.kind = 'child'")
    assert [int(doc.id) for doc in children] == list(stored)
    for doc in children:
        assert_record_matches_row(doc.page_content, doc.metadata, stored[doc.metadata["chunk_id"]])
    parents = IngestLoader(db, kind="parent").load()
    assert {doc.metadata["kind"] for doc in parents} == {"parent", "child"}  # a one-child section is one row
    assert all(doc.metadata["parent_id"] is None for doc in parents)
    sections = {doc.metadata["chunk_id"] for doc in parents}
    assert {doc.metadata["parent_id"] or doc.metadata["chunk_id"] for doc in children} <= sections
    only = IngestLoader(db, where="language = 'en' and page_start = 1", document=children[0].metadata["document_id"])
    assert [doc.id for doc in only.lazy_load()] == [
        str(key)
        for key, row in stored.items()
        if row["page_start"] == 1
        and row["document_id"] == children[0].metadata["document_id"]
        and row["language"] == "en"
    ]


def test_llamaindex_nodes_carry_parent_child_links(db):
    from llama_index.core.schema import NodeRelationship

    from ingest.integrations.llamaindex import IngestReader

    nodes = IngestReader(db).load_data()
    stored = stored_chunks(db)
    assert [int(node.node_id) for node in nodes] == list(stored)
    by_id = {node.node_id: node for node in nodes}
    for node in nodes:
        row = stored[int(node.node_id)]
        assert_record_matches_row(node.text, node.metadata, row)
        assert node.get_content(metadata_mode="embed") == row["text"]  # metadata kept out of the vector
        assert node.relationships[NodeRelationship.SOURCE].node_id == row["document_id"]
        if row["parent_id"] is not None:
            parent = by_id[str(row["parent_id"])]
            assert node.parent_node.node_id == parent.node_id
            assert node.node_id in [child.node_id for child in parent.child_nodes]
        else:
            assert NodeRelationship.PARENT not in node.relationships
            assert sorted(int(child.node_id) for child in node.child_nodes or []) == sorted(
                key for key, other in stored.items() if other["parent_id"] == row["id"]
            )


@pytest.mark.parametrize(
    "module, blocked, extra",
    [
        ("ingest.integrations.langchain", "langchain_core", "langchain"),
        ("ingest.integrations.llamaindex", "llama_index", "llamaindex"),
    ],
)
def test_missing_extra_names_the_pip_command(module, blocked, extra, monkeypatch):
    monkeypatch.setitem(sys.modules, blocked, None)  # `import blocked...` now raises ImportError
    for name in [name for name in sys.modules if name.startswith(blocked + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(MissingExtraError, match=rf"pip install 'pdf-ingest\[{extra}\]'"):
        importlib.import_module(module)
    monkeypatch.delitem(sys.modules, module, raising=False)


def test_export_and_embed_commands_stay_out_of_help_start_up():
    import subprocess

    code = (
        "import sys; from ingest.cli import app; "
        "heavy = [m for m in ('sqlalchemy', 'onnxruntime', 'langchain_core', 'llama_index', 'sqlite_vec') "
        "if m in sys.modules]; print(heavy)"
    )
    root = Path(__file__).resolve().parent.parent
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert output.stdout.strip() == "[]"


# --- embeddings (extra `embed`: packaged ONNX model, sqlite-vec) --------------------------------


@pytest.fixture(scope="module")
def embedder():
    from ingest.integrations.embed import DEFAULT_MODEL, MODELS, Embedder

    return Embedder(MODELS[DEFAULT_MODEL])


def test_model_gives_unit_vectors_that_rank_meaning(embedder):
    import numpy as np

    encoded = embedder.encode(["whitefly on cotton", "white flies attack my cotton plants", "crop insurance premium"])
    vectors = np.array(encoded.vectors)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert embedder.encode(["whitefly on cotton"]).vectors[0] == pytest.approx(encoded.vectors[0], abs=1e-5)
    long = embedder.encode(["word " * 600])  # past the 256-token window: embedded whole, in 3 windows
    assert long.truncated == [False] and long.tokens == [602] and long.windows == [3]
    assert embedder.encode(["short"]).truncated == [False]


def test_embed_is_incremental_and_counts_truncation(db):
    from ingest.api import embed

    children = stored_chunks(db, "c.kind = 'child'")
    first = embed(db)
    assert first.chunks == len(children) and first.stored_total == len(children)
    second = embed(db)
    assert (second.chunks, second.documents, second.stored_total) == (0, 0, len(children))
    with sqlite3.connect(db) as connection:
        rows = connection.execute("select chunk_id, tokens, truncated from chunk_embeddings").fetchall()
    assert sorted(row[0] for row in rows) == sorted(children)
    assert first.truncated == sum(row[2] for row in rows) == 0  # long chunks are embedded whole, in windows
    assert first.windowed == sum(1 for row in rows if row[1] > 256)


def test_vector_search_finds_the_table_answers(db, embedder):
    """The golden set's table questions on these two fixtures: vector search alone puts the
    expected chunk in the top 5 for 8 of 9 (the urea-at-30-days row is found by full text:
    hybrid search is for that)."""
    from ingest.api import embed
    from ingest.integrations.embed import similar_chunks

    embed(db)
    golden = [json.loads(line) for line in (FIXTURES / "golden.jsonl").read_text(encoding="utf-8").splitlines()]
    questions = [q for q in golden if q.get("kind") == "table" and q.get("doc") in PDFS]
    assert len(questions) == 9
    found = 0
    for question in questions:
        hits = similar_chunks(db, question["question"], k=5, embedder=embedder)
        assert len(hits) == 5 and [hit.distance for hit in hits] == sorted(hit.distance for hit in hits)
        assert {hit.metadata["kind"] for hit in hits} == {"child"}
        found += any(all(text in hit.page_content for text in question["must_contain"]) for hit in hits)
    assert found >= 8


def test_reingested_document_is_re_embedded_alone_and_old_vectors_never_return(db, tmp_path, embedder):
    from ingest.api import embed, reprocess
    from ingest.integrations.embed import similar_chunks

    path = tmp_path / "copy.db"
    shutil.copy2(db, path)
    embed(str(path))
    before = stored_chunks(str(path), "c.kind = 'child'")
    document_id = next(iter(before.values()))["document_id"]
    reprocess(document_id, db=str(path), ocr="never")
    after = stored_chunks(str(path), "c.kind = 'child'")
    redone = [key for key, row in after.items() if row["document_id"] == document_id]
    hits = similar_chunks(str(path), "whitefly pest control", k=len(after), embedder=embedder)
    found = {hit.metadata["chunk_id"] for hit in hits}
    assert found <= set(after)  # no vector of a deleted chunk
    assert not found & set(redone)  # not embedded yet: an old vector never stands for a new chunk (ids may be reused)
    result = embed(str(path))
    assert result.chunks == len(redone) and result.documents == 1
    assert result.purged == sum(1 for row in before.values() if row["document_id"] == document_id)
    assert result.stored_total == len(after)


def test_embed_command_reports(db):
    result = runner.invoke(app, ["embed", "--db", db, "--batch", "8"])
    assert result.exit_code == 0, result.output
    assert "0 chunk(s) embedded" in result.stdout and "stored in total" in result.stdout
    unknown = runner.invoke(app, ["embed", "--db", db, "--model", "no-such-model"])
    assert unknown.exit_code == 2 and "known models" in unknown.stderr
