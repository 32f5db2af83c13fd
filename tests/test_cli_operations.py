"""What the CLI shows is what is stored: literal cells, plain flags, truthful runs."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ingest.cli import app

sys.path.insert(0, str(Path(__file__).parent))
from test_pipeline import make_pdf  # noqa: E402

runner = CliRunner()
QUIET_RUN = ("--workers", "0", "--ocr", "never", "-q")

HOSTILE = ["[bold]x[/bold]", "[b]", "section 54954.3[b]", "[income]", "[/]", "\\[x]", "[link=http://a]y[/link]"]


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ops")
    make_pdf(
        root / "pdfs" / "brown act.pdf",
        "Brown act [b]",
        ["Notice is given under section 54954.3[b] of the code.", "Whitefly [income] is [bold]rare[/bold]."],
    )
    path = root / "i.db"
    result = runner.invoke(app, ["run", str(root / "pdfs"), "--db", str(path), *QUIET_RUN])
    assert result.exit_code == 0, result.output
    return path


def test_query_table_prints_every_cell_and_header_literally(db):
    sql = "select " + ", ".join(f"'{value}' as \"{value}\"" for value in HOSTILE)
    result = runner.invoke(app, ["query", sql, "--db", str(db)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    header, row = [line for line in result.stdout.splitlines() if "[" in line][:2]
    for value in HOSTILE:
        assert value in header and value in row, (value, result.stdout)


def test_fts_snippet_keeps_its_brackets(db):
    # the README's search recipe: the matched word is marked with [ and ]
    sql = "select snippet(chunks_fts, -1, '[', ']', '…', 8) from chunks_fts where chunks_fts match 'whitefly'"
    result = runner.invoke(app, ["query", sql, "--db", str(db)], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    assert "[Whitefly]" in result.stdout, result.stdout


def test_show_prints_stored_text_literally(db):
    doc_id = sqlite3.connect(db).execute("select id from documents").fetchone()[0]
    result = runner.invoke(app, ["show", doc_id, "--db", str(db), "--width", "200"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    for value in ("54954.3[b]", "[income]", "[bold]rare[/bold]"):
        assert value in result.stdout, (value, result.stdout)


@pytest.mark.parametrize("command", ["run", "reprocess", "show", "runs", "query"])
def test_help_shows_flags_without_a_value(command):
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "<bool>" not in result.output
    assert "--help " in result.output or "--help\n" in result.output


def test_force_is_a_plain_flag(db):
    folder = Path(sqlite3.connect(db).execute("select source_path from documents").fetchone()[0]).parent
    again = runner.invoke(app, ["run", str(folder), "--db", str(db), "--force", *QUIET_RUN])
    assert again.exit_code == 0, again.output
    outcome = sqlite3.connect(db).execute("select outcome from run_items order by id desc limit 1").fetchone()[0]
    assert outcome == "changed"  # --force re-processed the unchanged file


def test_a_mistyped_path_writes_nothing(tmp_path):
    db = tmp_path / "i.db"
    result = runner.invoke(app, ["run", str(tmp_path / "nonexistent"), "--db", str(db), *QUIET_RUN])
    assert result.exit_code == 2 and "does not exist" in result.stderr
    assert not db.exists()  # no database file, so no run row either


def test_a_mistyped_path_adds_no_run_row(db):
    before = sqlite3.connect(db).execute("select count(*) from runs").fetchone()[0]
    result = runner.invoke(app, ["run", "/nonexistent/", "--db", str(db)])
    assert result.exit_code == 2
    assert sqlite3.connect(db).execute("select count(*) from runs").fetchone()[0] == before
    assert "finding and hashing" not in result.output  # no stray progress bar


def test_an_interrupted_run_records_what_it_stored(tmp_path):
    from ingest import api

    for name in ("a", "b", "c"):
        make_pdf(tmp_path / "pdfs" / f"{name}.pdf", f"Manual {name}", [f"Paragraph about {name} and pests."])
    db = tmp_path / "i.db"
    seen = []

    def stop_after_two(event, value):
        if event == "item":
            seen.append(value)
            if len(seen) == 2:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        api.run([str(tmp_path / "pdfs")], db=str(db), workers=0, ocr="never", observer=stop_after_two)
    status, new, chunks = sqlite3.connect(db).execute("select status, new, chunks_written from runs").fetchone()
    stored = sqlite3.connect(db).execute("select count(*), sum(chunk_count) from documents").fetchone()
    assert status == "interrupted"
    assert (new, chunks) == stored and new == 2


def _sources(db: Path) -> set[str]:
    return {source for (source,) in sqlite3.connect(db).execute("select text_source from pages")}


def test_reprocess_options_stay_pinned_until_unpinned(tmp_path):
    make_pdf(tmp_path / "pdfs" / "scan.pdf", "Pest notice", ["Spray neem oil against whitefly at dusk."])
    db = tmp_path / "i.db"
    nightly = ["run", str(tmp_path / "pdfs"), "--db", str(db), "--workers", "0", "-q"]
    assert runner.invoke(app, nightly).exit_code == 0
    doc_id = sqlite3.connect(db).execute("select id from documents").fetchone()[0]
    assert _sources(db) == {"text_layer"}

    assert runner.invoke(app, ["reprocess", doc_id, "--db", str(db), "--ocr", "always"]).exit_code == 0
    assert _sources(db) == {"ocr"}
    shown = runner.invoke(app, ["show", doc_id, "--db", str(db)], env={"COLUMNS": "300"})
    assert "pinned settings" in shown.stdout and '"always"' in shown.stdout

    again = runner.invoke(app, nightly)  # the nightly run neither counts the pin as a change nor undoes it
    assert again.exit_code == 0
    outcome = sqlite3.connect(db).execute("select outcome from run_items order by id desc limit 1").fetchone()[0]
    assert outcome == "unchanged" and _sources(db) == {"ocr"}
    assert runner.invoke(app, [*nightly, "--force"]).exit_code == 0
    assert _sources(db) == {"ocr"}  # a forced run processes the document with its pinned settings

    assert runner.invoke(app, ["reprocess", doc_id, "--db", str(db), "--unpin"]).exit_code == 0
    assert _sources(db) == {"text_layer"}
    assert "pinned settings" not in runner.invoke(app, ["show", doc_id, "--db", str(db)]).stdout
    assert runner.invoke(app, nightly).exit_code == 0
    outcome = sqlite3.connect(db).execute("select outcome from run_items order by id desc limit 1").fetchone()[0]
    assert outcome == "unchanged"


def test_a_version_1_database_is_migrated_in_place(tmp_path):
    from storage import SCHEMA_VERSION, open_database

    make_pdf(tmp_path / "pdfs" / "a.pdf", "Manual", ["Text."])
    db = tmp_path / "i.db"
    assert runner.invoke(app, ["run", str(tmp_path / "pdfs"), "--db", str(db), *QUIET_RUN]).exit_code == 0
    with sqlite3.connect(db) as connection:  # what version 1 looked like
        connection.execute("drop view chunk_context")
        connection.execute("alter table documents drop column pinned_settings")
        for column in ("text_chars", "element_chars", "lost_chars", "dropped"):  # added by version 3
            connection.execute(f"alter table pages drop column {column}")
        connection.execute("update meta set value = '1' where key = 'schema_version'")
    doc_id = sqlite3.connect(db).execute("select id from documents").fetchone()[0]
    refused = runner.invoke(app, ["show", doc_id, "--db", str(db)])  # a reader does not migrate
    assert refused.exit_code == 4 and "migrates it in place" in refused.stderr
    open_database(db).close()
    connection = sqlite3.connect(db)
    version = connection.execute("select value from meta where key = 'schema_version'").fetchone()
    assert version == (str(SCHEMA_VERSION),)
    assert connection.execute("select count(*), count(pinned_settings) from documents").fetchone() == (1, 0)
    assert connection.execute("select count(*) from chunk_context").fetchone()[0] > 0  # every step ran
    assert connection.execute("select count(*), count(text_chars) from pages").fetchone() == (1, 0)


def test_an_all_unchanged_run_shows_no_empty_bar(db):
    folder = Path(sqlite3.connect(db).execute("select source_path from documents").fetchone()[0]).parent
    result = runner.invoke(app, ["run", str(folder), "--db", str(db), "--workers", "0", "--ocr", "never"])
    assert result.exit_code == 0
    assert "0/0" not in result.output and "ingesting" not in result.output
    assert "unchanged" in result.stdout
