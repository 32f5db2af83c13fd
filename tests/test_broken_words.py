"""Words broken at a line end reach one element whole, spelled as the document prints them
("nothing glued, nothing split"). Pure rules first, then the bench pages where
the word came out in two pieces or without its hyphen."""

from __future__ import annotations

import pytest
from conftest import BENCH, pdf_pages

from ingest.contracts.elements import Element, ElementType
from parsers.structure.compounds import elements_with_spellings, respelled, texts_to_spellings
from parsers.tables.unruled import rows_with_wrapped_labels_joined
from parsers.textlayer.text_joins import line_goes_on


def test_spellings_are_the_words_printed_inside_lines_not_a_broken_line_end():
    spellings = texts_to_spellings(["in non-compliance with the", "Non-GAAP manage-"])
    assert spellings.hyphenated == {"non-compliance", "non-gaap"}
    assert spellings.whole == {"in", "with", "the"}  # "manage-" is half a word


def test_a_joined_word_takes_the_only_spelling_the_document_prints():
    spellings = texts_to_spellings(["a non-compliance fee", "the cybersecurity team", "management"])
    assert respelled("noncompliance", spellings) == "non-compliance"
    assert respelled("Noncompliance", spellings) == "Non-compliance"  # case as joined
    assert respelled("cyber-security", spellings) == "cybersecurity"
    assert respelled("management", spellings) == "management"  # printed whole: never changed
    assert respelled("nonnormal", spellings) == "nonnormal"  # no evidence: as the join decided
    capitals = texts_to_spellings(["St. Paul", "1st"])
    assert respelled("S-T", capitals) == "S-T"  # "Regulation S-" + "T": the hyphen is the word's own


def test_a_word_printed_both_ways_is_left_as_joined():
    spellings = texts_to_spellings(["non-compliance", "noncompliance"])
    assert respelled("noncompliance", spellings) == "noncompliance"


def test_elements_and_table_cells_are_respelled_and_others_left_alone():
    spellings = texts_to_spellings(["a non-recurring charge"])
    paragraph = Element(type=ElementType.paragraph, text="one nonrecurring item", page=1)
    table = Element(type=ElementType.table, text="", page=1, rows=[["Nonrecurring", "12"]])
    untouched = Element(type=ElementType.paragraph, text="a charge", page=1)
    fixed = elements_with_spellings([paragraph, table, untouched], spellings, set())
    assert fixed[0].text == "one non-recurring item" and fixed[1].rows == [["Non-recurring", "12"]]
    assert fixed[2] is untouched and paragraph.text == "one nonrecurring item"


def test_a_table_label_broken_by_a_hyphen_stays_one_row_whatever_the_pitch():
    """3M 2018 10-K p20: "Q4 2017 Adjusted Non-" / "GAAP Measure  $7,990 ..." were two rows
    (rows evenly pitched, so the wrapped-label rule did not join them)."""
    grid = [["Q4 2017 GAAP", "$7,990"], ["Q4 2017 Adjusted Non-", ""], ["GAAP Measure", "$7,990"], ["Q4 2018", "1"]]
    rows, _ = rows_with_wrapped_labels_joined(grid, [10.0] * 4, [0.0, 12.0, 24.0, 36.0])
    assert rows == [["Q4 2017 GAAP", "$7,990"], ["Q4 2017 Adjusted Non-GAAP Measure", "$7,990"], ["Q4 2018", "1"]]


def test_a_line_that_breaks_a_word_or_leaves_a_bracket_open_goes_on():
    assert line_goes_on("in this Annual Report on Form 10-")  # "K." below is no list item
    assert line_goes_on("Costco Wholesale Corp. (Case No. 19-")
    assert line_goes_on("Stock Mar-") and line_goes_on("the (unaudited")
    assert not line_goes_on("revenue (see Note 3) grew.")
    assert not line_goes_on("Net sales - ") and not line_goes_on("Revenue —") and not line_goes_on("-")


# --- bench pages -----------------------------------------------------------------------------


def _texts(path) -> list[str]:
    from parsers import parse_pdf

    document = parse_pdf(path, {"ocr": {"mode": "never"}})
    return [e.text if e.rows is None else " | ".join(c for row in e.rows for c in row) for e in document.elements]


@pytest.mark.shared
@pytest.mark.slow
def test_a_compound_broken_at_its_hyphen_keeps_it_when_the_document_prints_it_so(tmp_path):
    """COSTCO 2021 10-K p31 prints "non-functional" inside lines and breaks one at its hyphen;
    the lexicon has "nonfunctional", so the join made "nonfunctional"."""
    text = "\n".join(_texts(pdf_pages(BENCH / "financebench-dev" / "COSTCO_2021_10K.pdf", 31, into=tmp_path)))
    assert "nonfunctional" not in text and text.count("non-functional") == 3


@pytest.mark.shared
@pytest.mark.slow
def test_a_heading_broken_by_a_hyphen_is_one_title():
    """icdar2013 eu-027 p2: "Appendix B: ... Stock Mar-" was a title and "ket Participation
    ..." a paragraph (display type set with wide leading)."""
    texts = _texts(BENCH / "icdar2013-eu" / "eu-027.pdf")
    assert "B Appendix B: Financial Literacy and Stock Market Participation over Deciles of Financial Wealth" in texts


@pytest.mark.shared
@pytest.mark.slow
def test_a_wrapped_table_label_broken_by_a_hyphen_is_one_row(tmp_path):
    text = "\n".join(_texts(pdf_pages(BENCH / "financebench-dev" / "3M_2018_10K.pdf", 20, into=tmp_path)))
    assert "Q4 2017 Adjusted Non-GAAP Measure | $7,990" in text


@pytest.mark.shared
@pytest.mark.slow
def test_a_wrapped_line_after_a_broken_word_is_no_list_item(tmp_path):
    """CORNING 2022 10-K p49: "... in this Annual Report on Form 10-" / "K." matched a list
    marker (a letter and a period), so "K." was a list item of its own."""
    texts = _texts(pdf_pages(BENCH / "financebench-dev" / "CORNING_2022_10K.pdf", 49, into=tmp_path))
    assert "K." not in texts
    assert (
        sum(
            t.endswith(
                "Independent Registered Public Accounting Firm” in our Definitive Proxy Statement are "
                "incorporated by reference in this Annual Report on Form 10-K."
            )
            for t in texts
        )
        == 1
    )


@pytest.mark.shared
@pytest.mark.slow
def test_a_weight_switch_after_a_broken_word_is_no_new_paragraph(tmp_path):
    """COSTCO 2021 10-K p63: "(Case No. 19-" (a line 0.91 bold) / "2-15514-1). In light of ..."
    (regular) were cut into two paragraphs at the weight switch, mid-word."""
    texts = _texts(pdf_pages(BENCH / "financebench-dev" / "COSTCO_2021_10K.pdf", 63, into=tmp_path))
    assert any("Costco Wholesale Corp. (Case No. 19-2-15514-1). In light of the dismissal" in t for t in texts)


@pytest.mark.shared
@pytest.mark.slow
def test_a_weight_switch_inside_a_justified_sentence_is_no_new_paragraph(tmp_path):
    """COSTCO 2021 10-K p63: bold case names inside one paragraph cut it into three at lines
    running to the right edge mid-sentence ("... breached their fiduciary" / "duties.
    Wedekind v. Hamilton James, ...", the next line 0.94 bold; "... Kenneth Denman, Richard" /
    "Galanti, ..." 0.49 -> 1.0 bold)."""
    texts = _texts(pdf_pages(BENCH / "financebench-dev" / "COSTCO_2021_10K.pdf", 63, into=tmp_path))
    (paragraph,) = [t for t in texts if t.startswith("Members of the Board of Directors")]
    assert "breached their fiduciary duties. Wedekind v. Hamilton James" in paragraph
    assert "Kenneth Denman, Richard Galanti, Craig Jelinek" in paragraph
    assert paragraph.endswith("agreed voluntarily to dismiss their complaints.")


def _segment(x0, x1, top, text):
    from parsers.textlayer.chars import Segment

    return Segment(text=text, x0=x0, top=top, x1=x1, bottom=top + 9, size=9, bold=0.0, font="F", chars=len(text))


def test_an_entry_number_set_beside_its_second_line_reads_first_and_the_broken_word_is_whole():
    """VERIZON 2022 10-K p111: an exhibit's number is centred beside the second of its lines,
    so it was read into the middle of the entry ("... Inc. Long-10a(iii) Term Incentive")."""
    from parsers.textlayer.blocks import region_to_blocks, segments_to_line

    lines = [
        segments_to_line([_segment(132, 551, 564, "Form of 2020 Restricted Stock Unit Agreement, Inc. Long-")]),
        segments_to_line(
            [_segment(96, 123, 573, "10a(iii)"), _segment(132, 551, 573, "Term Incentive Plan (filed as")]
        ),
        segments_to_line([_segment(132, 275, 582, "incorporated herein by reference).")]),
    ]
    (block,) = region_to_blocks(lines, em=9.0)
    assert block.text == (
        "10a(iii) Form of 2020 Restricted Stock Unit Agreement, Inc. Long-Term Incentive Plan (filed as"
        " incorporated herein by reference)."
    )
    assert lines[1].text == "10a(iii) Term Incentive Plan (filed as"  # the input lines are left alone


def test_a_hanging_label_moves_within_its_entry_when_the_block_holds_the_next_entries():
    """VERIZON 2022 10-K p112: "10a(vii)" hangs beside its entry's second line, and the block
    goes on with "10b ..." labelled at the margin; the entry is judged, not the whole block."""
    from parsers.textlayer.blocks import region_to_blocks, segments_to_line

    lines = [
        segments_to_line([_segment(132, 551, 25, "Form of 2022 Restricted Stock Unit Agreement, Inc. Long-")]),
        segments_to_line([_segment(94, 123, 35, "10a(vii)"), _segment(132, 551, 35, "Term Incentive Plan (filed as")]),
        segments_to_line([_segment(132, 275, 45, "incorporated herein by reference).**")]),
        segments_to_line(
            [_segment(54, 69, 54, "10b"), _segment(89, 551, 54, "Verizon Communications Inc. Short-Term")]
        ),
        segments_to_line([_segment(89, 314, 63, "Incentive Plan (filed herewith).**")]),
    ]
    (block,) = region_to_blocks(lines, em=9.0)
    assert block.text == (
        "10a(vii) Form of 2022 Restricted Stock Unit Agreement, Inc. Long-Term Incentive Plan (filed as"
        " incorporated herein by reference).** 10b Verizon Communications Inc. Short-Term Incentive Plan"
        " (filed herewith).**"
    )


def test_a_label_beside_a_line_that_does_not_start_its_entry_column_stays():
    """The lines before the label's must run back to the block start or an entry's end."""
    from parsers.textlayer.blocks import region_to_blocks, segments_to_line

    lines = [
        segments_to_line([_segment(54, 551, 25, "A paragraph at the margin that goes on and on to the")]),
        segments_to_line([_segment(132, 551, 35, "indented words of a quotation set in from the margin")]),
        segments_to_line([_segment(94, 123, 45, "2021"), _segment(132, 551, 45, "and a figure set beside it")]),
    ]
    (block,) = region_to_blocks(lines, em=9.0)
    assert "margin 2021 and a figure" in block.text


def test_a_label_after_a_line_that_ends_an_entry_stays_where_it_opens_the_next():
    """COSTCO 2021 10-K p67: two exhibit entries in one block; "4.1" begins the second."""
    from parsers.textlayer.blocks import region_to_blocks, segments_to_line

    lines = [
        segments_to_line([_segment(132, 551, 100, "the Bylaws of Costco Wholesale Corporation (to be effective)")]),
        segments_to_line(
            [_segment(96, 110, 109, "4.1"), _segment(132, 551, 109, "First Supplemental Indenture between")]
        ),
    ]
    (block,) = region_to_blocks(lines, em=9.0)
    assert block.text.startswith("the Bylaws") and "effective) 4.1 First" in block.text


def test_a_short_first_word_of_an_indented_paragraph_is_no_label():
    from parsers.textlayer.blocks import region_to_blocks, segments_to_line

    lines = [
        segments_to_line([_segment(54, 551, 100, "An indented first line of a paragraph that goes on")]),
        segments_to_line([_segment(36, 551, 109, "and on to the right edge of the page, then stops.")]),
    ]
    (block,) = region_to_blocks(lines, em=9.0)
    assert block.text.startswith("An indented first line")


@pytest.mark.shared
@pytest.mark.slow
def test_exhibit_numbers_beside_their_second_line_keep_long_term_whole(tmp_path):
    text = "\n".join(_texts(pdf_pages(BENCH / "financebench-dev" / "VERIZON_2022_10K.pdf", 111, into=tmp_path)))
    assert "Long-10a" not in text and text.count("Long-Term Incentive Plan") >= 7
    assert "10a(iii) Form of 2020 Restricted Stock Unit Agreement" in text


@pytest.mark.shared
@pytest.mark.slow
def test_an_exhibit_number_beside_its_second_line_in_a_block_of_entries_reads_first(tmp_path):
    text = "\n".join(_texts(pdf_pages(BENCH / "financebench-dev" / "VERIZON_2022_10K.pdf", 112, into=tmp_path)))
    assert "Long-10a" not in text
    assert "10a(vii) Form of 2022 Restricted Stock Unit Agreement" in text and "Inc. Long-Term Incentive" in text
