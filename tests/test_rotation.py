"""Pages with /Rotate are parsed in the frame a reader sees them in.

The PDFs are built here with fpdf2 (content drawn turned with `pdf.rotation`) and
pypdfium2 (`set_rotation` writes /Rotate), each next to the same content on a plain page:
what a reader sees is the same, so the parse must be too.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from fpdf import FPDF

from ingest.contracts.elements import ElementType
from parsers.pdf import parse_pdf
from parsers.textlayer.frames import PageFrame
from parsers.textlayer.layout import pdfium_page_to_layout
from parsers.textlayer.pdfminer_fallback import PdfminerFallback

NEVER = {"ocr": {"mode": "never"}}
A4_SHORT, A4_LONG = 595.0, 842.0
TABLE = [
    ["Crop", "Dose (kg/ha)", "Stage"],
    ["Cotton", "120", "Sowing"],
    ["Wheat", "90", "Tillering"],
    ["Gram", "40", "Flowering"],
]
HEADINGS = ["Fertiliser Schedule", "Irrigation Plan", "Pest Watch"]
PARAGRAPH = (
    "Apply the first split of nitrogen at sowing and the second one month later, when the soil "
    "is moist. Irrigate lightly after each split so that the fertiliser reaches the roots."
)


def draw(pdf: FPDF, page_no: int, width: float, height: float) -> None:
    """One report page as laid out on a `width` x `height` sheet (points, top-left origin):
    running header, heading, paragraph, ruled table, page number."""
    pdf.set_font("Helvetica", size=8)
    pdf.set_xy(50, 30)
    pdf.cell(200, 10, "District Agriculture Office - Rabi Report 2024")
    pdf.set_font("Helvetica", "B", 18)
    pdf.set_xy(50, 70)
    pdf.cell(width - 100, 22, HEADINGS[page_no - 1])
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(50, 110)
    pdf.multi_cell(width - 100, 13, f"{PARAGRAPH} Page {page_no} covers block {page_no * 7}.")
    y = 190
    pdf.set_font("Helvetica", size=10)
    for r, row in enumerate(TABLE):
        pdf.set_xy(50, y + 18 * r)
        for cell in row:
            pdf.set_font("Helvetica", "B" if r == 0 else "", 10)
            pdf.cell(130, 18, cell if r == 0 else f"{cell}", border=1)
    pdf.set_font("Helvetica", size=8)
    pdf.set_xy(width / 2 - 20, height - 40)
    pdf.cell(40, 10, f"Page {page_no}", align="C")


def build(path: Path, rotate: int, turned: int | None = None, pages: int = 3) -> Path:
    """A `pages`-page report. `rotate`: the /Rotate written on every page. `turned`: the
    clockwise turn (degrees) a viewer must apply to read the drawn content, i.e. the
    content is drawn counter-rotated by it on the unrotated sheet; None = `rotate`
    (the page displays upright). The sheet is landscape as displayed, so for a quarter
    turn it is a portrait MediaBox."""
    turned = rotate if turned is None else turned
    quarter = turned in (90, 270)
    sheet_w, sheet_h = (A4_SHORT, A4_LONG) if quarter else (A4_LONG, A4_SHORT)  # unrotated MediaBox
    view_w, view_h = (sheet_h, sheet_w) if quarter else (sheet_w, sheet_h)  # as the reader sees it
    pdf = FPDF(unit="pt", format=(sheet_w, sheet_h))
    pdf.set_auto_page_break(False)
    for page_no in range(1, pages + 1):
        pdf.add_page()
        if turned == 0:
            draw(pdf, page_no, view_w, view_h)
            continue
        # fpdf2 turns counter-clockwise about (x, y); these centres map the reader's
        # frame onto the sheet: 90 -> (X, Y) = (Y, H - X), 180 -> (W - X, H - Y), 270 -> (W - Y, X)
        centre = {90: (sheet_h / 2, sheet_h / 2), 180: (sheet_w / 2, sheet_h / 2), 270: (sheet_w / 2, sheet_w / 2)}
        with pdf.rotation(turned, x=centre[turned][0], y=centre[turned][1]):
            draw(pdf, page_no, view_w, view_h)
    raw = path.with_suffix(".raw.pdf")
    pdf.output(str(raw))
    document = pdfium.PdfDocument(str(raw))
    try:
        for index in range(len(document)):
            document[index].set_rotation(rotate)
        document.save(str(path))
    finally:
        document.close()
    raw.unlink()
    return path


def summary(document) -> dict:
    """What a reader checks: title, headings, body paragraphs, table cells, furniture."""
    return {
        "title": document.title,
        "headings": [(e.text, e.heading_level) for e in document.elements if e.type is ElementType.title],
        "paragraphs": [e.text for e in document.elements if e.type is ElementType.paragraph],
        "tables": [(e.page, e.rows, e.header_rows) for e in document.elements if e.type is ElementType.table],
        "furniture": sorted({(e.type.value, e.text) for e in document.elements if e.is_furniture}),
        "canonical": document.canonical_text(),
    }


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The reference: the same report on plain landscape pages (no /Rotate, nothing turned)."""
    return parse_pdf(build(tmp_path_factory.mktemp("plain") / "plain.pdf", 0), NEVER)


def test_the_plain_reference_reads_as_expected(plain):
    doc = summary(plain)
    assert doc["title"] == "Fertiliser Schedule"
    assert doc["headings"] == [(heading, 1) for heading in HEADINGS]
    assert [cells for _, cells, _ in doc["tables"]] == [TABLE] * 3
    assert any(p.startswith("Apply the first split of nitrogen") and p.endswith("block 7.") for p in doc["paragraphs"])
    assert ("header", "District Agriculture Office - Rabi Report 2024") in doc["furniture"]
    assert ("page_number", "Page 2") in doc["furniture"]


@pytest.mark.parametrize("rotate", [90, 270, 180])
def test_rotated_page_with_counter_rotated_content_parses_like_the_plain_page(tmp_path, plain, rotate):
    """Portrait MediaBox, content drawn turned, /Rotate so a viewer shows it upright (a
    landscape table in a portrait report): same heading, paragraphs, table cells, furniture."""
    rotated = parse_pdf(build(tmp_path / f"rot{rotate}.pdf", rotate), NEVER)
    assert summary(rotated) == summary(plain)


@pytest.mark.parametrize("rotate", [90, 270, 180])
def test_rotated_page_boxes_are_in_the_displayed_frame(tmp_path, plain, rotate):
    """Page size and element boxes as a viewer shows the page: landscape, same places."""
    rotated = parse_pdf(build(tmp_path / f"rot{rotate}.pdf", rotate), NEVER)
    assert [(p.width, p.height) for p in rotated.pages] == [(p.width, p.height) for p in plain.pages]
    assert rotated.pages[0].width > rotated.pages[0].height
    for got, want in zip(rotated.elements, plain.elements):
        assert got.text == want.text
        assert got.bbox == pytest.approx(want.bbox, abs=0.5)


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_rotate_on_a_page_whose_content_is_not_turned_loses_no_text(tmp_path, plain, rotate):
    """/Rotate written on ordinary pages (a scanner's or a tool's doing): the page displays
    sideways or upside down, but every word of it is still in the canonical text."""
    document = parse_pdf(build(tmp_path / f"sideways{rotate}.pdf", rotate, turned=0), NEVER)
    words = lambda text: sorted(re.findall(r"\w+", text))  # noqa: E731
    all_text = "\n".join(e.text for e in plain.elements if not e.is_furniture)
    assert words(document.canonical_text()) == words(all_text)


def test_landscape_content_drawn_turned_on_a_page_without_rotate_is_read_upright(tmp_path, plain):
    """A landscape table drawn turned on a portrait page that has no /Rotate: most of its
    text runs sideways, so it is read turned, as a reader turns the page."""
    document = parse_pdf(build(tmp_path / "no_rotate.pdf", 0, turned=90), NEVER)
    want = summary(plain)
    got = summary(document)
    assert got["title"] == want["title"] and got["tables"] == want["tables"]
    assert got["paragraphs"] == want["paragraphs"]


def test_a_rotated_landscape_page_in_a_portrait_document(tmp_path):
    """The batch case: portrait pages and one landscape table page (portrait MediaBox,
    content turned, /Rotate 90) in the middle; each page reads as a viewer shows it."""
    pdf = FPDF(unit="pt", format=(A4_SHORT, A4_LONG))
    pdf.set_auto_page_break(False)
    for page_no in (1, 2, 3):
        pdf.add_page()
        if page_no == 2:
            with pdf.rotation(90, x=A4_LONG / 2, y=A4_LONG / 2):
                draw(pdf, page_no, A4_LONG, A4_SHORT)
        else:
            draw(pdf, page_no, A4_SHORT, A4_LONG)
    raw = tmp_path / "mixed.raw.pdf"
    pdf.output(str(raw))
    document = pdfium.PdfDocument(str(raw))
    document[1].set_rotation(90)
    document.save(str(tmp_path / "mixed.pdf"))
    document.close()
    parsed = parse_pdf(tmp_path / "mixed.pdf", NEVER)
    assert [(p.width, p.height) for p in parsed.pages] == [
        (A4_SHORT, A4_LONG),
        (A4_LONG, A4_SHORT),
        (A4_SHORT, A4_LONG),
    ]
    assert [e.rows for e in parsed.elements if e.type is ElementType.table] == [TABLE] * 3
    headings = [e.text for e in parsed.elements if e.type is ElementType.title]
    assert headings == HEADINGS
    assert sum(1 for e in parsed.elements if e.type is ElementType.header) == 3  # running header on every page


@pytest.mark.parametrize(
    "rotate, turned, cropped", [(90, 90, False), (270, 270, False), (90, 0, False), (0, 0, True), (90, 90, True)]
)
def test_pdfminer_fallback_reads_a_rotated_page_in_the_same_frame(tmp_path, rotate, turned, cropped):
    """pdfminer applies /Rotate itself; its re-read of a page (the fallback for fonts pdfium
    cannot map) must give the same lines and table cells as the pdfium pass, also when the
    crop box does not start at the media box's corner (pdfplumber measures from the media box)."""
    path = build(tmp_path / "fallback.pdf", rotate, turned=turned, pages=1)
    if cropped:
        document = pdfium.PdfDocument(str(path))
        if rotate == 0:
            document[0].set_cropbox(20, 30, A4_LONG - 10, A4_SHORT - 12)
        else:
            document[0].set_cropbox(30, 20, A4_SHORT - 12, A4_LONG - 10)
        document.save(str(tmp_path / "cropped.pdf"))
        document.close()
        path = tmp_path / "cropped.pdf"
    document = pdfium.PdfDocument(str(path))
    fallback = PdfminerFallback(path)
    try:
        base = pdfium_page_to_layout(document, 0, True)
        again = fallback.relayout(document, 0, base, True)
    finally:
        fallback.close()
        document.close()
    assert [t.rows for t in base.tables] == [TABLE]
    assert [line.text for line in again.lines] == [line.text for line in base.lines]
    assert [t.rows for t in again.tables] == [TABLE]
    assert again.tables[0].bbox == pytest.approx(base.tables[0].bbox, abs=0.5)


def test_boxes_are_measured_from_the_visible_crop_box(tmp_path, plain):
    """A crop box that does not start at the origin (a cropped scan, a trimmed export):
    the viewer shows the crop box, so boxes are measured from its top-left corner."""
    source = build(tmp_path / "uncropped.pdf", 0, pages=3)
    document = pdfium.PdfDocument(str(source))
    for index in range(len(document)):
        document[index].set_cropbox(20, 30, A4_LONG - 10, A4_SHORT - 12)
    document.save(str(tmp_path / "cropped.pdf"))
    document.close()
    cropped = parse_pdf(tmp_path / "cropped.pdf", NEVER)
    assert summary(cropped) == summary(plain)
    assert (cropped.pages[0].width, cropped.pages[0].height) == (A4_LONG - 30, A4_SHORT - 42)
    for got, want in zip(cropped.elements, plain.elements):
        assert (got.bbox[0], got.bbox[1]) == pytest.approx((want.bbox[0] - 20, want.bbox[1] - 12), abs=0.05)


def test_page_frame_maps_the_unrotated_corners_to_the_displayed_corners():
    """/Rotate turns the page clockwise: the unrotated top-left corner is displayed
    top-right (90), bottom-right (180), bottom-left (270); a box keeps its size."""
    box = (0.0, 0.0, 100.0, 200.0)  # left, bottom, right, top: a portrait sheet
    corner = (0.0, 200.0)  # top-left of the unrotated sheet
    expected = {0: (0, 0), 90: (200, 0), 180: (100, 200), 270: (0, 100)}
    for rotation, point in expected.items():
        frame = PageFrame(rotation, *box)
        assert frame.point(*corner) == point
        assert (frame.width, frame.height) == ((200, 100) if rotation in (90, 270) else (100, 200))
        x0, top, x1, bottom = frame.box(10, 20, 30, 60)
        assert (x1 - x0, bottom - top) == ((40, 20) if rotation in (90, 270) else (20, 40))
        assert 0 <= x0 < x1 <= frame.width and 0 <= top < bottom <= frame.height


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")
def test_ocr_reads_a_rotated_page_upright_in_the_displayed_frame(tmp_path, plain):
    """OCR renders the page as displayed (pypdfium2 applies /Rotate): the words come back
    readable and their boxes lie in the same landscape frame as the text layer's."""
    rotated = parse_pdf(build(tmp_path / "ocr90.pdf", 90, pages=1), {"ocr": {"mode": "always", "dpi": 150}})
    page = rotated.pages[0]
    assert page.width > page.height
    text = rotated.canonical_text()
    for word in ("Fertiliser", "Schedule", "nitrogen", "Tillering", "Flowering"):
        assert word in text
    heading = next(e for e in rotated.elements if "Fertiliser Schedule" in e.text)
    want = next(e for e in plain.elements if e.page == 1 and "Fertiliser Schedule" in e.text)
    assert heading.bbox[0] == pytest.approx(want.bbox[0], abs=6)
    assert heading.bbox[1] == pytest.approx(want.bbox[1], abs=6)


def test_a_page_with_upright_text_and_a_larger_table_printed_sideways_loses_no_text(tmp_path):
    """Most of the page runs sideways, so it is read turned; the heading and paragraph a
    viewer shows upright are then the page's "rotated" text and must stay in the body,
    with their word spaces."""
    pdf = FPDF(unit="pt", format=(595, 842))
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.set_xy(50, 40)
    pdf.cell(300, 20, "Annex 3 Seed rates")
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(50, 70)
    pdf.multi_cell(495, 13, "The seed rates below apply to irrigated plots sown before the end of November.")
    with pdf.rotation(90, x=297, y=500):
        for row in range(14):
            pdf.set_xy(120, 380 + 16 * row)
            for column in range(4):
                pdf.cell(90, 16, f"Crop {row} val {column}", border=1)
    path = tmp_path / "mixed.pdf"
    pdf.output(str(path))
    text = parse_pdf(path, {"ocr": {"mode": "never"}}).canonical_text()
    assert "Annex 3 Seed rates" in text
    assert "The seed rates below apply to irrigated plots sown before the end of November." in text
    assert all(f"Crop {row} val {column}" in text for row in range(14) for column in range(4))
