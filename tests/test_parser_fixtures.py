"""parse_pdf against the fixtures' ground truth (fixtures/*.truth.json, see the README (Fixtures)).

Level convention: the truth gives the document title level 0 and headings 1..3 below it;
`Element.heading_level` starts at 1, so the title is level 1 and a truth level L is L + 1.
"""

from __future__ import annotations

import functools
import json
import shutil

import pytest
from conftest import FIXTURES

from ingest.contracts.elements import ElementType
from parsers.pdf import parse_pdf

BORN_DIGITAL = ["crop_manual", "two_column", "unruled_table", "scheme_notice_hi", "scheme_notice_mr", "pest_advisory"]
NO_OCR = {"ocr": {"mode": "never"}}


@functools.lru_cache(maxsize=None)
def _parsed(name: str):
    return parse_pdf(FIXTURES / f"{name}.pdf", NO_OCR)


def load(name: str):
    pdf = FIXTURES / f"{name}.pdf"
    truth = FIXTURES / f"{name}.truth.json"
    if not pdf.exists() or not truth.exists():
        pytest.skip(f"fixture {name} not generated (run python fixtures/generate.py)")
    return _parsed(name), json.loads(truth.read_text(encoding="utf-8"))


def body(document):
    return [e for e in document.elements if not e.is_furniture and e.data.get("role") != "margin"]


@pytest.mark.parametrize("name", BORN_DIGITAL)
def test_title_and_heading_levels_match_truth(name):
    document, truth = load(name)
    assert document.title == truth["title"]
    titles = [e for e in document.elements if e.type is ElementType.title]
    assert titles[0].text == truth["title"] and titles[0].heading_level == 1
    got = [(e.text, e.heading_level - 1, e.page) for e in titles[1:]]
    assert got == [(h["text"], h["level"], h["page"]) for h in truth["headings"]]


@pytest.mark.parametrize("name", BORN_DIGITAL)
def test_reading_order_matches_truth(name):
    document, truth = load(name)
    got = [" ".join(e.text.split()[:3]) for e in body(document)]
    assert got == [" ".join(t.split()[:3]) for t in truth["reading_order"]]


@pytest.mark.parametrize("name", BORN_DIGITAL)
def test_canonical_text_equals_truth_text(name):
    """Paragraphs joined, hyphenation undone, furniture out, tables as rows: the whole body text."""
    document, truth = load(name)
    assert document.canonical_text() == truth["text"]


@pytest.mark.parametrize("name", BORN_DIGITAL)
def test_running_headers_and_footers_are_furniture_not_body(name):
    document, truth = load(name)
    furniture = {e.text for e in document.elements if e.is_furniture}
    for text in truth["furniture"]:
        assert text in furniture
        assert not any(text in e.text for e in body(document))


@pytest.mark.parametrize("name", ["crop_manual", "unruled_table", "pest_advisory"])
def test_tables_have_their_header_rows_and_captions(name):
    document, truth = load(name)
    tables = [e for e in document.elements if e.type is ElementType.table]
    assert len(tables) == len(truth["tables"])
    for table, expected in zip(tables, truth["tables"]):
        assert table.caption == expected["caption"]
        assert table.rows[: table.header_rows] == expected["header"]
        assert table.rows[table.header_rows :] == expected["rows"]
        assert [table.page, table.last_page] == [expected["pages"][0], expected["pages"][-1]]
        assert table.data["ruled"] is expected["ruled"]


def test_table_continued_across_page_break_is_one_table_without_repeated_header():
    document, truth = load("crop_manual")
    continued = [t for t in truth["tables"] if len(t["pages"]) > 1]
    assert continued, "fixture should hold a continued table"
    table = next(e for e in document.elements if e.type is ElementType.table and e.caption == continued[0]["caption"])
    assert table.page_end == continued[0]["pages"][-1]
    header = table.rows[: table.header_rows]
    assert header == continued[0]["header"]
    assert header[0] not in table.rows[table.header_rows :]
    assert [part["page"] for part in table.data["parts"]] == continued[0]["pages"]


@pytest.mark.parametrize("name", ["crop_manual", "scheme_notice_hi", "scheme_notice_mr", "pest_advisory"])
def test_list_items_keep_wrapped_lines_and_enumerators_but_no_bullets(name):
    document, truth = load(name)
    items = [e for e in document.elements if e.type is ElementType.list_item]
    texts = [e.text for e in items]
    for expected in truth["lists"]:
        start = texts.index(expected["items"][0])
        assert texts[start : start + len(expected["items"])] == expected["items"]
        ordered = [items[start + k].data.get("marker", "") for k in range(len(expected["items"]))]
        assert all(m[:1].isdigit() for m in ordered) == expected["ordered"]
    assert all(e.list_level == 0 for e in items)


def test_hyphenated_words_are_rejoined():
    document, truth = load("crop_manual")
    text = document.canonical_text()
    for entry in truth["hyphenated"]:
        assert entry["word"] in text.split() or entry["word"] in text


def test_devanagari_in_logical_order_without_spurious_spaces():
    document, truth = load("scheme_notice_hi")
    text = document.canonical_text()
    for word in ("किसानों", "सिंचाई", "निम्नलिखित", "कुएँ", "प्रक्रिया"):
        assert word in truth["text"] and word in text
    assert "कि सान" not in text and "सि ंचाई" not in text


def test_scanned_page_goes_to_ocr_reason_and_empty_in_never_mode():
    pdf = FIXTURES / "mixed.pdf"
    if not pdf.exists():
        pytest.skip("fixture mixed not generated")
    truth = json.loads((FIXTURES / "mixed.truth.json").read_text(encoding="utf-8"))
    document = parse_pdf(pdf, NO_OCR)
    for page in document.pages:
        if page.page_no in truth["scanned_pages"]:
            assert page.text_source.value == "empty" and page.ocr_reason == "no text layer"
        else:
            assert page.text_source.value == "text_layer" and page.ocr_reason is None


@pytest.mark.slow
def test_scanned_page_is_ocrd_and_spliced_in_page_order():
    pdf = FIXTURES / "mixed.pdf"
    if not pdf.exists() or shutil.which("tesseract") is None:
        pytest.skip("needs fixtures/mixed.pdf and Tesseract")
    truth = json.loads((FIXTURES / "mixed.truth.json").read_text(encoding="utf-8"))
    document = parse_pdf(pdf, {"ocr": {"mode": "auto", "languages": "eng"}})
    scanned = truth["scanned_pages"][0]
    page = document.pages[scanned - 1]
    assert page.text_source.value == "ocr" and page.ocr_reason == "no text layer" and page.ocr_confidence > 50
    assert [e.page for e in document.elements] == sorted(e.page for e in document.elements)
    ocr_body = [e for e in document.elements if e.page == scanned and not e.is_furniture]
    assert ocr_body and all(e.source.value == "ocr" for e in ocr_body)
    assert not any(e.text.startswith("Page 2 of 3") for e in ocr_body), "OCR'd page footer must be furniture"


def _fake_ocr(monkeypatch, calls, error=None):
    import parsers.ocr.tesseract as ocr
    from ingest.contracts.elements import Element, TextSource

    def fake_pages(pdf_path, page_numbers, settings, on_page_read=None):
        calls.append(list(page_numbers))
        return {
            n: ocr.OcrPageResult(
                page_no=n,
                confidence=None if error else 91.0,
                error=error,
                elements=[]
                if error
                else [
                    Element(
                        type=ElementType.paragraph,
                        text=f"ocr text of page {n}",
                        page=n,
                        bbox=(72, 300, 500, 320),
                        source=TextSource.ocr,
                        confidence=91.0,
                    ),
                    Element(
                        type=ElementType.paragraph,
                        text=f"Page {n} of 3",
                        page=n,
                        bbox=(280, 800, 330, 812),
                        source=TextSource.ocr,
                        confidence=91.0,
                    ),
                ],
            )
            for n in page_numbers
        }

    monkeypatch.setattr(ocr, "check_ocr_available", lambda settings: None)
    monkeypatch.setattr(ocr, "ocr_pages", fake_pages)


def test_pages_needing_ocr_go_in_one_call_and_are_spliced_in_page_order(monkeypatch):
    pdf = FIXTURES / "mixed.pdf"
    if not pdf.exists():
        pytest.skip("fixture mixed not generated")
    truth = json.loads((FIXTURES / "mixed.truth.json").read_text(encoding="utf-8"))
    calls: list[list[int]] = []
    _fake_ocr(monkeypatch, calls)
    document = parse_pdf(pdf, {"ocr": {"mode": "auto"}})
    assert calls == [truth["scanned_pages"]]
    scanned = truth["scanned_pages"][0]
    page = document.pages[scanned - 1]
    assert (page.text_source.value, page.ocr_confidence, page.ocr_reason) == ("ocr", 91.0, "no text layer")
    pages_in_order = [e.page for e in document.elements]
    assert pages_in_order == sorted(pages_in_order)
    on_scan = [e for e in document.elements if e.page == scanned]
    assert [e.text for e in on_scan if not e.is_furniture] == [f"ocr text of page {scanned}"]
    assert [e.type for e in on_scan if e.is_furniture] == [ElementType.page_number]  # "Page 2 of 3" read by OCR


def test_ocr_failure_fails_the_document_naming_the_page(monkeypatch):
    """A page that cannot be OCR'd fails the document (page and reason named)."""
    from ingest.contracts.errors import OcrError

    pdf = FIXTURES / "mixed.pdf"
    if not pdf.exists():
        pytest.skip("fixture mixed not generated")
    scanned = json.loads((FIXTURES / "mixed.truth.json").read_text(encoding="utf-8"))["scanned_pages"][0]
    _fake_ocr(monkeypatch, [], error="tesseract crashed")
    with pytest.raises(OcrError) as caught:
        parse_pdf(pdf, {"ocr": {"mode": "auto"}})
    assert caught.value.stage == "ocr" and caught.value.page == scanned and caught.value.path == str(pdf)
    assert "tesseract crashed" in caught.value.reason and f"page {scanned}" in caught.value.reason


def test_always_mode_ocrs_every_page(monkeypatch):
    pdf = FIXTURES / "two_column.pdf"
    if not pdf.exists():
        pytest.skip("fixture two_column not generated")
    calls: list[list[int]] = []
    _fake_ocr(monkeypatch, calls)
    document = parse_pdf(pdf, {"ocr": {"mode": "always"}})
    assert calls == [[1]]
    assert document.pages[0].text_source.value == "ocr"
    assert all(e.source.value == "ocr" for e in document.elements)
