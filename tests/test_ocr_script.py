"""An OCR page read at low confidence is told, with the language that would read it.

Pure: the warning from (page, confidence, script, languages). Slow: a Chinese page of the
corpus OCR'd with `eng` (the only CJK-free setting installed here) through `ingest run`, its
warning stored with the document, shown by `ingest show` and listed by `ingest runs`."""

from __future__ import annotations

import pytest
from conftest import CORPUS, pdf_pages

from parsers.ocr.script import LOW_CONFIDENCE, low_confidence_warning


def test_a_confident_page_or_an_empty_one_gets_no_warning():
    assert low_confidence_warning(3, LOW_CONFIDENCE + 1, None, "eng") is None
    assert low_confidence_warning(3, None, None, "eng") is None


def test_a_script_the_languages_do_not_read_names_the_language_and_its_package():
    warning = low_confidence_warning(2, 38.6, "Han", "eng+hin")
    assert warning.startswith("page 2: OCR read at low confidence 39 (of 100) with --ocr-lang eng+hin;")
    assert "Han script" in warning and "--ocr-lang eng+hin+chi_sim" in warning
    assert "apt-get install tesseract-ocr-chi-sim" in warning


def test_a_script_the_languages_read_or_an_unknown_one_names_no_language():
    covered = low_confidence_warning(1, 41, "Devanagari", "eng+mar")
    assert "--ocr-lang eng+mar;" in covered and "try --ocr-lang" not in covered
    unknown = low_confidence_warning(1, 41, None, "eng")
    assert "try --ocr-lang" not in unknown and "check the scan" in unknown


@pytest.mark.shared
@pytest.mark.slow
def test_a_chinese_page_read_as_english_is_warned_in_show_and_runs(tmp_path):
    """Before: pr-136 p1 OCR'd with eng came back as "KES THA FB AT" at confidence 37 and
    nothing said so."""
    source = CORPUS / "pr-136-example.pdf"
    if not source.exists():
        pytest.skip(f"corpus not available at {CORPUS}")
    from typer.testing import CliRunner

    from ingest import api
    from ingest.cli import app

    folder = tmp_path / "pdfs"
    folder.mkdir()
    pdf_pages(source, 1, into=folder)
    db = str(tmp_path / "ingest.db")
    runner = CliRunner()
    result = runner.invoke(
        app, ["run", str(folder), "--db", db, "--ocr", "always", "--ocr-lang", "eng", "-q", "--workers", "0"]
    )
    assert result.exit_code == 0, result.output

    (problem,) = api.runs(db).last_run_problems
    assert "page 1: OCR read at low confidence" in problem.message
    assert "Han script" in problem.message and "--ocr-lang eng+chi_sim" in problem.message
    shown = runner.invoke(app, ["runs", "--db", db])
    assert "OCR read at low confidence" in shown.output
    document = runner.invoke(app, ["show", problem.document_id, "--db", db])
    assert "try --ocr-lang eng+chi_sim" in document.output
