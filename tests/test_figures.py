"""Figure elements: image boxes, the short labels drawn inside them, captions, and
the chunker keeping a figure with its caption and apart from the prose around it."""

from __future__ import annotations

import pytest

from ingest.chunker import chunk_document
from ingest.chunking.checks import chunk_violations
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.elements import Document, Element, ElementType
from ingest.tokens import tiktoken_counter
from parsers.pdf import parse_pdf
from parsers.textlayer.chars import Segment
from parsers.textlayer.drawings import graphics_to_figure_boxes
from parsers.textlayer.figures import segments_to_figures

BEFORE = "Self-locking nuts hold a bolt under vibration. The nut grips the thread with an insert."
AFTER = "Boots self-locking nuts are of one piece and hold their grip after many uses of the nut."
OVER_IMAGE = (
    "This annual report describes how the company grew its business across every market during "
    "the year, and what it plans to do next for customers and staff."
)
LABELS = [(120, 150, "Nut case"), (380, 170, "Keyway"), (130, 340, "Untightened nut"), (390, 350, "Tightened nut")]


@pytest.fixture(scope="module")
def figure_pdf(tmp_path_factory):
    """A page with a labelled image and its caption between two paragraphs, and a paragraph
    laid over a second, banner-like image."""
    fpdf = pytest.importorskip("fpdf")
    image = pytest.importorskip("PIL.Image").new("RGB", (400, 250), (220, 230, 240))
    pdf = fpdf.FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.set_xy(60, 60)
    pdf.multi_cell(470, 14, BEFORE)
    pdf.image(image, x=100, y=130, w=400, h=250)
    pdf.set_font("Helvetica", size=8)
    for x, y, label in LABELS:
        pdf.text(x, y, label)
    pdf.set_font("Helvetica", "B", size=10)
    pdf.text(200, 400, "Figure 7-26. Self-locking nuts.")
    pdf.set_font("Helvetica", size=11)
    pdf.set_xy(60, 420)
    pdf.multi_cell(470, 14, AFTER)
    pdf.image(image, x=60, y=520, w=470, h=200)
    pdf.set_xy(80, 540)
    pdf.multi_cell(420, 14, OVER_IMAGE)
    path = tmp_path_factory.mktemp("figures") / "figure.pdf"
    pdf.output(str(path))
    return parse_pdf(path, {"ocr": {"mode": "never"}})


def test_labelled_image_is_a_figure_with_its_labels_and_caption(figure_pdf):
    figures = [e for e in figure_pdf.elements if e.type is ElementType.figure]
    assert len(figures) == 1
    figure = figures[0]
    assert figure.text.split("\n") == ["Nut case", "Keyway", "Untightened nut", "Tightened nut"]
    assert figure.caption == "Figure 7-26. Self-locking nuts."
    assert figure.bbox == pytest.approx((100, 130, 500, 380), abs=1)
    body = " ".join(e.text for e in figure_pdf.elements if e.type is ElementType.paragraph)
    assert "Keyway" not in body and "Nut case" not in body


def test_paragraph_over_an_image_stays_body_text(figure_pdf):
    paragraphs = [" ".join(e.text.split()) for e in figure_pdf.elements if e.type is ElementType.paragraph]
    assert OVER_IMAGE in paragraphs


def test_every_label_stays_in_the_canonical_text(figure_pdf):
    text = figure_pdf.canonical_text()
    assert all(label in text for _, _, label in LABELS)


def test_chunker_keeps_a_figure_with_its_caption_and_apart_from_prose(figure_pdf):
    settings = {"child_max_tokens": 200, "parent_max_tokens": 400}
    chunks = chunk_document(figure_pdf, settings)
    assert chunk_violations(figure_pdf, chunks, ChunkSettings.resolve(settings), tiktoken_counter("cl100k_base")) == []
    holding = [c for c in chunks if c.kind == "child" and "Keyway" in c.body]
    assert len(holding) == 1
    assert "Figure 7-26. Self-locking nuts." in holding[0].body
    assert BEFORE[:40] not in holding[0].body and AFTER[:40] not in holding[0].body


def test_chunker_keeps_a_caption_only_figure():
    document = Document(
        source_path="hand.pdf",
        content_sha256="0" * 64,
        size_bytes=1,
        page_count=1,
        elements=[
            Element(type="paragraph", text=BEFORE, page=1),
            Element(type="figure", text="", caption="Figure 2. A photo.", page=1),
            Element(type="caption", text="Figure 2. A photo.", page=1),
            Element(type="paragraph", text=AFTER, page=1),
        ],
    )
    chunks = [c for c in chunk_document(document, None) if c.kind == "child"]
    assert [c.body for c in chunks] == [BEFORE, "Figure 2. A photo.", AFTER]


def test_figure_boxes_merge_tiles_and_skip_icons_and_backgrounds():
    tiles = [(100, 100, 200, 200), (200, 100, 300, 200)]
    assert graphics_to_figure_boxes(tiles, [], [], 595, 842) == [(100, 100, 300, 200)]
    assert graphics_to_figure_boxes([(10, 10, 30, 30)], [], [], 595, 842) == []  # an icon
    assert graphics_to_figure_boxes([(0, 0, 595, 842)], [], [], 595, 842) == []  # a page background


def test_only_short_labels_become_figure_text():
    def seg(text, top):
        return Segment(text, 110, top, 110 + 5 * len(text), top + 8, 8.0, 0.0, "F", chars=len(text))

    box = (100, 100, 400, 300)
    figures, rest = segments_to_figures([seg("Keyway", 120), seg("outside", 350)], [box])
    assert figures[0].text == "Keyway" and [s.text for s in rest] == ["outside"]
    sentence = seg("This report describes how the company grew its business this year", 150)
    figures, rest = segments_to_figures([sentence], [box])
    assert figures[0].text == "" and rest == [sentence]


# Figures from real PDFs: dense vector drawings, photos in panels, and the tables beside them.


def _parsed_pages(path, first: int, last: int, tmp_path):
    """Pages `first`..`last` (1-based) of `path` parsed on their own (pypdfium2 cut)."""
    from conftest import pdf_pages

    return parse_pdf(pdf_pages(path, first, last, into=tmp_path), {"ocr": {"mode": "never"}})


def _of_type(document, kind: ElementType, page: int) -> list:
    return [e for e in document.elements if e.type is kind and e.page == page]


@pytest.mark.shared
@pytest.mark.slow
def test_labels_in_the_contents_pictures_are_figure_text_not_table_cells():
    """reliance.pdf p3: the pictures sit in forms nested in a form that places the spread's right
    half (its objects' bounds are in form space, 595 pt to the right of the page)."""
    from conftest import CORPUS

    document = parse_pdf(CORPUS / "reliance.pdf", {"ocr": {"mode": "never"}})
    figure_text = "\n".join(e.text for e in _of_type(document, ElementType.figure, 3))
    table_text = "\n".join(e.text for e in _of_type(document, ElementType.table, 3))
    for label in ("CHEMICALS", "PG 98", "DIGITAL", "SERVICES", "PG 72", "ENTERTAINMENT"):
        assert label in figure_text
        assert label not in table_text


@pytest.mark.shared
@pytest.mark.slow
def test_vector_line_chart_is_one_figure_holding_its_labels(tmp_path):
    """eu-027 p2: a chart drawn as paths (no image): title, ticks, axis title and legend inside its
    grey panel are the figure's text, not headings."""
    from conftest import BENCH

    document = _parsed_pages(BENCH / "icdar2013-eu" / "eu-027.pdf", 2, 2, tmp_path)
    figures = _of_type(document, ElementType.figure, 1)
    assert len(figures) == 1
    assert "Local polynomial smooth of stock market participation" in figures[0].text
    assert "financial wealth decile" in figures[0].text
    assert "mean low financial literacy" in figures[0].text
    titles = " ".join(e.text for e in _of_type(document, ElementType.title, 1))
    assert "financial wealth decile" not in titles and "Local polynomial" not in titles


@pytest.mark.shared
@pytest.mark.slow
def test_vector_pie_charts_are_figures_and_the_tables_beside_them_stay(tmp_path):
    """eu-015 p2: three pie charts drawn with curves beside three ruled tables."""
    from conftest import BENCH

    document = _parsed_pages(BENCH / "icdar2013-eu" / "eu-015.pdf", 2, 2, tmp_path)
    figures = _of_type(document, ElementType.figure, 1)
    assert len(figures) == 3
    assert all("Total EU-15" in f.text and "Unspecified" in f.text for f in figures)
    assert len(_of_type(document, ElementType.table, 1)) == 3
    assert not [e for e in _of_type(document, ElementType.title, 1) if "Unspecified" in e.text]


def test_a_few_curved_strokes_are_not_a_figure():
    rounded_box = [(100, 100, 300, 160, 12)]
    assert graphics_to_figure_boxes([], rounded_box, [], 595, 842) == []
    dense = [(100, 100 + 10 * i, 300, 112 + 10 * i, 12) for i in range(4)]
    assert graphics_to_figure_boxes([], dense, [], 595, 842) == [(100, 100, 300, 142)]


def test_a_drawing_grows_to_its_panel_but_not_to_a_page_band():
    dense = [(200, 200 + 10 * i, 300, 212 + 10 * i, 12) for i in range(4)]
    panel = (180, 180, 320, 260)
    band = (0, 100, 595, 700)
    assert graphics_to_figure_boxes([], dense, [panel, band], 595, 842) == [panel]
