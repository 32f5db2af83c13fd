"""Two parser fallbacks/failures a user sees:

- pdfium loses a page's CJK text (fonts it cannot map): the page is re-read with pdfminer
  instead of being OCR'd in the wrong language; normal pages never open pdfplumber;
- a page sent to OCR that cannot be read fails the whole document at stage "ocr" with the
  page and reason, and a batch run goes on with the other files.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import CORPUS, FIXTURES

import parsers.ocr.tesseract as ocr
import parsers.textlayer.pdfminer_fallback as plumber_chars
from ingest.contracts.elements import TextSource
from ingest.contracts.errors import OcrError
from parsers.pdf import parse_pdf
from parsers.textlayer.pdfminer_fallback import lost_text, plumber_chars_to_chars


def _record_ocr(monkeypatch, error: str | None = None, fail_page: int | None = None) -> list[list[int]]:
    """Replace Tesseract: record the pages asked for; `error` on `fail_page` (or every page)."""
    calls: list[list[int]] = []

    def fake_pages(pdf_path, page_numbers, settings, on_page_read=None):
        calls.append(list(page_numbers))
        return {n: ocr.OcrPageResult(page_no=n, error=error if fail_page in (None, n) else None) for n in page_numbers}

    monkeypatch.setattr(ocr, "check_ocr_available", lambda settings: None)
    monkeypatch.setattr(ocr, "ocr_pages", fake_pages)
    return calls


# --- CJK text that pdfium cannot read ------------------------------------------------


def test_chinese_text_layer_is_read_with_pdfminer_not_ocrd(monkeypatch):
    pdf = CORPUS / "pr-136-example.pdf"
    if not pdf.exists():
        pytest.skip(f"corpus file {pdf} absent (needs ../shared/corpus)")
    calls = _record_ocr(monkeypatch)
    document = parse_pdf(pdf, {"ocr": {"mode": "auto"}})
    assert calls == [], "a usable (Chinese) text layer must not be sent to OCR"
    assert [p.text_source for p in document.pages] == [TextSource.text_layer] * 6
    assert all(p.ocr_reason is None for p in document.pages)
    first_page = " ".join(e.text for e in document.elements if e.page == 1)
    assert "浙江菲达环保科技股份有限公司" in first_page  # the company name in the report's title
    assert "浙江菲达环保科技股份有限公司" in document.canonical_text()
    cjk = sum(1 for c in first_page if "\u4e00" <= c <= "\u9fff")
    assert cjk > 300, f"page 1 holds ~475 CJK characters in its text layer, got {cjk}"
    assert any("page 1: text layer read with pdfminer" in w for w in document.warnings)


def test_normal_pages_never_open_pdfplumber(monkeypatch):
    pdf = FIXTURES / "two_column.pdf"
    if not pdf.exists():
        pytest.skip("fixture two_column not generated")

    def forbidden(self, index):
        raise AssertionError(f"pdfminer fallback ran on page {index + 1} of a normal PDF")

    monkeypatch.setattr(plumber_chars.PdfminerFallback, "page_chars", forbidden)
    document = parse_pdf(pdf, {"ocr": {"mode": "never"}})
    assert document.elements and not any("pdfminer" in w for w in document.warnings)


def test_lost_text_gate():
    assert lost_text(670, "0" * 151)  # pr-136 page 1: 670 text objects, pdfium read 151 glyphs
    assert not lost_text(40, "word " * 300)  # a text object per line or run
    assert not lost_text(330, "a" * 300)  # one text object per glyph (some producers) is not loss
    assert not lost_text(0, "")  # a scan: nothing pdfminer could add


def test_a_glyph_pdfminer_reads_as_a_line_feed_is_a_word_space():
    """A font that maps its space glyph to U+000A (see `make_cover_space_as_line_feed.py`): the
    drawn glyph parts "of" and "the" although the letters are only 0.1 em apart."""
    from parsers.textlayer.chars import chars_to_segments

    glyphs = [("o", 0.0), ("f", 5.0), ("\n", 10.0), ("t", 11.0), ("h", 16.0), ("e", 21.0)]
    raw = [
        {"text": t, "x0": x, "x1": x + 5.0, "top": 0.0, "bottom": 10.0, "size": 10.0, "fontname": "F", "upright": True}
        for t, x in glyphs
    ]
    assert [s.text for s in chars_to_segments(plumber_chars_to_chars(raw))] == ["of the"]


def test_plumber_chars_become_parser_chars():
    raw = [
        {
            "text": "标",
            "x0": 10.0,
            "top": 20.0,
            "x1": 22.0,
            "bottom": 32.0,
            "size": 12.0,
            "fontname": "ABCDEF+SimHei-Bold",
            "upright": True,
        },
        {
            "text": "(cid:17)",
            "x0": 22.0,
            "top": 20.0,
            "x1": 34.0,
            "bottom": 32.0,
            "size": 12.0,
            "fontname": "ABCDEF+SimHei-Bold",
            "upright": True,
        },
        {
            "text": " ",
            "x0": 34.0,
            "top": 20.0,
            "x1": 37.0,
            "bottom": 32.0,
            "size": 12.0,
            "fontname": "SimSun",
            "upright": True,
        },
        {
            "text": "A",
            "x0": 500.0,
            "top": 300.0,
            "x1": 510.0,
            "bottom": 308.0,
            "size": 8.0,
            "fontname": "Helvetica",
            "upright": False,
        },
    ]
    chars = plumber_chars_to_chars(raw)
    assert [c.text for c in chars] == ["标", " ", "A"]  # the unmapped (cid:17) glyph is dropped...
    assert chars[0].x1 == 34.0  # ...and the previous character covers its width (no guessed space)
    assert (chars[0].bold, chars[0].font, chars[0].rotated) == (True, "SimHei-Bold", False)
    assert chars[1].is_space and not chars[1].bold
    assert chars[2].rotated and chars[2].size == 8.0


# --- a page OCR cannot read fails the document ----------------------------------------


def _mixed_fixture() -> tuple[Path, int]:
    pdf = FIXTURES / "mixed.pdf"
    if not pdf.exists():
        pytest.skip("fixture mixed not generated")
    truth = json.loads((FIXTURES / "mixed.truth.json").read_text(encoding="utf-8"))
    return pdf, truth["scanned_pages"][0]


def test_ocr_page_error_raises_ocr_error_with_page(monkeypatch):
    pdf, scanned = _mixed_fixture()
    _record_ocr(monkeypatch, error="render failed: page too large", fail_page=scanned)
    with pytest.raises(OcrError) as caught:
        parse_pdf(pdf, {"ocr": {"mode": "auto"}})
    error = caught.value
    assert (error.stage, error.page, error.path) == ("ocr", scanned, str(pdf))
    assert "render failed: page too large" in error.reason and f"page {scanned}" in error.reason


def test_batch_records_ocr_failure_and_goes_on(monkeypatch, tmp_path):
    from ingest.api import run

    pdf, scanned = _mixed_fixture()
    other = FIXTURES / "two_column.pdf"
    if not other.exists():
        pytest.skip("fixture two_column not generated")
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(pdf, folder / "mixed.pdf")
    shutil.copy(other, folder / "two_column.pdf")
    _record_ocr(monkeypatch, error="tesseract crashed", fail_page=scanned)
    db = tmp_path / "ingest.sqlite"
    summary = run([folder], db=str(db), workers=0, ocr="auto")
    by_name = {Path(item.path).name: item for item in summary.items}
    failed = by_name["mixed.pdf"]
    assert (failed.outcome, failed.stage) == ("failed", "ocr")
    assert f"page {scanned}" in failed.message and "tesseract crashed" in failed.message
    assert by_name["two_column.pdf"].outcome == "new"
    with sqlite3.connect(db) as connection:
        rows = dict(connection.execute("select source_path, status || ' ' || coalesce(error, '') from documents"))
    stored = {Path(path).name: value for path, value in rows.items()}
    assert stored["mixed.pdf"].startswith("failed [ocr]") and f"page {scanned}" in stored["mixed.pdf"]
    assert stored["two_column.pdf"].startswith("ok")
