"""The one line-join rule (hyphenated line ends rejoined) and the three places that use it."""

from __future__ import annotations

from parsers.ocr.words import join_lines
from parsers.textlayer.blocks import Line, lines_to_text
from parsers.textlayer.chars import Segment
from parsers.textlayer.text_joins import WrappedLine, join_wrapped_lines


def text_line(text: str) -> Line:
    segment = Segment(text=text, x0=0, top=0, x1=100, bottom=10, size=10, bold=0.0, font="F", chars=len(text))
    return Line(segments=[segment], x0=0, top=0, x1=100, bottom=10, size=10, bold=0, text=text)


def test_word_broken_at_a_line_end_is_rejoined():
    assert join_wrapped_lines(["good manage-", "ment of pests"]) == "good management of pests"
    assert join_wrapped_lines(["a fertil-", "iser dose", "every week"]) == "a fertiliser dose every week"


def test_soft_hyphen_at_a_line_end_is_a_break_point_too():
    assert join_wrapped_lines(["good manage\u00ad", "ment"]) == "good management"


def test_hyphen_before_a_capital_or_digit_is_kept_and_glued():
    """ "Non- GAAP", "2013- 2014" (3M), "Warden- Commander" (DA-619p) had a space."""
    assert join_wrapped_lines(["the COVID-", "19 wave"]) == "the COVID-19 wave"  # digit follows
    assert join_wrapped_lines(["Yavatmal-", "Ralegaon road"]) == "Yavatmal-Ralegaon road"  # capital follows
    assert join_wrapped_lines(["call 1800-", "233-4000"]) == "call 1800-233-4000"  # digit precedes
    assert join_wrapped_lines(["our Non-", "GAAP measures"]) == "our Non-GAAP measures"
    assert join_wrapped_lines(["fiscal 2013-", "2014"]) == "fiscal 2013-2014"
    assert join_wrapped_lines(["COVID-19-", "related"]) == "COVID-19-related"
    # not a hyphen after a word: kept, with a space
    assert join_wrapped_lines(["-", "dash"]) == "- dash"  # nothing precedes
    assert join_wrapped_lines(["a pause -", "then"]) == "a pause - then"  # a dash, not a hyphen
    assert join_wrapped_lines(["शेतकरी-", "योजना"]) == "शेतकरी- योजना"  # no case: no rejoin


def test_compounds_keep_their_line_end_hyphen():
    """ "non-normal" -> "nonnormal", "FAA-approved" -> "FAAapproved" and the like."""
    cases = {
        ("non-", "normal"): "non-normal",
        ("FAA-", "approved"): "FAA-approved",
        ("dual-", "encoder"): "dual-encoder",
        ("third-", "party"): "third-party",
        ("year-on-", "year"): "year-on-year",
        ("forward-", "looking"): "forward-looking",
        ("pre-", "connectorized"): "pre-connectorized",
    }
    for lines, expected in cases.items():
        assert join_wrapped_lines(lines) == expected
    # a word broken by hyphenation is still rejoined (the lexicon knows the joined spelling) ...
    assert join_wrapped_lines(["the opera-", "tions of the manu-", "facturing unit"]) == (
        "the operations of the manufacturing unit"
    )
    # ... and a hyphen inside a line is never touched
    assert join_wrapped_lines(["a well-known third-", "party co-op"]) == "a well-known third-party co-op"


def test_korean_lines_join_without_a_space_only_when_none_was_drawn():
    """normal_4pages: the producer draws a space after a line that ends between words and
    none where the break falls inside a word ("확" / "진자" -> "확진자")."""
    assert join_wrapped_lines([WrappedLine("코로나 확", False), WrappedLine("진자는", None)]) == "코로나 확진자는"
    assert join_wrapped_lines([WrappedLine("코로나 확진자", True), WrappedLine("질병", None)]) == "코로나 확진자 질병"
    assert (
        join_wrapped_lines([WrappedLine("코로나 확", None), WrappedLine("진자는", None)]) == "코로나 확 진자는"
    )  # no evidence


def test_korean_lines_in_two_sizes_are_two_fields_not_a_wrapped_word():
    """normal_4pages p1: "발행처 국회입법조사처" ends at 10 pt, "발행인 ..." starts at 9 pt (a
    header's next label): no space drawn after it, but no word goes on across the sizes."""
    header = [WrappedLine("발행처 국회입법조사처", False, 9.0, 10.0), WrappedLine("발행인 김하중", False, 9.0, 10.0)]
    assert join_wrapped_lines(header) == "발행처 국회입법조사처 발행인 김하중"
    wrapped = [WrappedLine("코로나 확", False, 10.0, 10.0), WrappedLine("진자는", None, 10.1, 10.0)]
    assert join_wrapped_lines(wrapped) == "코로나 확진자는"  # within 2 %: one size


def test_han_and_kana_lines_join_without_a_space():
    assert join_wrapped_lines(["菲达环保关于", "公司的公告"]) == "菲达环保关于公司的公告"
    assert join_wrapped_lines(["これは", "ペンです"]) == "これはペンです"


def test_lines_are_stripped_and_blank_lines_skipped():
    assert join_wrapped_lines(["  one ", "", "   ", "two\n"]) == "one two"
    assert join_wrapped_lines(["", "manage-", "  ", "ment"]) == "management"
    assert join_wrapped_lines([]) == ""


def test_text_layer_and_ocr_joins_follow_the_same_rule():
    lines = ["good manage-", "ment of the fertil\u00ad", "iser", "the COVID-", "19 wave"]
    expected = "good management of the fertiliser the COVID-19 wave"
    assert join_wrapped_lines(lines) == expected
    assert join_lines(lines) == expected
    assert lines_to_text([text_line(t) for t in lines]) == expected


def test_text_layer_join_normalizes_but_ocr_join_does_not():
    """NFKC (ligature 'ﬁ' -> 'fi') belongs to the text layer; OCR words are NFC already."""
    assert lines_to_text([text_line("ﬁeld")]) == "field"
    assert join_lines(["ﬁeld"]) == "ﬁeld"
