"""parse_pdf on real PDFs from ../shared/corpus (not designed by us), with a handful of
hand-checked expectations each, and the broken files a nightly run will meet."""

from __future__ import annotations

import functools

import pytest
from conftest import CORPUS, shared_file

from ingest.contracts.elements import ElementType
from ingest.contracts.errors import ParseError
from parsers.pdf import parse_pdf

NO_OCR = {"ocr": {"mode": "never"}}


@functools.lru_cache(maxsize=None)
def parsed(name: str):
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"corpus file {path} absent (the corpus lives beside the repo, not in it)")
    return parse_pdf(path, NO_OCR)


def types(document, kind):
    return [e for e in document.elements if e.type is kind]


@pytest.mark.shared
def test_two_column_paper_keeps_margin_stamp_out_of_body_and_fixes_ligatures():
    document = parsed("layout-parser-paper-fast.pdf")
    assert document.title == "LayoutParser: A Unified Toolkit for Deep Learning Based Document Image Analysis"
    text = document.canonical_text()
    assert "arXiv" not in text
    assert any(e.data.get("role") == "margin" and e.text.startswith("arXiv:2103.15348") for e in document.elements)
    assert "difficulties" in text and "dif f" not in text  # "ﬃ" ligature split by the font
    assert "recent advances" in text  # "re-" + "cent" across a line break
    titles = [e.text for e in types(document, ElementType.title)]
    assert titles[1:4] == ["Abstract.", "Keywords:", "1 Introduction"]  # run-in leads are headings too
    items = types(document, ElementType.list_item)
    assert [e.data["marker"] for e in items] == ["1.", "2.", "3.", "4."]
    assert items[0].text.startswith("1. An off-the-shelf toolkit")  # a numbered list reads as numbered
    assert "Z. Shen et al." not in text  # running header of page 2


@pytest.mark.shared
def test_ruled_tables_with_header_from_word_and_curves():
    word = parsed("word365_structure.pdf")
    table = types(word, ElementType.table)[0]
    assert table.rows[0] == ["En-tête 1", "En-tête 2", "En-tête 3"] and table.header_rows == 1
    assert ["Ligne 1", "Alouette", "Farfadet"] in table.rows
    assert [e.text for e in types(word, ElementType.list_item)][:3] == ["Liste", "Liste 2", "Liste 3"]
    curves = parsed("table-curves-example.pdf")
    table = types(curves, ElementType.table)[0]
    assert table.caption == "Table 2: Tabulated adverse reactions"
    assert table.rows[0][0] == "System organ class" and table.header_rows == 1
    assert ["Anaemia", "Common", "Common", "Common"] in table.rows


@pytest.mark.shared
def test_unruled_numeric_table_beside_a_figure():
    document = parsed("embedded-images-tables.pdf")
    table = types(document, ElementType.table)[0]
    assert table.caption.startswith("Table 1 Potentiodynamic polarization data")
    assert table.rows[0][:2] == ["Inhibitor", "bc (V/dec)"]
    assert ["0", "0.0335", "0.0409", "0.9393", "0.0003", "24.0910", "2.8163"] in table.rows
    assert document.elements[0].type is ElementType.header  # "454 O. Sanni, ... Data in Brief"


@pytest.mark.shared
def test_transcript_margin_line_numbers_are_not_text():
    document = parsed("scotus-transcript-p1.pdf")
    text = document.canonical_text()
    assert "IN THE SUPREME COURT OF THE UNITED STATES" in text
    assert "20 21 22" not in text and "10 Tuesday" not in text
    assert "Official - Subject to Final Review" in {e.text for e in document.elements if e.is_furniture}


@pytest.mark.shared
def test_accents_korean_and_iso_info_dates():
    minutes = parsed("2023-06-20-PV.pdf")
    assert "Comité de démolition" in minutes.title
    korean = parsed("normal_4pages.pdf")
    assert korean.metadata["pdf"]["CreationDate"] == "2020-03-31T18:02:55+09:00"
    assert korean.title == "코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제"


@pytest.mark.shared
@pytest.mark.slow
def test_long_report_pages_numbers_and_tables():
    chelsea = parsed("chelsea_pdta.pdf")
    assert chelsea.page_count == 65 and not [p for p in chelsea.pages if p.error]
    tables = types(chelsea, ElementType.table)
    assert len(tables) >= 10 and all(t.rows and len(t.rows[0]) >= 2 for t in tables)
    assert types(chelsea, ElementType.page_number)
    levels = {e.text: e.heading_level for e in types(chelsea, ElementType.title)}
    assert levels["2. Méthodologie et consultations"] == 2  # outline level 0, below the document title
    assert levels["2.1. Rencontres avec des groupes d’intérêts"] == 3


@pytest.mark.shared
def test_word_symbol_font_bullets_make_list_items_and_leave_no_glyph_in_headings():
    chelsea = parsed("chelsea_pdta.pdf")
    symbol = [e for e in chelsea.elements if any("\uf000" <= ch <= "\uf0ff" for ch in e.text[:2])]
    assert symbol == []
    items = [e.text for e in types(chelsea, ElementType.list_item)]
    assert any(text.startswith("Les répondants souhaiteraient être en mesure de se déplacer") for text in items)
    assert "Le financement du transport actif" in [e.text for e in types(chelsea, ElementType.title)]


@pytest.mark.shared
@pytest.mark.slow
def test_619_page_document_parses_every_page_with_page_numbers_as_furniture():
    document = parsed("DA-619p.pdf")
    assert document.page_count == 619 and len(document.pages) == 619
    assert not [p for p in document.pages if p.error]
    numbered = {e.page for e in types(document, ElementType.page_number)}
    assert len(numbered) > 600
    assert all(e.page <= f.page for e, f in zip(document.elements, document.elements[1:]) if not e.page_end)


@pytest.mark.shared
@pytest.mark.parametrize(
    "name, cause",
    [
        ("password-example.pdf", "encrypted"),
        ("empty.pdf", "empty file"),
        ("not-a-pdf.pdf", "not a PDF"),
        ("truncated-reliance.pdf", "damaged or truncated"),
    ],
)
def test_broken_files_raise_parse_error_naming_file_and_cause(name, cause):
    path = CORPUS / "broken" / name
    if not path.exists():
        pytest.skip(f"{path} absent")
    with pytest.raises(ParseError) as caught:
        parse_pdf(path, NO_OCR)
    assert cause in str(caught.value) and name in str(caught.value)
    assert caught.value.stage == "parse"


def test_pdf_with_no_pages_is_reported_as_such(tmp_path):
    """PDFium refuses a valid 0-page PDF like a damaged one; the message says which."""
    import pypdfium2 as pdfium

    path = tmp_path / "no-pages.pdf"
    empty = pdfium.PdfDocument.new()
    empty.save(path)
    empty.close()
    with pytest.raises(ParseError) as caught:
        parse_pdf(path, NO_OCR)
    assert "the PDF has no pages" in str(caught.value) and "damaged" not in str(caught.value)
    assert caught.value.stage == "parse" and "no-pages.pdf" in str(caught.value)


@pytest.mark.shared
def test_partly_readable_file_is_stored_not_fatal():
    """A file with a damaged cross-reference table that pdfium still reads: every page it reads is
    a page of the document, and every word pdfium reads on it reaches an element."""
    import pypdfium2

    path = shared_file(CORPUS / "broken" / "malformed-from-issue-932.pdf")
    document = parse_pdf(path, NO_OCR)
    reader = pypdfium2.PdfDocument(path)
    try:
        expected = [reader[index].get_textpage().get_text_range().split() for index in range(len(reader))]
    finally:
        reader.close()
    assert document.page_count == len(expected) > 0
    assert any(expected), "the reference reads no word: the check would be empty"
    for page, words in enumerate(expected, start=1):
        assert " ".join(e.text for e in document.elements if e.page == page).split() == words, page


@pytest.mark.shared
def test_code_listing_keeps_its_lines_and_its_caption():
    document = parsed("code_and_formula.pdf")
    captions = [e.text for e in types(document, ElementType.caption)]
    assert "Listing 1: Simple JavaScript Program" in captions
    code = next(e for e in document.elements if e.text.startswith("function add"))
    assert code.text.splitlines()[:2] == ["function add(a, b) {", "return a + b;"]
    # a paragraph's first line at the top of both pages is body, not a running header
    assert not [e for e in document.elements if e.is_furniture and e.text.startswith("Lorem ipsum")]
