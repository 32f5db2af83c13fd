"""Words broken at a line end reach one element whole, spelled as the document prints them
(issue 12: "nothing glued, nothing split"). Pure rules first, then the bench pages where
the word came out in two pieces or without its hyphen."""

from __future__ import annotations

import pytest
from conftest import BENCH

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


def _one_page(path, page, folder):
    import pypdfium2

    source = pypdfium2.PdfDocument(path)
    cut = pypdfium2.PdfDocument.new()
    cut.import_pages(source, [page - 1])
    target = folder / f"{path.stem}-p{page}.pdf"
    cut.save(target)
    cut.close()
    source.close()
    return target


def _texts(path) -> list[str]:
    from parsers import parse_pdf

    document = parse_pdf(path, {"ocr": {"mode": "never"}})
    return [e.text if e.rows is None else " | ".join(c for row in e.rows for c in row) for e in document.elements]


@pytest.mark.slow
def test_a_compound_broken_at_its_hyphen_keeps_it_when_the_document_prints_it_so(tmp_path):
    """COSTCO 2021 10-K p31 prints "non-functional" inside lines and breaks one at its hyphen;
    the lexicon has "nonfunctional", so the join made "nonfunctional"."""
    text = "\n".join(_texts(_one_page(BENCH / "financebench-dev" / "COSTCO_2021_10K.pdf", 31, tmp_path)))
    assert "nonfunctional" not in text and text.count("non-functional") == 3


@pytest.mark.slow
def test_a_heading_broken_by_a_hyphen_is_one_title():
    """icdar2013 eu-027 p2: "Appendix B: ... Stock Mar-" was a title and "ket Participation
    ..." a paragraph (display type set with wide leading)."""
    texts = _texts(BENCH / "icdar2013-eu" / "eu-027.pdf")
    assert "B Appendix B: Financial Literacy and Stock Market Participation over Deciles of Financial Wealth" in texts


@pytest.mark.slow
def test_a_wrapped_table_label_broken_by_a_hyphen_is_one_row(tmp_path):
    text = "\n".join(_texts(_one_page(BENCH / "financebench-dev" / "3M_2018_10K.pdf", 20, tmp_path)))
    assert "Q4 2017 Adjusted Non-GAAP Measure | $7,990" in text


@pytest.mark.slow
def test_a_wrapped_line_after_a_broken_word_is_no_list_item(tmp_path):
    """CORNING 2022 10-K p49: "... in this Annual Report on Form 10-" / "K." matched a list
    marker (a letter and a period), so "K." was a list item of its own."""
    texts = _texts(_one_page(BENCH / "financebench-dev" / "CORNING_2022_10K.pdf", 49, tmp_path))
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


@pytest.mark.slow
def test_a_weight_switch_after_a_broken_word_is_no_new_paragraph(tmp_path):
    """COSTCO 2021 10-K p63: "(Case No. 19-" (a line 0.91 bold) / "2-15514-1). In light of ..."
    (regular) were cut into two paragraphs at the weight switch, mid-word."""
    texts = _texts(_one_page(BENCH / "financebench-dev" / "COSTCO_2021_10K.pdf", 63, tmp_path))
    assert any("Costco Wholesale Corp. (Case No. 19-2-15514-1). In light of the dismissal" in t for t in texts)
