"""assess_text_layer on hand-made pages: when is a text layer usable, and when must OCR run?"""

import pytest
from conftest import CORPUS

from parsers.ocr.routing import PLAUSIBLE_WORD_SHARE, assess_text_layer, glyph_counts, word_plausibility

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


GARBLED = (
    "Eeairing to keep you posted on the progress of the Foundation you Kill tee interested to "
    "knot that to defce the Foundation, hes received the fallowings (a) A lette r from the "
    "Aaalggfitted fc-ugsx Company eecepting 3s«»teership and enclosing their cheek, H^uid £ug»r "
    "aieiabership eneloalcg JMBWeil Gentrsl Ajjuirre aomberehip wrelosing Katicm Coapsny "
)


def test_an_invisible_layer_over_a_scan_that_reads_as_garbage_goes_to_ocr():
    verdict = assess_text_layer(GARBLED * 3, 300.0, 393.0, image_area_ratio=1.0, invisible_text_share=1.0)
    assert not verdict.usable
    assert verdict.reason.startswith("invisible OCR layer reads as garbage: ")
    assert word_plausibility(GARBLED) < PLAUSIBLE_WORD_SHARE <= word_plausibility(NORMAL)


def test_a_good_invisible_layer_and_visible_text_over_an_image_are_kept():
    assert assess_text_layer(NORMAL, *A4, image_area_ratio=1.0, invisible_text_share=1.0).usable
    # the same words drawn visibly, or invisibly beside a small picture: no hidden OCR layer
    assert assess_text_layer(GARBLED * 3, *A4, image_area_ratio=1.0, invisible_text_share=0.0).usable
    assert assess_text_layer(GARBLED * 3, *A4, image_area_ratio=0.3, invisible_text_share=1.0).usable


def test_word_plausibility_does_not_judge_other_scripts_or_a_few_words():
    assert word_plausibility("Скан документа без английских слов " * 10) is None
    assert word_plausibility("Aaalggfitted fc-ugsx") is None


@pytest.mark.shared
@pytest.mark.slow
def test_corpus_scan_with_a_garbage_ocr_layer_goes_to_ocr():
    """Before: pdf-with-ocr-text.pdf's invisible layer ("you Kill tee interested to knot") was
    accepted because it has enough words for its page; now its words are judged."""
    pdf_path = CORPUS / "pdf-with-ocr-text.pdf"
    if not pdf_path.exists():
        pytest.skip(f"corpus not available at {CORPUS}")
    from parsers.ocr.routing import pages_needing_ocr
    from parsers.pdf import layout_to_page_info, read_pages
    from parsers.settings import ParseSettings

    layouts, *_ = read_pages(pdf_path, ParseSettings.resolve(None))
    assert layouts[0].image_area_ratio > 0.95 and layouts[0].invisible_text_share > 0.95
    pages = [layout_to_page_info(layout) for layout in layouts]
    assert pages_needing_ocr(layouts, pages, "auto") == {1}
    assert pages[0].ocr_reason.startswith("invisible OCR layer reads as garbage")
