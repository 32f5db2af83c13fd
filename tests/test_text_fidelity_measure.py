"""The pure functions of benchmarks/text_fidelity.py, on hand-made text."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "text_fidelity.py"


@pytest.fixture(scope="module")
def tf():
    spec = importlib.util.spec_from_file_location("text_fidelity", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    module.text_layer_glyphs = sys.modules["text_layer_glyphs"]
    return module


def compare(tf, layer: str, output: str, **kwargs):
    return tf.compare_page(tf.reference_words(layer), tf.output_words(output), **kwargs)


def test_words_are_normalised(tf):
    assert tf.reference_words("“Hello,” (world) — ﬁne $ 1,234.5%") == ["Hello", "world", "fine", "1,234.5"]


def test_identical_text_loses_nothing(tf):
    result = compare(tf, "The cat sat\r\non the mat.", "The cat sat on the mat.")
    assert result.words == 6 and result.lost == [] and result.glued == []


def test_a_missing_word_is_lost_and_dropped(tf):
    result = compare(tf, "Against 977,228,788\r\nFor 19,718,780", "Against For 19,718,780")
    assert result.lost == ["977,228,788"]
    assert result.dropped == ["977,228,788"]


def test_glued_function_word_is_lost_and_counted_as_glued(tf):
    result = compare(tf, "the name of the registrant", "the name ofthe registrant")
    assert sorted(result.lost) == ["of", "the"]  # glued words are lost words ...
    assert result.glued == [("ofthe", ("of", "the"))]  # ... counted once more, apart
    assert tf.glued_function_words(result.glued) == 1
    assert result.dropped == []


def test_glue_through_punctuation_and_content_words(tf):
    result = compare(tf, "sales to retailers, jobbers and", "sales to retailers,jobbers and")
    assert [token for token, _ in result.glued] == ["retailers,jobbers"]
    assert tf.glued_function_words(result.glued) == 0


def test_line_end_hyphenation_is_not_lost(tf):
    for layer in ("a hyphen-\r\nated word", "a hyphen\ufffeated word", "a hyphen\u0002\r\nated word"):
        assert compare(tf, layer, "a hyphenated word").lost == []
        assert compare(tf, layer, "a hyphen-ated word").lost == []


def test_compound_keeps_its_hyphen(tf):
    inline = compare(tf, "a non-normal value", "a nonnormal value")
    assert inline.hyphen == ["non-normal"] and inline.lost == ["non-normal"]
    capital = compare(tf, "is FAA-\r\napproved today", "is FAAapproved today")
    assert capital.hyphen == ["FAA\ufffeapproved"]
    seen_inline = tf.inline_compounds([tf.reference_words("a dual-encoder model")])
    at_line_end = compare(tf, "the dual-\r\nencoder", "the dualencoder", compounds=seen_inline)
    assert len(at_line_end.hyphen) == 1
    assert compare(tf, "the dual-\r\nencoder", "the dualencoder").hyphen == []  # no evidence: hyphenation


def test_space_inserted_inside_a_word_is_split(tf):
    result = compare(tf, "COVID-\r\n19 cases", "COVID- 19 cases")
    assert [word for word, _ in result.split] == ["COVID\ufffe19"]


def _lines_of_glyphs(tf, lines: list[tuple[str, float, float]], *, width: float = 10.0):
    """Hand-built glyphs of `(text, baseline y, font size)` lines in pypdfium2's order: a " "
    in a line's text is a drawn space (one glyph width), a line ends in a generated line break."""
    glyph, glyphs = tf.text_layer_glyphs.Glyph, []
    for text, y, size in lines:
        x = 50.0
        for char in text:
            if char == " ":
                glyphs.append(glyph(" ", mark=True))
            else:
                glyphs.append(glyph(char, x=x, y=y, left=x, right=x + width, size=size))
            x += width
        glyphs += [glyph("\r", mark=True, generated=True), glyph("\n", mark=True, generated=True)]
    return glyphs


def test_korean_line_break_inside_a_word(tf):
    """A page that ends a Hangul line with a drawn space ("발생 ") breaks the others inside a
    word: "확" / "진자는" is one word, as long as the next line is in the same type."""
    glyphs = _lines_of_glyphs(tf, [("국내 확", 700, 10), ("진자는 9,661명, 발생 ", 686, 10), ("즉시", 672, 10)])
    words = tf.reference_words(tf.page_texts(glyphs)[0])
    assert words == ["국내", "확진자는", "9,661명", "발생", "즉시"]
    result = tf.compare_page(words, tf.output_words("국내 확 진자는 9,661명, 발생 즉시"))
    assert result.split == [("확진자는", ("확", "진자는"))]


def test_a_korean_line_into_other_type_is_a_lines_end(tf):
    """normal_4pages p1: the heading "이슈와 논점" (26 pt) and the title "코로나-19" (32 pt) below
    it are two lines, not "논점코로나-19"; so are a 10 pt header field and a 9 pt one."""
    glyphs = _lines_of_glyphs(tf, [("발생 ", 760, 10), ("이슈와 논점", 717, 26), ("코로나-19", 639, 32),
                                   ("6. 2일", 600, 10), ("발행처", 584, 9)])  # fmt: skip
    assert tf.reference_words(tf.page_texts(glyphs)[0]) == ["발생", "이슈와", "논점", "코로나-19", "6", "2일", "발행처"]


def test_spaces_pdfium_puts_between_fixed_pitch_cells_are_no_word_breaks(tf):
    """code_and_formula's listing: CMTT glyphs 4.71 pt wide on a 5.3-6.0 pt pitch; pypdfium2
    puts spaces where the gap is 1.1-1.3 pt ("console .log ("); a space is a whole empty cell
    (6.8 pt after ","). Helvetica's equal widths ("a e o u", digits: 0.556 em) are no fixed
    pitch: the run needs a narrow character ("." "(" "l") as wide as a letter."""
    glyph = tf.text_layer_glyphs.Glyph
    gaps = {".": 1.3, "(": 1.2, ",": 1.1, "5": 6.8}  # gap before the glyph, else 0.8 pt
    glyphs, x = [], 50.0
    for char in "console.log(add(3,5":
        gap = gaps.get(char, 0.8) if glyphs else 0.0
        if gap > 1.0:
            glyphs.append(glyph(" ", mark=True, generated=True))
        x += gap
        glyphs.append(glyph(char, x=x, y=700, left=x, right=x + 4.71, size=8.97))
        x += 4.71
    assert tf.page_texts(glyphs)[0] == "console.log(add(3, 5"
    helvetica, x = [], 50.0
    for char in "route 105":
        if char == " ":
            helvetica.append(glyph(" ", mark=True, generated=True))
            x += 2.0  # under half of 5.56: only the missing narrow glyph keeps the space
            continue
        helvetica.append(glyph(char, x=x, y=700, left=x, right=x + 5.56, size=10))
        x += 5.56
    assert tf.page_texts(helvetica)[0] == "route 105"


def test_han_characters_are_words_of_their_own(tf):
    assert tf.output_words("ZOq5年年度") == ["ZOq5", "年", "年", "度"]


def test_list_marker_kept_only_in_data_is_counted_apart(tf):
    result = compare(tf, "1. Call to order", "Call to order", markers=tf.output_words("1."))
    assert result.marker == ["1"] and result.dropped == []


def test_words_outside_the_visible_page_are_offpage(tf):
    result = compare(tf, "Seen words\r\nHidden spread", "Seen words", offpage=["Hidden", "spread"])
    assert sorted(result.offpage) == ["Hidden", "spread"] and result.dropped == []


def test_a_table_spanning_pages_serves_both_pages(tf):
    shared = Counter(tf.output_words("Revenue 10 Cost 4"))
    first = compare(tf, "Revenue 10", "", shared=[shared])
    second = compare(tf, "Cost 4", "", shared=[shared])
    assert first.lost == [] and second.lost == []


def test_a_raised_smaller_glyph_is_a_token_boundary_by_geometry(tf):
    """Footnote "11" before "The" at 6 pt, 3 pt up from a 10 pt line: pypdfium2 reads "11The";
    the reference sets it apart as the parser does. A smaller glyph on the baseline (small
    caps) or a raised one of the same size is no superscript."""
    assert tf.is_superscript_boundary(6.0, 10.0, 3.0)
    assert not tf.is_superscript_boundary(6.0, 10.0, 0.0)
    assert not tf.is_superscript_boundary(10.0, 10.0, 3.0)


def test_a_word_broken_before_a_page_number_goes_on_after_it(tf):
    """3M p31: "year-on-" / "31" (the folio) / next page "year": not "year-on-31"."""
    words = tf.reference_words("estimates that year-on-\n31")
    assert words == ["estimates", "that", "31", "year-on\ufffe"]
    joined = tf.pages_joined_at_breaks([words, tf.reference_words("Table of Contents\nyear gains")],
                                       [[], tf.line_starts("Table of Contents\nyear gains")])  # fmt: skip
    assert joined == [["estimates", "that", "31", "year-on\ufffeyear"], ["Table", "of", "Contents", "gains"]]
    assert tf.reference_words("For our e\u00023") == ["For", "our", "3", "e\ufffe"]  # pdfium's own mark
    assert tf.reference_words("fiscal 2013-\n2014") == ["fiscal", "2013\ufffe2014"]  # a range, not a folio
    assert tf.reference_words("-2-\r\n1.4 Committee") == ["2", "1.4", "Committee"]  # a folio framed by hyphens


def test_a_boundary_pdftotext_reads_as_the_output_does_is_no_loss(tf):
    result = compare(tf, "Administrative Expensessection below", "Administrative Expenses section below",
                     second=["Administrative", "Expenses", "section", "below"])  # fmt: skip
    assert result.lost == [] and result.second == ["Expensessection"]
    glued = compare(tf, "of the", "ofthe", second=["ofthe"])
    assert glued.lost == ["of", "the"] and tf.glued_function_words(glued.glued) == 1  # never excused
    spaced = compare(tf, "T a b l e o f", "Table of", second=["Table", "of"])  # pdfium letter by letter
    assert spaced.lost == [] and spaced.glued == []
    finer = compare(tf, "128 XxRd.,Hangzhou", "128 Xx Rd.,Hangzhou", second=["128", "X", "x", "Rd.,Hangzhou"])
    assert finer.lost == [] and finer.second == ["XxRd.,Hangzhou"]  # pdftotext breaks there too (pr-136)
    elsewhere = compare(tf, "128 XxRd.,Hangzhou", "128 X xRd.,Hangzhou", second=["128", "Xx", "Rd.,Hangzhou"])
    assert elsewhere.lost == ["XxRd.,Hangzhou"]  # pdftotext breaks the word, but not where the output does


def test_arabic_marks_and_script_changes(tf):
    assert tf.output_words("بناًء") == tf.output_words("بًناء")
    assert tf.reference_words("وPython") == ["و", "Python"]


def test_a_long_word_spaced_letter_by_letter_is_one_glued_token(tf):
    result = compare(tf, "l i a b i l i t i e s", "liabilities", second=["liabilities"])
    assert result.lost == [] and result.second == ["liabilities"]


def _glyph_per_line_page(tf, words: list[str], *, size: float = 10.0, word_gap: float = 2.0):
    """Hand-built glyphs as pypdfium2 reads CORNING p82: every glyph followed by a generated
    line break, the glyphs side by side on one baseline, 6 pt advance, `word_gap` points
    between words; a second line 14 pt lower starts at the left margin again."""
    glyph, glyphs = tf.text_layer_glyphs.Glyph, []
    for line, y in ((words[: len(words) // 2], 700.0), (words[len(words) // 2 :], 686.0)):
        x = 50.0
        for word in line:
            for char in word:
                glyphs.append(glyph(char, x=x, y=y, left=x, right=x + 6, size=size))
                glyphs += [glyph("\r", mark=True, generated=True), glyph("\n", mark=True, generated=True)]
                x += 6
            x += word_gap
    return glyphs


def test_a_page_read_one_glyph_per_line_is_rebuilt_from_glyph_positions(tf):
    """CORNING p82 / J&J 10-K p82: pypdfium2 breaks the line after every glyph; the reference
    reads the glyphs by position (baseline, then a gap over 0.05 em between advance boxes)."""
    words = ["Table", "of", "Contents", "Other", "liabilities", "11,036"]
    glyphs = _glyph_per_line_page(tf, words)
    assert tf.text_layer_glyphs.reads_one_glyph_per_line(glyphs)
    text, outside = tf.page_texts(glyphs)
    assert text == "Table of Contents\nOther liabilities 11,036"
    assert tf.reference_words(outside) == []
    assert tf.compare_page(tf.reference_words(text), tf.output_words(text.replace("\n", " "))).lost == []


def test_a_page_whose_lines_really_are_short_is_read_in_order(tf):
    """One glyph per line stacked down the page (each a baseline of its own): real lines,
    pypdfium2's text stands; so does a page where words sit side by side on few lines."""
    glyph = tf.text_layer_glyphs.Glyph
    stacked = []
    for n, char in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXY"):
        stacked += [glyph(char, x=50, y=700 - 14 * n, left=50, right=56, size=10), glyph("\n", mark=True)]
    assert not tf.text_layer_glyphs.reads_one_glyph_per_line(stacked)
    assert tf.page_texts(stacked)[0] == "\n".join("ABCDEFGHIJKLMNOPQRSTUVWXY") + "\n"
    short = _glyph_per_line_page(tf, ["Table", "of"])  # 7 one-glyph lines: under the 20 the rule needs
    assert not tf.text_layer_glyphs.reads_one_glyph_per_line(short)


def test_a_cell_broken_at_a_hyphen_is_joined_by_the_output_as_printed(tf):
    # 3M p130: pypdfium2 reads a header row's cells side by side, so "Weighted-" ends inside a
    # line and its rest "average" stands on the next; the parser's cell reads "Weighted-average".
    layer = "Number of Weighted- Number of securities\nsecurities to be average exercise remaining"
    output = "Number of | Weighted-average exercise | Number of securities\nsecurities to be remaining"
    breaks = tf.mid_line_breaks(layer)
    assert breaks == {"Weighted"}
    assert compare(tf, layer, output, cell_breaks=breaks).lost == []
    assert sorted(compare(tf, layer, output).lost) == ["Weighted", "average"]
    # no hyphen printed: two lost words glued with an invented hyphen are still lost
    assert sorted(compare(tf, "Weighted x\naverage", "Weighted-average x", cell_breaks=set()).lost) == [
        "Weighted",
        "average",
    ]


def test_words_of_a_drop_the_parser_recorded_are_recorded_not_dropped(tf):
    # scotus p1's margin line numbers, a continued table's repeated header: kept out on purpose
    result = compare(tf, "1 In Millions 2020\nGoodwill 13,923", "Goodwill 13,923", recorded=["1", "In", "Millions"])
    assert result.recorded == ["1", "In", "Millions"] and result.dropped == ["2020"]
    assert len(result.lost) == 4  # still lost from the elements; accounted for by the record


def test_a_line_end_break_paired_with_another_columns_word_is_found_where_the_output_joins_it(tf):
    # CORNING 2022 p62: a stacked header, read row by row; pdfium joins the line-end "Non-" of
    # the last column with the first word of the next line, the first column's "preferred",
    # while the cell's own rest "controlling" ends that line.
    layer = "Convertible paid-in Non-\npreferred Common shareholders controlling\nstock stock equity interest"
    output = "Convertible preferred stock | Common stock | paid-in | shareholders equity | Non-controlling interest"
    breaks = tf.breaks_to_line_ends(layer)
    assert breaks == {("Non\ufffepreferred", "controlling")}
    # pdfium's own mark, the line break dropped: the same pair
    assert tf.breaks_to_line_ends(layer.replace("Non-\n", "Non\ufffe")) == breaks
    assert compare(tf, layer, output, column_breaks=breaks).lost == []
    assert sorted(compare(tf, layer, output).lost) == ["Non\ufffepreferred", "controlling"]
    # "Non-" joined with another column's word, not the line's last: still lost
    wrong = "Convertible preferred stock | Common stock | paid-in | Non-shareholders controlling equity interest"
    assert "Non\ufffepreferred" in compare(tf, layer, wrong, column_breaks=breaks).lost
    # the paired word must stand alone in the output: else the break is lost as before
    assert "Non\ufffepreferred" in compare(tf, layer, output.replace("preferred ", ""), column_breaks=breaks).lost
