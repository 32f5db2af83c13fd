"""The command line: help text, output formats, exit codes, one-line errors."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import sys
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from ingest.cli import app

sys.path.insert(0, str(Path(__file__).parent))
from test_pipeline import make_pdf  # noqa: E402

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    make_pdf(
        root / "pdfs" / "cotton.pdf",
        "Cotton manual",
        ["Whitefly is controlled by spraying neem oil at dusk.", "Bollworm needs pheromone traps."],
    )
    make_pdf(root / "pdfs" / "schemes" / "kisan.pdf", "Kisan scheme", ["Farmers receive income support."])
    config = root / "c.toml"
    config.write_text('[[enrich.rules]]\npattern = "schemes/*"\nmetadata = { doc_type = "scheme" }\n')
    path = root / "i.db"
    result = runner.invoke(
        app,
        [
            "run",
            str(root / "pdfs"),
            "--db",
            str(path),
            "--workers",
            "0",
            "--ocr",
            "never",
            "-q",
            "--config",
            str(config),
        ],
    )
    assert result.exit_code == 0, result.output
    return path


def test_every_command_has_help_text():
    command = get_command(app)
    assert set(command.commands) >= {"run", "reprocess", "query", "show", "runs", "unlock"}
    for name, sub in command.commands.items():
        assert sub.help and len(sub.help.strip()) > 20, f"`ingest {name}` has no help"
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0
        assert "Usage" in result.output
        for parameter in sub.params:
            if parameter.param_type_name == "option" and parameter.name != "help":
                assert parameter.help, f"`ingest {name} --{parameter.name}` has no help"


def test_top_level_help_lists_exit_codes():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "Exit codes" in result.output and "locked" in result.output


def test_query_formats(db):
    sql = "select title, json_extract(metadata, '$.doc_type') as doc_type from documents order by title"
    as_json = runner.invoke(app, ["query", sql, "--db", str(db), "--format", "json"])
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout) == [
        {"title": "Cotton manual", "doc_type": None},
        {"title": "Kisan scheme", "doc_type": "scheme"},
    ]
    as_csv = runner.invoke(app, ["query", sql, "--db", str(db), "--format", "csv"])
    assert list(csv.reader(io.StringIO(as_csv.stdout))) == [
        ["title", "doc_type"],
        ["Cotton manual", ""],
        ["Kisan scheme", "scheme"],
    ]
    as_table = runner.invoke(app, ["query", sql, "--db", str(db)])
    assert "Kisan scheme" in as_table.stdout and "NULL" in as_table.stdout


def test_tables_written_to_a_pipe_keep_one_line_per_row(db, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    sql = "select source_path, title, title || ' ' || title || ' ' || source_path as long_text from documents"
    result = runner.invoke(app, ["query", sql, "--db", str(db)])
    rows = [line for line in result.stdout.splitlines() if "Kisan scheme" in line]
    assert len(rows) == 1, result.stdout  # not wrapped over several lines as at 80 columns
    assert "pdfs" in rows[0] and rows[0].count("Kisan scheme") == 3


@pytest.mark.parametrize(
    "sql",
    [
        "delete from chunks",
        "drop table documents",
        "update documents set title = 'x'",
        "attach database 'x.db' as x",
        "pragma query_only = off",
    ],
)
def test_query_write_attempts_exit_6_and_change_nothing(db, sql):
    before = list(sqlite3.connect(db).iterdump())
    result = runner.invoke(app, ["query", sql, "--db", str(db)])
    assert result.exit_code == 6
    assert "read-only" in result.stderr and "nothing was changed" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 or result.stderr.count("error:") == 1
    assert list(sqlite3.connect(db).iterdump()) == before


def test_query_sql_error_exit_6(db):
    result = runner.invoke(app, ["query", "select nope from documents", "--db", str(db)])
    assert result.exit_code == 6 and "no such column" in result.stderr


def test_db_accepts_an_sqlalchemy_url(db):
    result = runner.invoke(app, ["query", "select count(*) from documents", "--db", f"sqlite:///{db}", "-f", "csv"])
    assert result.exit_code == 0 and result.stdout.splitlines() == ["count(*)", "2"]


def test_show_lists_elements_chunks_and_cuts(db):
    doc_id = sqlite3.connect(db).execute("select id from documents where title = 'Cotton manual'").fetchone()[0]
    result = runner.invoke(app, ["show", doc_id, "--db", str(db), "--json"])
    assert result.exit_code == 0
    view = json.loads(result.stdout)
    assert view["id"] == doc_id and view["elements"] and view["chunks"]
    assert all(chunk["starts"] and chunk["ends"] for chunk in view["chunks"])
    assert view["elements"][0]["type"] == "title"
    table = runner.invoke(app, ["show", doc_id[:6], "--db", str(db)], env={"COLUMNS": "220"})
    assert table.exit_code == 0 and "start of #" in table.stdout


def test_show_unknown_document_exits_5(db):
    result = runner.invoke(app, ["show", "ffffffffff", "--db", str(db)])
    assert result.exit_code == 5 and "no document" in result.stderr


def test_runs_lists_history(db):
    result = runner.invoke(app, ["runs", "--db", str(db), "--json"])
    assert result.exit_code == 0
    history = json.loads(result.stdout)
    assert history["runs"][-1]["new"] == 2 and history["runs"][-1]["status"] == "ok"


def test_unknown_config_key_exits_2_naming_it(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[chunk]\nchild_max_tokenz = 100\n")
    (tmp_path / "pdfs").mkdir()
    result = runner.invoke(
        app, ["run", str(tmp_path / "pdfs"), "--db", str(tmp_path / "i.db"), "--config", str(config), "--ocr", "never"]
    )
    assert result.exit_code == 2
    assert "chunk.child_max_tokenz" in result.stderr
    assert not (tmp_path / "i.db").exists()


def test_bad_option_exits_2(tmp_path):
    assert runner.invoke(app, ["run", str(tmp_path), "--workers", "-1"]).exit_code == 2
    assert runner.invoke(app, ["run", str(tmp_path), "--ocr", "sometimes"]).exit_code == 2


def test_newer_schema_exits_4(tmp_path, db):
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())
    with sqlite3.connect(copy) as connection:
        connection.execute("update meta set value = '99' where key = 'schema_version'")
    result = runner.invoke(app, ["runs", "--db", str(copy)])
    assert result.exit_code == 4 and "newer" in result.stderr


def test_missing_database_exits_4_without_creating_it(tmp_path):
    for command in (["runs"], ["show", "abc"], ["query", "select 1"]):
        result = runner.invoke(app, [*command, "--db", str(tmp_path / "none.db")])
        assert result.exit_code == 4, command
    assert not (tmp_path / "none.db").exists()


def test_lock_from_another_host_is_refused_until_unlocked(tmp_path):
    from storage import open_database
    from storage.schema import RunLockRow

    folder = tmp_path / "pdfs"
    make_pdf(folder / "a.pdf", "A", ["Text."])
    db = tmp_path / "i.db"
    database = open_database(db)
    with database.transaction() as session:
        session.add(
            RunLockRow(
                id=1, pid=1, hostname="other-host", process_start=None, run_id=None, acquired_at="2026-01-01T00:00:00Z"
            )
        )
    database.close()
    args = ["run", str(folder), "--db", str(db), "--workers", "0", "--ocr", "never", "-q"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 3 and "other-host" in refused.stderr and "ingest unlock" in refused.stderr
    cleared = runner.invoke(app, ["unlock", "--db", str(db)])
    assert cleared.exit_code == 0 and "other-host" in cleared.stdout
    assert runner.invoke(app, args).exit_code == 0
    assert runner.invoke(app, ["unlock", "--db", str(db)]).stdout.strip() == "no lock was held"


def test_config_store_db_is_used_when_db_is_not_given(tmp_path, monkeypatch):
    """The config's `[store] db` was ignored because --db defaulted to ingest.db."""
    from ingest import api

    monkeypatch.delenv("INGEST_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    make_pdf(tmp_path / "pdfs" / "cotton.pdf", "Cotton manual", ["Whitefly is controlled by neem oil."])
    config = tmp_path / "c.toml"
    config.write_text(f'[store]\ndb = "{(tmp_path / "conf.db").as_posix()}"\n')
    options = ["--workers", "0", "--ocr", "never", "-q", "--config", str(config)]
    result = runner.invoke(app, ["run", str(tmp_path / "pdfs"), *options])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "conf.db").exists() and not (tmp_path / "ingest.db").exists()
    assert api.query(str(tmp_path / "conf.db"), "SELECT count(*) FROM documents").rows == [[1]]
    result = runner.invoke(app, ["reprocess", str(tmp_path / "pdfs" / "cotton.pdf"), "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "ingest.db").exists()
    assert api.resolve_db(None, config) == (tmp_path / "conf.db").as_posix()
    assert api.resolve_db("given.db", config) == "given.db"
    monkeypatch.setenv("INGEST_DB", "env.db")
    assert api.resolve_db(None, config) == "env.db"
    monkeypatch.delenv("INGEST_DB")
    assert api.resolve_db(None, None) == "ingest.db"


def test_ocr_lang_that_is_not_tesseract_codes_is_a_usage_error(tmp_path):
    """The value never reaches Tesseract or the apt-get hint."""
    for command in (["run", str(tmp_path)], ["reprocess", str(tmp_path / "a.pdf")]):
        result = runner.invoke(app, [*command, "--db", str(tmp_path / "i.db"), "--ocr-lang", "../../etc/passwd"])
        assert result.exit_code == 2, result.output
        assert "--ocr-lang" in result.output and "apt-get" not in result.output
    assert not (tmp_path / "i.db").exists()
