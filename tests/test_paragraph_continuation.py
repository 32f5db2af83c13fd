"""`merge_continued_paragraphs` on hand-built elements."""

from __future__ import annotations

from ingest.contracts.elements import Element, ElementType
from parsers.structure.paragraph_continuation import merge_continued_paragraphs


def _para(text: str, page: int, box=(100.0, 100.0, 500.0, 124.0)) -> Element:
    return Element(type=ElementType.paragraph, text=text, page=page, bbox=box)


FOOTER = Element(type=ElementType.page_number, text="1", page=1)


def test_a_sentence_continued_on_the_next_page_is_merged_past_furniture():
    first = _para("a long sentence of body text that the page break cuts after the word document", 1)
    second = _para("analysis, and it goes on for another line of the same body text here.", 2)
    merged = merge_continued_paragraphs([first, FOOTER, second])
    assert [e.type for e in merged] == [ElementType.paragraph, ElementType.page_number]
    assert merged[0].text.endswith("document analysis, and it goes on for another line of the same body text here.")
    assert merged[0].page_end == 2 and [p["page"] for p in merged[0].data["parts"]] == [1, 2]
    assert first.page_end is None  # inputs left alone


def test_a_finished_sentence_or_a_capital_start_is_not_merged():
    ended = [_para("The sentence ends here on page one with a full stop.", 1), _para("and then lower case", 2)]
    assert len(merge_continued_paragraphs(ended)) == 2
    capital = [_para("a sentence without its end on page one", 1), _para("New paragraph on page two", 2)]
    assert len(merge_continued_paragraphs(capital)) == 2


def test_a_sentence_end_before_footnote_marks_ends_the_paragraph():
    """VERIZON 2022 10-K p111/p112: an exhibit entry ends "... by reference).**" and the next
    page opens with the next entry's number ("10a(vii) Form of ...")."""
    entries = [
        _para("Form of Agreement (filed as Exhibit 10a to Form 10-Q and incorporated herein by reference).**", 1),
        _para("10a(vii) Form of 2022 Restricted Stock Unit Agreement", 2),
    ]
    assert len(merge_continued_paragraphs(entries)) == 2


def test_smaller_type_is_not_a_continuation():
    body = _para("body text of a normal size that runs to the end of the page without an end", 1)
    footnote = _para("a footnote " * 20, 2, box=(100.0, 700.0, 500.0, 724.0))
    assert len(merge_continued_paragraphs([body, footnote])) == 2
