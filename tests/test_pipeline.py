"""The nightly batch end to end, run in-process through the CLI and checked through the library.

PDFs are generated with fpdf2 (a page or two each, parsed in ~0.1 s) so content can be
changed between runs; `--workers 0` keeps parsing in this process so a monkeypatched stage
proves what was (not) parsed.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS
from typer.testing import CliRunner

from ingest.cli import app
from ingest.pipeline.settings import PIPELINE_VERSION
from storage import document_id_for, load_chunks, open_database, run_query

runner = CliRunner()


def make_pdf(path: Path, title: str, paragraphs: list[str]) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(__import__("datetime").datetime(2024, 1, 1, tzinfo=__import__("datetime").timezone.utc))
    pdf.set_title(title)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 10, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 11)
    for paragraph in paragraphs:
        pdf.multi_cell(0, 6, paragraph, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


def ingest(*args: str):
    return runner.invoke(app, [*args])


def run(folder: Path, db: Path, *extra: str):
    return ingest("run", str(folder), "--db", str(db), "--workers", "0", "--ocr", "never", "-q", *extra)


def content(db: Path) -> list:
    """Everything a reader sees of the documents (not run history)."""
    with sqlite3.connect(db) as connection:
        return [
            connection.execute(f"select * from {table} order by 1, 2").fetchall()
            for table in ("documents", "pages", "elements", "chunks")
        ]


@pytest.fixture
def folder(tmp_path) -> Path:
    root = tmp_path / "pdfs"
    make_pdf(root / "cotton.pdf", "Cotton manual", ["Whitefly is controlled by spraying neem oil at dusk."])
    make_pdf(root / "rice.pdf", "Rice manual", ["Stem borer damage is reduced by early transplanting."])
    make_pdf(root / "sub" / "wheat.pdf", "Wheat manual", ["Rust appears as orange pustules on the leaves."])
    (root / "notes.txt").write_text("not a pdf, not picked up")
    return root


def outcomes(db: Path, run_id: int) -> dict[str, str]:
    rows = run_query(str(db), "select source_path, outcome from run_items where run_id = ?", [run_id]).rows
    return {Path(path).name: outcome for path, outcome in rows}


def test_first_run_stores_every_pdf(folder, tmp_path):
    db = tmp_path / "i.db"
    result = run(folder, db)
    assert result.exit_code == 0, result.output
    rows = run_query(str(db), "select source_path, status, chunk_count, title from documents order by 1").rows
    assert [(Path(p).name, s, t) for p, s, _c, t in rows] == [
        ("cotton.pdf", "ok", "Cotton manual"),
        ("rice.pdf", "ok", "Rice manual"),
        ("wheat.pdf", "ok", "Wheat manual"),
    ]
    assert all(count > 0 for *_x, count, _t in rows)
    stored = run_query(
        str(db), "select d.chunk_count, (select count(*) from chunks c where c.document_id = d.id) from documents d"
    ).rows
    assert all(a == b for a, b in stored)
    assert outcomes(db, 1) == {"cotton.pdf": "new", "rice.pdf": "new", "wheat.pdf": "new"}


def test_second_run_over_unchanged_folder_parses_nothing_and_changes_nothing(folder, tmp_path, monkeypatch):
    db = tmp_path / "i.db"
    assert run(folder, db).exit_code == 0
    before = content(db)

    def must_not_parse(*_args, **_kwargs):
        raise AssertionError("parse_pdf called on an unchanged file")

    monkeypatch.setattr("ingest.pipeline.document.parse_pdf", must_not_parse)
    result = run(folder, db)
    assert result.exit_code == 0, result.output
    assert content(db) == before
    assert set(outcomes(db, 2).values()) == {"unchanged"}


def test_changed_file_is_replaced_under_the_same_id(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    make_pdf(folder / "rice.pdf", "Rice manual", ["Brown planthopper needs resistant varieties."])
    result = run(folder, db)
    assert result.exit_code == 0, result.output
    assert outcomes(db, 2) == {"cotton.pdf": "unchanged", "rice.pdf": "changed", "wheat.pdf": "unchanged"}
    doc_id = document_id_for(str(folder / "rice.pdf"))
    bodies = " ".join(chunk.body for chunk in load_chunks(open_database(db), doc_id))
    assert "planthopper" in bodies and "borer" not in bodies
    fts = "select count(*) from chunks_fts where chunks_fts match ?"
    assert run_query(str(db), fts, ["borer"]).rows == [[0]]
    assert run_query(str(db), fts, ["planthopper"]).rows[0][0] >= 1
    reason = run_query(str(db), "select message from run_items where run_id = 2 and outcome = 'changed'").rows
    assert "SHA-256" in reason[0][0]


def test_removed_file_is_marked_removed_and_its_chunks_deleted(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    doc_id = document_id_for(str(folder / "sub" / "wheat.pdf"))
    shutil.move(folder / "sub" / "wheat.pdf", tmp_path / "wheat.pdf")
    assert run(folder, db).exit_code == 0
    assert outcomes(db, 2)["wheat.pdf"] == "removed"
    status = run_query(str(db), "select status, chunk_count from documents where id = ?", [doc_id]).rows
    assert status == [["removed", 0]]
    for table in ("chunks", "elements", "pages"):
        assert run_query(str(db), f"select count(*) from {table} where document_id = ?", [doc_id]).rows == [[0]]
    shutil.move(tmp_path / "wheat.pdf", folder / "sub" / "wheat.pdf")  # back again: same id, stored again
    assert run(folder, db).exit_code == 0
    assert outcomes(db, 3)["wheat.pdf"] == "new"
    assert run_query(str(db), "select status from documents where id = ?", [doc_id]).rows == [["ok"]]


def test_removal_only_touches_documents_under_the_given_paths(folder, tmp_path):
    db = tmp_path / "i.db"
    other = tmp_path / "other"
    make_pdf(other / "maize.pdf", "Maize manual", ["Fall armyworm."])
    run(folder, db)
    run(other, db)
    assert run_query(str(db), "select count(*) from documents where status = 'ok'").rows == [[4]]


def test_missing_input_path_is_a_usage_error_and_removes_nothing(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    result = run(tmp_path / "typo", db)
    assert result.exit_code == 2
    assert "does not exist" in result.stderr
    assert run_query(str(db), "select count(*) from documents where status = 'ok'").rows == [[3]]


def test_settings_change_reprocesses_and_force_reprocesses(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    config = tmp_path / "c.toml"
    config.write_text("[chunk]\nchild_max_tokens = 100\noverlap_tokens = 10\nmin_tokens = 5\n")
    assert run(folder, db, "--config", str(config)).exit_code == 0
    assert set(outcomes(db, 2).values()) == {"changed"}
    messages = run_query(str(db), "select distinct message from run_items where run_id = 2").rows
    assert messages == [["parse/chunk settings changed"]]
    assert run(folder, db, "--config", str(config)).exit_code == 0
    assert set(outcomes(db, 3).values()) == {"unchanged"}
    assert run(folder, db, "--config", str(config), "--force").exit_code == 0
    assert set(outcomes(db, 4).values()) == {"changed"}


def test_pipeline_version_change_reprocesses(folder, tmp_path, monkeypatch):
    db = tmp_path / "i.db"
    run(folder, db)
    newer = str(int(PIPELINE_VERSION) + 1)
    monkeypatch.setattr("ingest.pipeline.discover.PIPELINE_VERSION", newer)
    monkeypatch.setattr("ingest.pipeline.batch.PIPELINE_VERSION", newer)
    assert run(folder, db).exit_code == 0
    assert set(outcomes(db, 2).values()) == {"changed"}
    assert run_query(str(db), "select distinct pipeline_version from documents").rows == [[newer]]


def test_chunk_settings_and_pipeline_version_are_stored_per_document(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    rows = run_query(
        str(db),
        "select pipeline_version, json_extract(settings, '$.chunk.child_max_tokens'), "
        "json_extract(settings, '$.chunk.encoding') from documents",
    ).rows
    assert rows == [[PIPELINE_VERSION, 300, "cl100k_base"]] * 3


def test_path_rules_and_sidecar_metadata_reach_the_chunks(tmp_path):
    root = tmp_path / "pdfs"
    make_pdf(root / "schemes" / "pm-kisan.pdf", "PM Kisan", ["Income support of 6000 rupees a year."])
    make_pdf(root / "manuals" / "cotton.pdf", "Cotton", ["Whitefly control."])
    (root / "manuals" / "cotton.pdf.meta.json").write_text(json.dumps({"doc_type": "manual", "crop": "cotton"}))
    config = tmp_path / "c.toml"
    config.write_text(
        '[[enrich.rules]]\npattern = "schemes/*"\nmetadata = { doc_type = "scheme", year = 2024 }\n'
        '[[enrich.rules]]\npattern = "*.pdf"\nmetadata = { doc_type = "other", owner = "agri" }\n'
    )
    db = tmp_path / "i.db"
    assert run(root, db, "--config", str(config)).exit_code == 0
    rows = run_query(
        str(db),
        "select d.title, json_extract(c.metadata, '$.doc_type'), json_extract(c.metadata, "
        "'$.owner'), json_extract(c.metadata, '$.crop'), json_extract(c.metadata, '$.year') "
        "from chunks c join documents d on d.id = c.document_id group by d.id order by 1",
    ).rows
    # later rules override earlier ones, the sidecar overrides rules
    assert rows == [["Cotton", "manual", "agri", "cotton", None], ["PM Kisan", "other", "agri", None, 2024]]
    (root / "manuals" / "cotton.pdf.meta.json").write_text(json.dumps({"doc_type": "guide"}))
    assert run(root, db, "--config", str(config)).exit_code == 0
    assert outcomes(db, 2) == {"cotton.pdf": "changed", "pm-kisan.pdf": "unchanged"}


def test_stored_document_chunks_again_to_the_stored_chunks_whatever_its_display_title(tmp_path):
    """`ingest eval` re-chunks stored elements: with a sidecar title that differs from the PDF's
    own, the reloaded document must still give exactly the chunks the run stored."""
    from ingest.chunker import chunk_document
    from storage import load_document

    root = tmp_path / "pdfs"
    make_pdf(root / "cotton.pdf", "Cotton manual", ["Whitefly is controlled by spraying neem oil at dusk."])
    (root / "cotton.pdf.meta.json").write_text(json.dumps({"title": "Cotton Crop Manual, Kharif 2024 edition"}))
    db = tmp_path / "i.db"
    assert run(root, db).exit_code == 0
    database = open_database(db)
    try:
        document_id = document_id_for(str(root / "cotton.pdf"))
        stored = [chunk.text for chunk in load_chunks(database, document_id)]
        again = [chunk.text for chunk in chunk_document(load_document(database, document_id))]
    finally:
        database.close()
    assert run_query(str(db), "select title from documents").rows == [["Cotton Crop Manual, Kharif 2024 edition"]]
    assert again == stored
    assert stored[0].startswith("Cotton manual\n\n")


def test_a_chunker_bug_fails_that_document_only_and_the_run_goes_on(folder, tmp_path, monkeypatch):
    from ingest.pipeline import document as pipeline

    real_chunk_document = pipeline.chunk_document

    def broken_for_rice(document, settings, counter, embed_texts=None):
        chunks = real_chunk_document(document, settings, counter, embed_texts)
        if document.source_path.endswith("rice.pdf"):  # a child pointing at another child
            chunks[-1] = chunks[-1].model_copy(update={"parent": chunks[-1].index})
        return chunks

    monkeypatch.setattr(pipeline, "chunk_document", broken_for_rice)
    db = tmp_path / "i.db"
    result = run(folder, db)
    assert result.exit_code == 1, result.output
    assert outcomes(db, 1) == {"cotton.pdf": "new", "rice.pdf": "failed", "wheat.pdf": "new"}
    rows = run_query(str(db), "select stage, message from run_items where outcome = 'failed'").rows
    assert rows[0][0] == "store" and "chunker bug" in rows[0][1]


def test_invalid_sidecar_fails_that_document_only(folder, tmp_path):
    (folder / "rice.pdf.meta.json").write_text("{not json")
    db = tmp_path / "i.db"
    result = run(folder, db)
    assert result.exit_code == 1
    assert "1 document(s) failed" in result.stderr
    row = run_query(str(db), "select status, error from documents where source_path like '%rice.pdf'").rows[0]
    assert row[0] == "failed" and row[1].startswith("[enrich]") and "sidecar" in row[1]


def test_chunk_language_is_detected(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    languages = {row[0] for row in run_query(str(db), "select language from chunks where kind = 'child'").rows}
    assert languages == {"en"}


def test_over_limit_chunks_are_reported(folder, tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[chunk]\nembedding_limit = 16\nchild_max_tokens = 200\noverlap_tokens = 0\n")
    long = make_pdf(tmp_path / "long" / "long.pdf", "Long", [" ".join(["word"] * 120)])
    db = tmp_path / "i.db"
    result = run(long.parent, db, "--config", str(config))
    assert result.exit_code == 0, result.output
    assert "exceed the embedding-model limit" in result.stdout
    flagged = run_query(str(db), "select count(*) from chunks where over_embedding_limit = 1 and token_count > 16").rows
    item = run_query(str(db), "select over_limit_chunks, message from run_items").rows[0]
    assert flagged[0][0] == item[0] > 0
    assert "over the embedding limit" in item[1]


@pytest.mark.shared
@pytest.mark.skipif(not (CORPUS / "broken").is_dir(), reason="../shared/corpus/broken not present")
def test_broken_files_fail_with_reasons_and_good_ones_are_stored(tmp_path):
    root = tmp_path / "pdfs"
    shutil.copytree(CORPUS / "broken", root / "broken")
    shutil.copy(CORPUS / "word365_structure.pdf", root)
    make_pdf(root / "cotton.pdf", "Cotton manual", ["Whitefly is controlled by spraying neem oil."])
    db = tmp_path / "i.db"
    result = run(root, db)
    assert result.exit_code == 1
    failed = {
        Path(p).name: (stage, message)
        for p, stage, message in run_query(
            str(db), "select source_path, stage, message from run_items where outcome = 'failed'"
        ).rows
    }
    expected = {
        "empty.pdf": "empty",
        "not-a-pdf.pdf": "not a pdf",
        "password-example.pdf": "encrypted",
        "truncated-reliance.pdf": "truncated",
    }
    for name, word in expected.items():
        assert name in failed and failed[name][0] == "parse" and word in failed[name][1].lower(), failed.get(name)
    assert f"{len(failed)} document(s) failed" in result.stderr
    ok = {
        Path(p).name
        for (p,) in run_query(str(db), "select source_path from documents where status = 'ok' and chunk_count > 0").rows
    }
    assert {"word365_structure.pdf", "cotton.pdf"} <= ok
    # the damaged file whose page pdfium still reads (a broken cross-reference table) is stored,
    # and its chunks hold that page's words
    status = run_query(str(db), "select status, chunk_count from documents where source_path like '%malformed%'").rows
    assert [list(row) for row in status] == [["ok", 1]], status
    sql = "select c.text from chunks c join documents d on d.id = c.document_id where d.source_path like '%malformed%'"
    assert [text for (text,) in run_query(str(db), sql).rows] == ["2021 3 31"]


def test_pdf_with_no_pages_fails_at_parse_saying_so(tmp_path):
    """A valid PDF with an empty page tree was reported as "damaged or truncated"."""
    import pypdfium2 as pdfium

    root = tmp_path / "pdfs"
    root.mkdir()
    empty = pdfium.PdfDocument.new()
    empty.save(root / "no-pages.pdf")
    empty.close()
    db = tmp_path / "i.db"
    assert run(root, db).exit_code == 1
    rows = run_query(str(db), "select stage, message from run_items where outcome = 'failed'").rows
    assert len(rows) == 1 and rows[0][0] == "parse"
    assert "the PDF has no pages" in rows[0][1] and "damaged" not in rows[0][1], rows


def test_unchanged_failed_file_is_not_retried_until_forced(tmp_path):
    root = tmp_path / "pdfs"
    root.mkdir()
    (root / "bad.pdf").write_text("not a pdf")
    db = tmp_path / "i.db"
    assert run(root, db).exit_code == 1
    result = run(root, db)
    assert result.exit_code == 1  # still failed: the nightly alert repeats until it is fixed
    assert outcomes(db, 2) == {"bad.pdf": "still_failed"}
    assert "not retried" in result.stdout and "1 still failed" in result.stderr
    assert run(root, db, "--force").exit_code == 1
    (root / "bad.pdf").unlink()
    assert run(root, db).exit_code == 0  # removed: nothing under the path is failed any more


@pytest.mark.slow
def test_reprocess_by_id_and_by_path(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    doc_id = document_id_for(str(folder / "cotton.pdf"))
    before = run_query(str(db), "select ingested_at, chunk_count from documents where id = ?", [doc_id]).rows[0]
    result = ingest("reprocess", doc_id, "--db", str(db), "--ocr", "never")
    assert result.exit_code == 0, result.output
    assert f"chunks: {before[1]} -> {before[1]}" in result.stdout
    after = run_query(str(db), "select ingested_at, chunk_count from documents where id = ?", [doc_id]).rows[0]
    assert after[0] > before[0]
    config = tmp_path / "c.toml"
    config.write_text(
        '[chunk]\nstrategy = "fixed"\nchild_max_tokens = 16\noverlap_tokens = 0\nmin_tokens = 0\n'
        "parent_max_tokens = 16\n"
    )
    make_pdf(folder / "cotton.pdf", "Cotton manual", ["Whitefly is controlled by spraying neem oil. " * 30])
    result = ingest("reprocess", str(folder / "cotton.pdf"), "--db", str(db), "--ocr", "never", "--config", str(config))
    assert result.exit_code == 0, result.output
    count = run_query(str(db), "select chunk_count from documents where id = ?", [doc_id]).rows[0][0]
    assert f"chunks: {before[1]} -> {count}" in result.stdout and count > before[1]
    assert run_query(str(db), "select outcome, chunks_before, chunks_after from run_items where run_id = 3").rows == [
        ["reprocessed", before[1], count]
    ]


def test_reprocess_unknown_id_exits_5(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    result = ingest("reprocess", "0000000000", "--db", str(db))
    assert result.exit_code == 5
    assert "no document" in result.stderr


def test_run_refused_while_another_live_process_holds_the_lock(folder, tmp_path):
    import socket

    from ingest.contracts.processes import process_start_time
    from storage.schema import RunLockRow

    db = tmp_path / "i.db"
    run(folder, db)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        database = open_database(db)
        with database.transaction() as session:
            session.add(
                RunLockRow(
                    id=1,
                    pid=holder.pid,
                    hostname=socket.gethostname(),
                    process_start=process_start_time(holder.pid),
                    run_id=None,
                    acquired_at="2026-01-01T00:00:00Z",
                )
            )
        database.close()
        before = content(db)
        result = run(folder, db, "--force")
        assert result.exit_code == 3
        assert f"pid {holder.pid}" in result.stderr and "wait for it" in result.stderr
        assert content(db) == before
    finally:
        holder.kill()
        holder.wait()
    assert run(folder, db).exit_code == 0  # the holder is dead now: its lock is stale


def test_missing_ocr_language_fails_before_any_work(folder, tmp_path):
    db = tmp_path / "i.db"
    result = ingest("run", str(folder), "--db", str(db), "--ocr-lang", "eng+xyz", "-q")
    assert result.exit_code == 2
    assert "xyz" in result.stderr
    assert not db.exists()


@pytest.mark.slow
def test_process_pool_gives_the_same_chunks_as_in_process(folder, tmp_path):
    in_process, pooled = tmp_path / "a.db", tmp_path / "b.db"
    assert run(folder, in_process).exit_code == 0
    result = ingest("run", str(folder), "--db", str(pooled), "--workers", "2", "--ocr", "never", "-q")
    assert result.exit_code == 0, result.output
    sql = (
        "select d.source_path, c.seq, c.kind, c.text, c.language from chunks c join documents d on "
        "d.id = c.document_id order by 1, 2"
    )
    assert run_query(str(in_process), sql).rows == run_query(str(pooled), sql).rows


def test_each_file_is_hashed_once_per_run_and_the_stored_hash_is_its_content(folder, tmp_path, monkeypatch):
    import hashlib

    import ingest.pipeline.discover
    import parsers.pdf

    hashed: list[str] = []

    def counting(real):
        def hashing(path):
            hashed.append(Path(path).name)
            return real(path)

        return hashing

    discover = ingest.pipeline.discover
    monkeypatch.setattr(discover, "regular_file_fingerprint", counting(discover.regular_file_fingerprint))
    monkeypatch.setattr(parsers.pdf, "file_sha256", counting(parsers.pdf.file_sha256))
    db = tmp_path / "i.db"
    assert run(folder, db).exit_code == 0
    assert sorted(hashed) == ["cotton.pdf", "rice.pdf", "wheat.pdf"]
    for path, stored in run_query(str(db), "select source_path, content_sha256 from documents").rows:
        assert stored == hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_pdf_dates_are_stored_as_iso_8601_with_their_time_zone(folder, tmp_path):
    db = tmp_path / "i.db"
    run(folder, db)
    rows = run_query(str(db), "select json_extract(metadata, '$.created') from documents").rows
    assert rows == [["2024-01-01T00:00:00+00:00"]] * 3  # make_pdf's creation date, 2024-01-01 UTC
    chunk_dates = run_query(str(db), "select distinct json_extract(metadata, '$.created') from chunks").rows
    assert chunk_dates == [["2024-01-01T00:00:00+00:00"]]


def test_lone_surrogates_are_replaced_and_the_document_is_stored_with_a_warning(folder, tmp_path, monkeypatch):
    from ingest.pipeline import document as pipeline

    real_parse_pdf = pipeline.parse_pdf

    def parse_with_a_broken_font_map(path, settings, **options):
        document = real_parse_pdf(path, settings, **options)
        if path.endswith("rice.pdf"):
            body = next(e for e in document.elements if "borer" in e.text)
            body.text = body.text.replace("borer", "bo\ud800er")
        return document

    monkeypatch.setattr(pipeline, "parse_pdf", parse_with_a_broken_font_map)
    (folder / "cotton.pdf.meta.json").write_text('{"note": "bad \\ud800 escape"}')  # JSON may hold one too
    db = tmp_path / "i.db"
    result = run(folder, db)
    assert result.exit_code == 0, result.output
    rows = {
        Path(path).name: (status, json.loads(warnings))
        for path, status, warnings in run_query(str(db), "select source_path, status, warnings from documents").rows
    }
    assert {name: status for name, (status, _w) in rows.items()} == {
        "cotton.pdf": "ok",
        "rice.pdf": "ok",
        "wheat.pdf": "ok",
    }
    for name in ("cotton.pdf", "rice.pdf"):  # one bad character each, counted once (not once per chunk)
        assert "1 invalid character(s) (lone surrogates) replaced by U+FFFD" in rows[name][1], rows[name]
    assert not any("surrogate" in warning for warning in rows["wheat.pdf"][1])
    texts = " ".join(text for (text,) in run_query(str(db), "select text from elements").rows)
    assert "bo\ufffder" in texts
    fts = "select count(*) from chunks_fts where chunks_fts match ?"
    assert run_query(str(db), fts, ["dusk"]).rows[0][0] >= 1
    notes = run_query(
        str(db), "select json_extract(metadata, '$.note') from documents where source_path like '%cotton.pdf'"
    ).rows
    assert notes == [["bad \ufffd escape"]]


def test_reprocess_of_a_deleted_file_fails_before_starting_a_run(folder, tmp_path):
    from ingest.contracts.errors import IngestError
    from ingest.pipeline.batch import reprocess_document

    db = tmp_path / "i.db"
    assert run(folder, db).exit_code == 0
    doc_id = document_id_for(str(folder / "cotton.pdf"))
    (folder / "cotton.pdf").unlink()
    with pytest.raises(IngestError, match="no longer exists") as caught:
        reprocess_document(doc_id, db=str(db))
    assert caught.value.stage == "discover" and caught.value.path.endswith("cotton.pdf")
    assert run_query(str(db), "select count(*) from runs").rows == [[1]]  # no run started, no lock left
    assert run_query(str(db), "select count(*) from run_lock").rows == [[0]]


def test_a_page_that_loses_text_is_named_by_show_and_by_the_run_item(folder, tmp_path, monkeypatch):
    """A page whose text layer does not reach its elements is no silent loss. The
    parser is made to lose the rice manual's paragraph on the way from blocks to elements."""
    import parsers.pdf

    real = parsers.pdf.blocks_to_elements

    def losing_the_paragraph(*args, **kwargs):
        return [e for e in real(*args, **kwargs) if "borer" not in e.text]

    monkeypatch.setattr(parsers.pdf, "blocks_to_elements", losing_the_paragraph)
    db = tmp_path / "i.db"
    assert run(folder, db).exit_code == 0
    lost = len("Stemborerdamageisreducedbyearlytransplanting.")
    (doc_id, message), *_ = run_query(
        str(db), "select document_id, message from run_items where source_path like '%rice.pdf'"
    ).rows
    assert f"text lost on page 1 ({lost} chars)" in message
    shown = ingest("show", doc_id, "--db", str(db))
    assert f"warning: page 1: {lost} of " in shown.output and "text-layer characters reached no element" in shown.output
    clean = run_query(str(db), "select message from run_items where source_path like '%wheat.pdf'").rows
    assert "text lost" not in (clean[0][0] or "")
