"""The one line-join rule (hyphenated line ends rejoined) and the three places that use it."""

from __future__ import annotations

from parsers.ocr.words import join_lines
from parsers.textlayer.blocks import Line, lines_to_text
from parsers.textlayer.chars import Segment
from parsers.textlayer.text_joins import join_wrapped_lines


def text_line(text: str) -> Line:
    segment = Segment(text=text, x0=0, top=0, x1=100, bottom=10, size=10, bold=0.0, font="F", chars=len(text))
    return Line(segments=[segment], x0=0, top=0, x1=100, bottom=10, size=10, bold=0, text=text)


def test_word_broken_at_a_line_end_is_rejoined():
    assert join_wrapped_lines(["good manage-", "ment of pests"]) == "good management of pests"
    assert join_wrapped_lines(["a fertil-", "iser dose", "every week"]) == "a fertiliser dose every week"


def test_soft_hyphen_at_a_line_end_is_a_break_point_too():
    assert join_wrapped_lines(["good manage\u00ad", "ment"]) == "good management"


def test_hyphen_is_kept_when_it_is_not_a_word_break():
    assert join_wrapped_lines(["the COVID-", "19 wave"]) == "the COVID- 19 wave"  # digit follows
    assert join_wrapped_lines(["Yavatmal-", "Ralegaon road"]) == "Yavatmal- Ralegaon road"  # capital follows
    assert join_wrapped_lines(["call 1800-", "233-4000"]) == "call 1800- 233-4000"  # digit precedes
    assert join_wrapped_lines(["-", "dash"]) == "- dash"  # nothing precedes
    assert join_wrapped_lines(["शेतकरी-", "योजना"]) == "शेतकरी- योजना"  # no case: no rejoin


def test_lines_are_stripped_and_blank_lines_skipped():
    assert join_wrapped_lines(["  one ", "", "   ", "two\n"]) == "one two"
    assert join_wrapped_lines(["", "manage-", "  ", "ment"]) == "management"
    assert join_wrapped_lines([]) == ""


def test_text_layer_and_ocr_joins_follow_the_same_rule():
    lines = ["good manage-", "ment of the fertil\u00ad", "iser", "the COVID-", "19 wave"]
    expected = "good management of the fertiliser the COVID- 19 wave"
    assert join_wrapped_lines(lines) == expected
    assert join_lines(lines) == expected
    assert lines_to_text([text_line(t) for t in lines]) == expected


def test_text_layer_join_normalizes_but_ocr_join_does_not():
    """NFKC (ligature 'ﬁ' -> 'fi') belongs to the text layer; OCR words are NFC already."""
    assert lines_to_text([text_line("ﬁeld")]) == "field"
    assert join_lines(["ﬁeld"]) == "ﬁeld"
