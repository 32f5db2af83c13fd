"""Word boundaries: spaces from the font's space advance and pdfium's own spaces,
superscripts as tokens of their own, right-to-left runs kept whole; and list enumerators in
the text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import BENCH

from ingest.contracts.elements import ElementType
from parsers.structure.elements import block_to_element
from parsers.textlayer.blocks import Block, Line
from parsers.textlayer.chars import Char, Segment, chars_to_segments
from parsers.textlayer.layout import pdfium_page_to_layout

PDFS = Path(__file__).resolve().parent / "pdfs"
FUNCTION_WORDS = frozenset(
    "a an the of in on at to for from by with as if or and is are was be it its this that".split()
)
_EDGE = re.compile(r"^\W+|\W+$")


def page_words(pdf_path, index: int) -> tuple[list[str], list[str]]:
    """(pypdfium2's words of the page, the parser's words of its lines), edge punctuation off."""
    document = pdfium.PdfDocument(pdf_path)
    try:
        textpage = document[index].get_textpage()
        reference = [_EDGE.sub("", w) for w in textpage.get_text_range().split()]
        layout = pdfium_page_to_layout(document, index, detect_tables=False)
    finally:
        document.close()
    words = [_EDGE.sub("", w) for line in layout.lines for w in line.text.split()]
    return [w for w in reference if w], [w for w in words if w]


def glued_function_words(reference: list[str], words: list[str]) -> list[str]:
    """Parser tokens spelling two consecutive reference words, one a function word ("ofthe")."""
    known = set(reference)
    pairs = {
        a + b for a, b in zip(reference, reference[1:]) if a.lower() in FUNCTION_WORDS or b.lower() in FUNCTION_WORDS
    }
    return [w for w in words if w not in known and w in pairs]


@pytest.mark.parametrize(
    ("name", "index"),
    [("3M_2018_10K.pdf", 10), ("CORNING_2022_10K.pdf", 0), ("CORNING_2022_10K.pdf", 8)],
)
def test_no_function_word_is_glued_on_10k_pages_set_in_times(name, index):
    """3M and Corning draw no spaces; the Times "f" (italic too) overhangs, so a fixed glyph
    gap glued "ofthe", "ofregistrant", "ofjust", "tofluctuations"."""
    path = BENCH / "financebench-dev" / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    reference, words = page_words(path, index)
    assert glued_function_words(reference, words) == []
    assert len(words) > 0.95 * len(reference)


def test_a_space_glyph_the_font_maps_to_a_line_feed_is_a_word_space():
    """A cover whose embedded font maps its space glyph to U+000A in its ToUnicode table, as
    word processors do: the drawn glyph is a word space. Before: it was left out as a control
    character, and after an overhanging "f" the glyph gap alone glued "ofregistrant", "ofthe"."""
    truth = json.loads((PDFS / "cover_space_as_line_feed.truth.json").read_text())
    document = pdfium.PdfDocument(PDFS / "cover_space_as_line_feed.pdf")
    try:
        layout = pdfium_page_to_layout(document, 0, detect_tables=False)
    finally:
        document.close()
    assert [line.text for line in layout.lines] == truth["lines"]


def _every_pdf() -> list:
    from conftest import CORPUS

    return sorted(CORPUS.glob("*.pdf")) + sorted(BENCH.glob("*/*.pdf"))


@pytest.mark.slow
@pytest.mark.parametrize("path", _every_pdf(), ids=lambda p: p.name)
def test_no_function_word_is_glued_on_any_corpus_or_bench_file(path):
    """The first 5 pages of every PDF under ../shared/corpus and ../shared/bench, against
    pypdfium2's words. Before: eu-026 p5 read "ofthree" (CMR12 has no space glyph, the word gap
    is 0.179 em, under the fixed 0.18 em; pdfium's own space there was not taken)."""
    document = pdfium.PdfDocument(path)
    pages = min(len(document), 5)
    document.close()
    for index in range(pages):
        reference, words = page_words(path, index)
        assert glued_function_words(reference, words) == [], f"page {index + 1}"


def tight_pdf(content: str) -> bytes:
    """A one-page PDF (Times-Roman, not embedded) with the given content stream."""
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def parsed_lines(tmp_path, content: str) -> list[str]:
    path = tmp_path / "tight.pdf"
    path.write_bytes(tight_pdf(content))
    document = pdfium.PdfDocument(path)
    try:
        return [line.text for line in pdfium_page_to_layout(document, 0, detect_tables=False).lines]
    finally:
        document.close()


def test_tight_word_spacing_is_measured_against_the_fonts_space(tmp_path):
    """Words 0.15 em apart in Times (space 0.25 em) with letters kerned tight inside words:
    0.15 em is under the old fixed 0.18 em but over half of Times' space."""
    words = ["of", "the", "registrant", "and", "its", "affairs"]
    tj = " -150 ".join(f"({w[0]}) 20 ({w[1:]})" for w in words)
    lines = parsed_lines(tmp_path, f"BT /F1 12 Tf 20 150 Td [{tj}] TJ ET")
    assert lines == [" ".join(words)]


def test_a_raised_smaller_footnote_mark_is_never_glued_into_a_number(tmp_path):
    """J&J 8-K p6: "2,557.2" with footnote 8 read "2,557.28"."""
    content = "BT /F1 10 Tf 20 150 Td (2,557.2) Tj /F1 6 Tf 4 Ts (8) Tj /F1 10 Tf 0 Ts ( Health) Tj ET"
    assert parsed_lines(tmp_path, content) == ["2,557.2 8 Health"]


def test_a_footnote_mark_ends_before_an_opening_bracket_and_keeps_a_closing_comma(tmp_path):
    """normal_4pages p2: the raised mark "6)" read glued to the next word, "6)(이하", since a
    superscript ended only before a letter or digit."""
    mark = "BT /F1 10 Tf 20 150 Td (Codes) Tj /F1 6 Tf 4 Ts (6\\)) Tj /F1 10 Tf 0 Ts ({}) Tj ET"
    assert parsed_lines(tmp_path, mark.format("\\(KCD\\)")) == ["Codes 6) (KCD)"]
    assert parsed_lines(tmp_path, mark.format(", then")) == ["Codes 6), then"]


def test_arabic_words_are_read_whole_in_logical_order():
    path = BENCH / "docling-gt" / "right_to_left_03.pdf"
    if not path.exists():
        pytest.skip(f"{path} not present")
    reference, words = page_words(path, 0)
    assert set(words) >= {"شرکت", "بورس", "ايران"}
    split = [w for w in words if len(w) == 1 and "\u0600" <= w <= "\u06ff"]
    assert len(split) < 0.02 * len(words)  # every Arabic letter was its own segment


def item_block(text: str) -> Block:
    segment = Segment(text=text, x0=50, top=0, x1=300, bottom=10, size=10, bold=0.0, font="F", chars=len(text))
    line = Line(segments=[segment], x0=50, top=0, x1=300, bottom=10, size=10, bold=0.0, text=text)
    return Block([line], kind="list_item")


def test_enumerators_stay_in_list_item_text_bullets_do_not():
    for text in ("1. Mix the seed", "a) Mix the seed", "(iv) Mix the seed"):
        element = block_to_element(item_block(text), 1)
        assert element.type is ElementType.list_item and element.text == text
        assert element.data["marker"] == text.split()[0]
    bullet = block_to_element(item_block("• Mix the seed"), 1)
    assert bullet.text == "Mix the seed" and bullet.data["marker"] == "•"


def test_pdfium_space_is_not_taken_in_a_font_without_a_space_glyph():
    """code_and_formula's listing places every glyph on its own in a font without a space
    glyph; pdfium puts a space in "console .log" there, which must not be taken."""
    from conftest import CORPUS

    path = CORPUS / "code_and_formula.pdf"
    if not path.exists():
        pytest.skip(f"{path} not present")
    _, words = page_words(path, 0)
    assert "console.log(add(3" in words


def _char(text: str, x0: float, x1: float, size: float = 15.0) -> Char:
    return Char(text, x0, 100.0, x1, 100.0 + size, size, False, "F", False, text.isspace())


def test_a_drawn_space_inside_the_glyph_before_it_is_no_word_break():
    """An OCR layer draws each word's space from its last glyph's start; after a full-width
    letter (1 em advance) the space ends inside it and the next glyph starts under it:
    "Ｅ14" (corpus/pr-136 p2, as pdfium and pdftotext read it), not "Ｅ 14". A space that
    reaches past its glyph, or a zero-width one at the glyph's end, still breaks a word."""
    hidden = [_char("Ｅ", 486.2, 504.9), _char(" ", 486.2, 499.2), _char("1", 500.9, 506.3), _char("4", 506.2, 511.2)]
    assert [s.text for s in chars_to_segments(hidden)] == ["Ｅ14"]
    after = [_char("4", 228.5, 233.5), _char(" ", 228.5, 237.0), _char("t", 237.2, 241.0)]
    assert [s.text for s in chars_to_segments(after)] == ["4 t"]
    zero_width = [_char("a", 20.0, 27.0), _char(" ", 27.0, 27.0), _char("b", 27.2, 34.0)]
    assert [s.text for s in chars_to_segments(zero_width)] == ["a b"]
    right_to_left = [_char("ب", 30.0, 37.0), _char(" ", 26.0, 30.0), _char("ا", 20.0, 26.0)]  # the space left of "ب"
    assert [s.text for s in chars_to_segments(right_to_left)] == ["ب ا"]


def test_the_ocr_layer_of_a_chinese_scan_keeps_full_width_letters_with_their_figures():
    from conftest import CORPUS

    from parsers import parse_pdf

    path = CORPUS / "pr-136-example.pdf"
    if not path.exists():
        pytest.skip(f"{path} not present")
    document = parse_pdf(path, {"ocr": {"mode": "never"}})
    text = " ".join(e.text for e in document.elements if e.page == 2)
    assert "小E14 司商" in text and "小Eis 间商" in text  # was "小E 14 司商", "小E is 间商"
