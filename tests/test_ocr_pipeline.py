"""OCR inside the pipeline: a mixed document (text pages + one scanned page) through
parse_pdf, and scanned fixtures through `ingest run` end to end."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from conftest import FIXTURES

from ingest.contracts.elements import ElementType, TextSource
from parsers.pdf import parse_pdf

pytestmark = pytest.mark.slow


def truth(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.truth.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def mixed():
    return parse_pdf(FIXTURES / "mixed.pdf")


def test_mixed_document_ocrs_only_the_scanned_page(mixed):
    scanned = set(truth("mixed")["scanned_pages"])
    assert scanned == {2}
    sources = {page.page_no: page.text_source for page in mixed.pages}
    assert sources == {1: TextSource.text_layer, 2: TextSource.ocr, 3: TextSource.text_layer}
    page2 = mixed.pages[1]
    assert page2.ocr_confidence is not None and page2.ocr_confidence > 50
    assert page2.ocr_reason  # why it went to OCR is recorded
    assert all(p.ocr_confidence is None for p in mixed.pages if p.page_no not in scanned)


def test_mixed_document_is_one_element_stream_in_page_order(mixed):
    pages = [e.page for e in mixed.elements]
    assert pages == sorted(pages)
    assert set(pages) == {1, 2, 3}
    for element in mixed.elements:
        expected = TextSource.ocr if element.page == 2 else TextSource.text_layer
        assert element.source is expected, element
    ocr_elements = [e for e in mixed.elements if e.page == 2]
    assert all(e.confidence is not None for e in ocr_elements)
    assert any(e.type is ElementType.table for e in ocr_elements)


def test_mixed_document_canonical_text_follows_reading_order(mixed):
    text = mixed.canonical_text()
    firsts = [" ".join(b["text"].split()[:2]) for b in truth("mixed")["blocks"] if b["type"] != "table"]
    positions = [text.find(first) for first in firsts]
    found = [p for p in positions if p >= 0]
    assert len(found) >= 0.9 * len(firsts)
    assert found == sorted(found)
    # the scanned page's own header/footer are furniture, never body text
    assert "Page 2 of 3" not in text


def test_ocr_never_leaves_the_scanned_page_empty_and_always_ocrs_every_page():
    never = parse_pdf(FIXTURES / "mixed.pdf", {"ocr": {"mode": "never"}})
    assert never.pages[1].text_source is TextSource.empty
    assert not [e for e in never.elements if e.page == 2]
    always = parse_pdf(FIXTURES / "mixed.pdf", {"ocr": {"mode": "always", "dpi": 150}})
    assert {p.text_source for p in always.pages} == {TextSource.ocr}
    assert all(e.source is TextSource.ocr for e in always.elements)


def test_ingest_run_stores_scanned_and_mixed_fixtures(tmp_path):
    from typer.testing import CliRunner

    from ingest.cli import app

    folder = tmp_path / "pdfs"
    folder.mkdir()
    for name in ("scanned_notice", "scanned_hi", "mixed"):
        shutil.copy(FIXTURES / f"{name}.pdf", folder)
    db = tmp_path / "ingest.db"
    result = CliRunner().invoke(
        app, ["run", str(folder), "--db", str(db), "--ocr-lang", "eng+hin", "-q", "--workers", "0"]
    )
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as connection:
        sources = dict(
            connection.execute(
                "select d.source_path || '#' || p.page_no, p.text_source from pages p "
                "join documents d on d.id = p.document_id"
            ).fetchall()
        )
        chunks = [row[0] for row in connection.execute("select text from chunks")]
    assert sources[f"{folder / 'scanned_notice.pdf'}#1"] == "ocr"
    assert sources[f"{folder / 'scanned_hi.pdf'}#1"] == "ocr"
    assert sources[f"{folder / 'mixed.pdf'}#2"] == "ocr"
    assert sources[f"{folder / 'mixed.pdf'}#1"] == "text_layer"
    dose = next(b["text"] for b in truth("scanned_notice")["blocks"] if b["text"].startswith("Dose:"))
    assert any(dose in chunk for chunk in chunks)
    hindi_heading = truth("scanned_hi")["headings"][0]["text"]
    assert any(hindi_heading in chunk for chunk in chunks)


def test_a_cover_sent_to_ocr_still_names_the_document_from_its_text_layer(tmp_path):
    """A cover page (a big photo and the title) goes to OCR because its text is sparse beside
    the image; the title must still come from the cover's own text, not from the PDF info
    dictionary, which is often a stale template name."""
    fpdf = pytest.importorskip("fpdf")
    from PIL import Image

    from parsers.pdf import parse_pdf

    photo = tmp_path / "photo.png"
    Image.effect_noise((400, 300), 60).convert("RGB").save(photo)
    pdf = fpdf.FPDF(format="A4")
    pdf.set_title("Annual Report Template")
    pdf.add_page()
    pdf.image(str(photo), x=15, y=90, w=180, h=135)
    pdf.set_font("Helvetica", "B", 28)
    pdf.set_xy(15, 30)
    pdf.cell(0, 14, "Cotton Crop Manual 2025")
    pdf.add_page()
    pdf.set_font("Helvetica", "", 11)
    pdf.set_xy(15, 20)
    pdf.multi_cell(
        180,
        6,
        "Sow rainfed cotton after the monsoon has set in and the soil is moist to a depth "
        "of 15 cm. Keep 90 cm between rows and 60 cm between plants. " * 6,
    )
    path = tmp_path / "cover.pdf"
    pdf.output(str(path))

    document = parse_pdf(path, {"ocr": {"mode": "auto", "languages": "eng"}})
    assert document.pages[0].ocr_reason == "too little text for its area"
    assert document.pages[0].text_source is TextSource.ocr
    assert document.title == "Cotton Crop Manual 2025"
