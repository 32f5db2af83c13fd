"""assess_text_layer on hand-made pages: when is a text layer usable, and when must OCR run?"""

import pytest
from conftest import CORPUS

from parsers.ocr.routing import assess_text_layer, glyph_counts

A4 = (595.0, 842.0)
NORMAL = (
    "Cotton crop protection. Farmers are informed that the whitefly infestation this season "
    "is above the economic threshold level in most districts. "
) * 6


def test_empty_and_whitespace_pages_have_no_text_layer():
    for text in ("", "   \n\t  "):
        verdict = assess_text_layer(text, *A4, image_area_ratio=0.0)
        assert not verdict.usable
        assert verdict.reason == "no text layer"


def test_normal_text_is_usable():
    verdict = assess_text_layer(NORMAL, *A4, image_area_ratio=0.0)
    assert verdict.usable and verdict.reason is None


def test_cid_garbage_is_rejected_and_named():
    text = " ".join(["(cid:12)(cid:34)(cid:56)"] * 40 + ["word"] * 30)
    verdict = assess_text_layer(text, *A4, image_area_ratio=0.0)
    assert not verdict.usable
    assert verdict.reason.startswith("glyph garbage: ")
    assert "(cid:NN)" in verdict.reason
    # 120 cid glyphs against 120 letters of 'word': half the glyphs are garbage
    assert "50%" in verdict.reason


def test_cids_inside_readable_words_are_not_garbage():
    # fpdf2's shaped Devanagari: a cluster's extra glyphs become (cid:N) after readable text;
    # the parser drops them, so the text layer beats OCR
    text = "कि(cid:10)सान नि(cid:14)धि(cid:16) सि(cid:13)ंचाई " * 30
    verdict = assess_text_layer(text, *A4, image_area_ratio=0.0)
    assert verdict.usable, verdict.reason


def test_a_few_cids_in_a_long_text_are_tolerated():
    verdict = assess_text_layer(NORMAL + " (cid:3) ", *A4, image_area_ratio=0.0)
    assert verdict.usable


def test_private_use_characters_are_garbage():
    text = "\ue001\ue002\ue003\ue004 " * 50 + NORMAL[:200]
    verdict = assess_text_layer(text, *A4, image_area_ratio=0.0)
    assert not verdict.usable
    assert "private-use" in verdict.reason


def test_replacement_characters_are_garbage():
    text = "Fert\ufffd\ufffdliser d\ufffd\ufffde " * 40
    verdict = assess_text_layer(text, *A4, image_area_ratio=0.0)
    assert not verdict.usable
    assert "replacement" in verdict.reason


def test_cid_placeholder_counts_as_one_glyph():
    counts = glyph_counts("ab (cid:7)")
    assert counts == {"glyphs": 3, "cid": 1, "private_use": 0, "replacement": 0}


def test_page_covered_by_one_image_with_only_a_stamp_goes_to_ocr():
    verdict = assess_text_layer("Scanned by CamScanner", *A4, image_area_ratio=0.98)
    assert not verdict.usable
    assert verdict.reason == "page covered by one image"


def test_page_covered_by_one_image_with_a_substantial_ocr_layer_is_usable():
    verdict = assess_text_layer(NORMAL, *A4, image_area_ratio=1.0)
    assert verdict.usable


def test_a_scan_with_a_substantial_cjk_layer_is_usable_despite_few_spaces():
    text = "关于浙江菲达环保科技股份有限公司年度报告中有关财务事项的说明" * 12  # 360 chars, 1 "word"
    assert assess_text_layer(text, *A4, image_area_ratio=1.0).usable


def test_sparse_text_beside_a_large_image_is_too_little_for_its_area():
    verdict = assess_text_layer("Figure 3", *A4, image_area_ratio=0.5)
    assert not verdict.usable
    assert verdict.reason == "too little text for its area"


def test_sparse_page_without_images_is_kept():
    # a section divider: OCR could not find more than the text layer has
    verdict = assess_text_layer("Part II", *A4, image_area_ratio=0.0)
    assert verdict.usable


def test_density_rule_scales_with_page_size():
    short = "Whitefly control: spray neem oil at dusk. " * 2  # 70 visible chars: < 100 on A4, > 10 on 200x250 pt
    assert not assess_text_layer(short, *A4, image_area_ratio=0.5).usable
    assert assess_text_layer(short, 200.0, 250.0, image_area_ratio=0.5).usable


@pytest.mark.slow
def test_corpus_scan_with_existing_ocr_layer_is_accepted():
    pdf_path = CORPUS / "pdf-with-ocr-text.pdf"
    if not pdf_path.exists():
        pytest.skip(f"corpus not available at {CORPUS}")
    import pdfplumber

    with pdfplumber.open(pdf_path) as pdf:
        page = pdf.pages[0]
        largest = max((i["x1"] - i["x0"]) * (i["bottom"] - i["top"]) for i in page.images)
        ratio = largest / (page.width * page.height)
        text = page.extract_text()
        verdict = assess_text_layer(text, float(page.width), float(page.height), ratio)
    assert ratio > 0.95  # it really is a full-page scan
    assert verdict.usable, verdict.reason
