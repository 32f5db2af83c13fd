"""Figures on OCR'd pages: Tesseract's word-less blocks as picture regions, their labels and caption."""

from __future__ import annotations

import pytest

from ingest.contracts.elements import Element, ElementType, TextSource
from parsers.ocr.figures import data_to_picture_boxes, elements_with_figures


def _data(rows):
    """A Tesseract DICT from (level, block, left, top, width, height, text) rows (pixels)."""
    keys = ("level", "block_num", "left", "top", "width", "height", "text")
    return {key: [row[i] for row in rows] for i, key in enumerate(keys)}


def _element(kind, text, bbox):
    heading = 2 if kind is ElementType.title else None
    return Element(type=kind, text=text, page=1, bbox=bbox, source=TextSource.ocr, confidence=90, heading_level=heading)


def test_wordless_figure_sized_blocks_are_picture_regions():
    data = _data(
        [
            (1, 0, 0, 0, 1000, 1400, ""),
            (2, 1, 100, 100, 400, 300, ""),  # a picture: no word in it
            (2, 2, 100, 500, 400, 40, ""),
            (5, 2, 100, 500, 80, 40, "Figure"),
            (2, 3, 100, 700, 800, 2, ""),  # a rule
            (2, 4, 0, 0, 1000, 1400, ""),  # the scan's background
        ]
    )
    assert data_to_picture_boxes(data, 0.5) == [(50.0, 50.0, 250.0, 200.0)]


def test_labels_inside_and_the_caption_below_make_one_figure():
    elements = [
        _element(
            ElementType.paragraph, "Self-locking nuts hold a bolt under vibration and keep it there.", (50, 20, 400, 40)
        ),
        _element(ElementType.paragraph, "Keyway", (80, 80, 120, 90)),
        _element(ElementType.title, "Nut case", (200, 150, 240, 160)),
        _element(ElementType.paragraph, "Figure 7-26. Self-locking nuts.", (60, 205, 250, 215)),
    ]
    result = elements_with_figures(elements, [(50.0, 50.0, 300.0, 200.0)], 1)
    assert [e.type for e in result] == [
        ElementType.paragraph,
        ElementType.figure,
        ElementType.caption,
    ]
    figure = result[1]
    assert figure.text == "Keyway\nNut case"
    assert figure.caption == "Figure 7-26. Self-locking nuts."
    assert elements[1].type is ElementType.paragraph  # the input is left alone


def test_a_picture_with_prose_over_it_and_no_caption_gives_no_figure():
    prose = "This annual report describes how the company grew its business across every market during the year."
    elements = [_element(ElementType.paragraph, prose, (60, 60, 290, 120))]
    assert elements_with_figures(elements, [(50.0, 50.0, 300.0, 200.0)], 1) == elements


@pytest.mark.slow
def test_scanned_page_with_a_labelled_picture_gives_a_figure(tmp_path):
    """A page built as one image (a photo, its caption, prose around it), OCR'd: the photo's
    region is a figure with its caption. (No scanned page with a figure is in ../shared.)"""
    fpdf = pytest.importorskip("fpdf")
    np = pytest.importorskip("numpy")
    pytest.importorskip("pytesseract")
    from PIL import Image, ImageDraw, ImageFont

    from parsers.pdf import parse_pdf

    page = Image.new("L", (1240, 1754), 255)  # A4 at 150 dpi
    photo = np.clip(np.random.default_rng(0).normal(110, 50, (500, 700)), 0, 255).astype("uint8")
    page.paste(Image.fromarray(photo), (250, 300))  # a photo: grey texture, no text
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=30)
    draw.text((120, 120), "Self-locking nuts hold a bolt under vibration. The nut grips the thread.", font=font, fill=0)
    draw.text((250, 820), "Figure 7-26. Self-locking nuts.", font=font, fill=0)
    draw.text((120, 960), "Boots self-locking nuts are of one piece and hold their grip.", font=font, fill=0)
    image_path = tmp_path / "page.png"
    page.save(image_path)
    pdf = fpdf.FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.image(str(image_path), x=0, y=0, w=595.28, h=841.89)
    path = tmp_path / "scan.pdf"
    pdf.output(str(path))
    document = parse_pdf(path, {"ocr": {"mode": "always", "languages": "eng", "dpi": 150}})
    figures = [e for e in document.elements if e.type is ElementType.figure]
    assert len(figures) == 1
    assert figures[0].caption == "Figure 7-26. Self-locking nuts."
