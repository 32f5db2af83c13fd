"""Heading patterns on public PDFs (../shared/corpus), each failing before the rule
(parsers/structure/heading_blocks.py, parsers/structure/headings.py), plus the pure rules on
hand-built blocks."""

from __future__ import annotations

import functools

import pytest
from conftest import BENCH, CORPUS, pdf_pages

from ingest.contracts.elements import ElementType
from parsers.pdf import parse_pdf
from parsers.structure.heading_blocks import continues_heading, run_in_lead
from parsers.structure.headings import context_rejects_heading, display_is_figure, is_prose, numbered_line_is_heading
from parsers.textlayer.blocks import Block, segments_to_line
from parsers.textlayer.chars import Segment


@functools.cache
def parsed(name: str):
    return parse_pdf(CORPUS / name, {"ocr": {"mode": "never"}})


def titles(document, page: int | None = None) -> list[str]:
    return [e.text for e in document.elements if e.type is ElementType.title and page in (None, e.page)]


def _block(text, top, size, bold=0.0, font="Body", x0=20.0, width=300.0):
    segment = Segment(text, x0, top, x0 + width, top + size * 1.2, size, bold, font, chars=len(text))
    return Block([segments_to_line([segment])])


@pytest.mark.shared
def test_run_in_heading_lead_is_split_from_its_paragraph():
    document = parsed("layout-parser-paper-fast.pdf")
    assert {"Abstract.", "Keywords:"} <= set(titles(document, 1))
    after = [e.text for e in document.elements if e.page == 1 and e.type is ElementType.paragraph]
    assert any(text.startswith("Recent advances in document image analysis") for text in after)


def test_run_in_lead_rule_is_conservative():
    body = Segment("We have chosen the data set for its size and", 0, 0, 200, 10, 10.0, 0.0, "CMR10", chars=40)
    assert run_in_lead("5.1 Hyper Parameter Optimization", "CMBX10", False, 10.0, body, 20)
    assert run_in_lead("Abstract.", "CMBX9", False, 9.0, body, 20)
    assert not run_in_lead("Abstract.", "CMR10", False, 10.0, body, 20)  # same font: not set apart
    assert not run_in_lead("Dose:", "Arial-Bold", True, 10.0, body, 3)  # a form line, not prose after it
    assert not run_in_lead("Figure 2.", "Arial-Bold", True, 10.0, body, 20)  # a caption
    assert not run_in_lead("five years:", "Arial-Bold", True, 10.0, body, 20)  # continues a line


@pytest.mark.shared
def test_multi_line_heading_is_one_heading():
    reliance = parsed("reliance.pdf")
    assert "For sustainable value creation For societal well-being" not in titles(reliance, 1)
    form = parsed("150109DSP-Milw-505-90D.pdf")
    assert "injuries." not in titles(form, 1)
    upper = _block("Row and Column Access Control", 100, 16, 1.0, "Helvetica-Bold")
    lower = _block("Support in IBM DB2 for i", 119.5, 16, 1.0, "Helvetica-Bold")
    assert continues_heading(upper, lower)
    assert not continues_heading(_block("Scope.", 100, 16, 1.0, "Helvetica-Bold"), lower)
    assert not continues_heading(upper, _block("Support in IBM DB2 for i", 119.5, 10, 0.0, "Times"))


@pytest.mark.shared
def test_numbered_sub_headings_are_headings_with_their_number():
    document = parsed("normal_4pages.pdf")
    found = [t for t in titles(document) if t.startswith("(") and t[1].isdigit()]
    assert "(1) 「감염병의 예방 및 관리에 관한 법률」 개정" in found
    assert "(1) 상위법에 반하는 보험약관의 해석" in found
    assert len(found) >= 10
    items = [e.text for e in document.elements if e.type is ElementType.list_item]
    assert "「감염병의 예방 및 관리에 관한 법률」 개정" not in items
    heading = _block("(1) Scope of the law", 100, 12.5, 0.0, "Dotum")
    body = _block("The law applies to every insurer that sells cover for named diseases.", 120, 11.5)
    assert numbered_line_is_heading(heading, body, 11.5)
    assert not numbered_line_is_heading(_block("(1) Scope of the law", 100, 11.5), body, 11.5)


@pytest.mark.shared
def test_form_values_and_a_form_sentence_are_not_headings():
    document = parsed("150109DSP-Milw-505-90D.pdf")
    assert not {"N/A", "None", "injuries."} & set(titles(document))
    assert not any(t.startswith("Yes No Criminal charges filed?") for t in titles(document))
    label = _block("Description of all other persons residing in the home:", 100, 9, 1.0, "Arial-Bold")
    value = _block("N/A", 111, 11, 1.0, "Times-Bold", width=20)
    assert context_rejects_heading(label, value, None) == "form value"
    assert is_prose("Yes No Criminal charges filed? If yes, against whom? The friend of the mother")
    assert not is_prose("A. Children residing at home at the time of the incident:")


@pytest.mark.shared
def test_key_figure_labels_are_not_headings():
    document = parsed("reliance.pdf")
    assert not {"BY REVENUE", "EXPORTS", "BY MARKET CAPITALISATION"} & set(titles(document, 2))
    assert "India’s largest company" in titles(document, 2)


def test_ocr_lines_use_the_one_heading_decider():
    import parsers.ocr.layout as ocr_layout
    from parsers.structure.headings import measured_heading_level

    assert not hasattr(ocr_layout, "heading_level") and not hasattr(ocr_layout, "can_be_heading")
    assert measured_heading_level(2.0, False, 4, 90, 1.0, True) == 1
    assert measured_heading_level(1.0, True, 4, 90, 1.0, True) == 4
    assert measured_heading_level(2.0, False, 4, 30, 1.0, True) is None  # a stamp read at low confidence
    assert measured_heading_level(1.0, False, 4, 90, 1.0, True) is None


# Regressions found with benchmarks/same_output.py --against main.


@pytest.mark.shared
def test_two_complete_headings_in_one_style_are_not_joined():
    """2023-06-20-PV.pdf p1: a left-set numbered heading over a centred resolution number in
    the same bold type were joined into one title."""
    found = titles(parsed("2023-06-20-PV.pdf"), 1)
    assert "Résolution DM-2023-001" in found
    assert "4. Demande de démolition pour le 1069, boulevard de de Sainte-Adèle" in found
    upper = _block("4. Demande de démolition pour le 1069, boulevard", 522, 11, 1.0, "Gothic-Bold", x0=71, width=380)
    centred = _block("Résolution DM-2023-001", 549, 11, 1.0, "Gothic-Bold", x0=242, width=128)
    assert not continues_heading(upper, centred)
    wrapped = _block("de Sainte-Adèle", 536, 11, 1.0, "Gothic-Bold", x0=71, width=90)
    assert continues_heading(upper, wrapped)


@pytest.mark.shared
def test_label_line_under_a_numbered_heading_is_not_joined():
    """cupertino_usd_4-6-16.pdf p1: the two-line numbered heading ending "Section
    54957" and the label "District Representatives:" below it were joined into one title."""
    found = titles(parsed("cupertino_usd_4-6-16.pdf"), 1)
    assert "2.1 Public Employee Performance Evaluation – Pursuant to Government Code Section 54957" in found
    assert not any("54957 District" in title for title in found)
    upper = _block("2.1 Public Employee Performance Evaluation", 100, 11, 1.0, "Arial-Bold", x0=106, width=300)
    wrapped = _block("Pursuant to Code Section", 112.7, 11, 1.0, "Arial-Bold", x0=128, width=150)
    assert continues_heading(upper, wrapped)
    assert not continues_heading(upper, _block("District Representatives:", 112.7, 11, 1.0, "Arial-Bold", x0=128))
    assert not continues_heading(upper, _block("Unrepresented Employee: Wendy", 112.7, 11, 1.0, "Arial-Bold", x0=128))
    assert not continues_heading(upper, _block("2.2 Conference with Counsel", 112.7, 11, 1.0, "Arial-Bold", x0=128))
    two_lines = Block([*upper.lines, *_block("Section 54957", 112.7, 11, 1.0, "Arial-Bold", x0=128, width=80).lines])
    assert not continues_heading(two_lines, _block("Board President Lucey", 125.4, 11, 1.0, "Arial-Bold", x0=128))


@pytest.mark.shared
def test_numbered_sub_heading_over_a_short_body_line_is_a_heading():
    """normal_4pages p2: "(3) ..." (12.5 pt over 11.5 pt body) is followed by one short body
    line before a quoted box; larger type is evidence enough."""
    assert "(3) 「약관의 규제에 관한 법률」상 약관해석의 원칙" in titles(parsed("normal_4pages.pdf"), 2)
    heading = _block("(3) Rules for reading a policy", 100, 12.5, 0.0, "Dotum")
    short = _block("The law says that a policy", 116, 11.5)
    assert numbered_line_is_heading(heading, short, 11.5)
    assert not numbered_line_is_heading(_block("(3) Rules for reading a policy", 100, 11.5, 1.0), short, 11.5)


def _pages_of(name: str, first: int, last: int, tmp_path, folder=CORPUS):
    """Pages `first`..`last` (1-based) of a PDF in `folder` parsed on their own (a big file's
    few pages, extracted with pypdfium2 into a temporary PDF)."""
    return parse_pdf(pdf_pages(folder / name, first, last, into=tmp_path), {"ocr": {"mode": "never"}})


@pytest.mark.shared
def test_contents_heading_over_dot_leaders_stays_a_heading(tmp_path):
    """DA-619p.pdf p1: the dots of the contents entries made the entries look like a key
    figure, so "Table of Contents" was dropped as the figure's label."""
    document = _pages_of("DA-619p.pdf", 1, 2, tmp_path)
    assert "Table of Contents" in titles(document, 1)
    entries = _block("MAIN GAME ......................................................6", 94, 12)
    assert not display_is_figure(entries)


@pytest.mark.shared
def test_repeated_run_in_labels_are_field_labels_not_headings(tmp_path):
    """chelsea_pdta.pdf pp10-17: "Proposition :", "Question :", "Synthèse du résultat :"
    lead a paragraph on every page of a consultation report: field labels, not sections."""
    document = _pages_of("chelsea_pdta.pdf", 10, 17, tmp_path)
    found = titles(document)
    assert not {"Proposition :", "Question :", "Synthèse du résultat :"} & set(found)
    # p17's 18 pt chart title is drawn inside the chart (an image with vector bars): it is the
    # figure's text with the chart's labels, never a heading over the page's later sections
    figures = [e.text for e in document.elements if e.type is ElementType.figure and e.page == 8]
    assert any(text.startswith("Synthèse des résultats\nAUTRES") for text in figures)
    assert any(e.text.startswith("Proposition :") for e in document.elements if e.type is ElementType.paragraph)


@pytest.mark.shared
def test_column_headers_over_numbers_are_not_headings(tmp_path):
    """COSTCO_2021_10K.pdf p36: "52 Weeks Ended <date>" heads each column of the income
    statement; as level-1 titles it headed every later chunk."""
    document = _pages_of("COSTCO_2021_10K.pdf", 36, 36, tmp_path, BENCH / "financebench-dev")
    assert not [t for t in titles(document) if t.startswith("52 Weeks Ended")]
    # The statement is one table now (its row-group labels are rows, not headings), and the
    # column headers are its header rows.
    tables = [e for e in document.elements if e.type.value == "table"]
    assert any("OPERATING EXPENSES" in cell for table in tables for row in table.rows for cell in row)
    assert any("52 Weeks Ended" in " ".join(row) for table in tables for row in table.rows[: table.header_rows])
    header = _block("52 Weeks Ended August 29, 2021", 162, 8.1, 1.0, "Arial-Bold", x0=295, width=63)
    numbers = _block("$ 192,052", 184, 8.1, 0.0, "Arial", x0=276, width=98)
    assert context_rejects_heading(None, header, numbers) == "column header"
    prose = _block("Net sales grew by 18 % in the year.", 160, 8.1, 0.0, "Arial", x0=276, width=98)
    assert context_rejects_heading(None, header, prose) is None


@pytest.mark.shared
def test_quote_attributions_are_not_headings():
    document = parsed("reliance.pdf")
    assert not {"Shri Dhirubhai H. Ambani", "Shri Mukesh D. Ambani"} & set(titles(document, 2))
    paragraphs = [e.text for e in document.elements if e.page == 2 and e.type is ElementType.paragraph]
    assert "Shri Dhirubhai H. Ambani" in " ".join(paragraphs)


def test_attribution_rule_needs_a_passage_directly_above():
    quote = Block(
        [
            segments_to_line([Segment(line, 20, top, 320, top + 12, 12.0, 0.0, "Serif", chars=len(line))])
            for line, top in (("Big achievements follow if you", 300), ("dream big, said he.", 315))
        ]
    )
    assert context_rejects_heading(quote, _block("Shri Dhirubhai H. Ambani", 334, 8.5, bold=1.0), None) == "attribution"
    assert context_rejects_heading(quote, _block("— Mahatma Gandhi", 334, 12.0, bold=1.0), None) == "attribution"
    # the same name well below the passage, or in type as large as it, opens a section
    assert context_rejects_heading(quote, _block("Shri Dhirubhai H. Ambani", 380, 8.5, bold=1.0), None) is None
    assert context_rejects_heading(quote, _block("Our founder", 334, 12.0, bold=1.0), None) is None


@pytest.mark.shared
def test_cover_slogan_low_on_page_one_is_not_the_document_title():
    document = parsed("reliance.pdf")
    assert document.title is None or not document.title.startswith("We Care")
