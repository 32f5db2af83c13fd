"""Heading precision on SEC filings and earnings releases (parsers/structure/headings.py).

An earnings release sets its highlights in bold, lists contacts in bold-labelled blocks and
labels table columns in large type; each of these became a heading, and a heading stays in
the heading path of every chunk after it until one of its level or higher follows. Checked
on the FinanceBench filings themselves, and on hand-built blocks for the pure rules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import BENCH, shared_file
from test_headings import _segment

from ingest.contracts.elements import ElementType
from parsers.pdf import parse_pdf
from parsers.structure.headings import (
    BodyType,
    block_is_heading,
    blocks_to_headings,
    context_rejects_heading,
    heading_shape_ok,
    prose_body_type,
)
from parsers.textlayer.blocks import Block, Line
from parsers.textlayer.chars import Segment

FILINGS = BENCH / "financebench-dev"


def _parsed(name: str):
    return parse_pdf(shared_file(Path(FILINGS / name)), None)


@pytest.fixture(scope="module")
def jnj_q4():
    return _parsed("JOHNSON_JOHNSON_2022Q4_EARNINGS.pdf")


@pytest.fixture(scope="module")
def jnj_q2():
    return _parsed("JOHNSON_JOHNSON_2023Q2_EARNINGS.pdf")


@pytest.fixture(scope="module")
def general_mills():
    return _parsed("GENERALMILLS_2020_10K.pdf")


def _headings(document) -> list[tuple[int, int | None, str]]:
    return [(e.page, e.heading_level, e.text) for e in document.elements if e.type == ElementType.title]


def _heading_texts(document) -> list[str]:
    return [text for _, _, text in _headings(document)]


def _path_of_page(document, page: int) -> list[str]:
    """The heading path open at the start of `page`, built as the chunker does (a level ->
    heading map, deeper levels dropped at each heading)."""
    open_by_level: dict[int, str] = {}
    for e in document.elements:
        if e.page >= page:
            break
        if e.type == ElementType.title and e.heading_level is not None:
            open_by_level = {k: v for k, v in open_by_level.items() if k < e.heading_level}
            open_by_level[e.heading_level] = e.text
    return [open_by_level[k] for k in sorted(open_by_level)]


# Reported results in bold are not headings, and not the document title.


def test_bold_result_statements_are_not_headings_or_the_title(jnj_q4):
    texts = _heading_texts(jnj_q4)
    assert not [t for t in texts if "earnings per share (EPS)" in t]
    assert not [t for t in texts if t.startswith("Company guides 2023")]
    assert "OVERALL FINANCIAL RESULTS" in texts
    assert jnj_q4.title is None or "EPS" not in jnj_q4.title


def test_long_bulleted_highlight_is_not_a_heading(jnj_q2):
    assert not [t for t in _heading_texts(jnj_q2) if t.startswith("Company is increasing 2023")]
    assert "OVERALL FINANCIAL RESULTS" in _heading_texts(jnj_q2)


def test_result_sentence_shape():
    assert not heading_shape_ok(
        "2022 Full-Year earnings per share (EPS) of $6.73 decreasing 13.8% and adjusted EPS of $10.15"
    )
    assert heading_shape_ok("FULL-YEAR 2023 GUIDANCE:")
    assert heading_shape_ok("Item 7. Management's Discussion and Analysis")
    assert heading_shape_ok("2.1 Revenue grew 5%")  # a short heading with one figure


# Contact blocks: neither the names with addresses nor their labels are headings.


def test_contact_block_is_not_a_heading(jnj_q4):
    texts = _heading_texts(jnj_q4)
    assert not [t for t in texts if "@" in t]
    assert "Press Contacts:" not in texts and "Investor Contacts:" not in texts


def test_tables_after_the_contacts_are_not_under_them(jnj_q4):
    for page in (8, 15, 24):
        assert not [h for h in _path_of_page(jnj_q4, page) if "Contact" in h or "@" in h], page


def test_telephone_line_is_not_a_heading(general_mills):
    assert not [t for t in _heading_texts(general_mills) if "764-7600" in t]


def test_contact_shape():
    assert not heading_shape_ok("Jessica Moore RA-JJCUS-InvestorRel@ITS.JNJ.com")
    assert not heading_shape_ok("(763) 764-7600 (Registrant's telephone number, including area code)")
    assert heading_shape_ok("Investor Relations")


# Notes and column labels of tables.


def test_table_notes_are_not_headings(jnj_q4, jnj_q2, general_mills):
    for document in (jnj_q4, jnj_q2, general_mills):
        assert not [t for t in _heading_texts(document) if t.lower().startswith(("note:", "notes:"))]


def test_note_shape():
    assert not heading_shape_ok("Note: Percentages are based on actual, non-rounded figures and may not sum")
    assert not heading_shape_ok("Notes:")
    assert heading_shape_ok("Note 4. Leases")
    assert heading_shape_ok("NOTE TO INVESTORS CONCERNING FORWARD-LOOKING STATEMENTS:")


def test_column_labels_over_a_table_are_not_headings(jnj_q4, jnj_q2):
    for document in (jnj_q4, jnj_q2):
        assert "Consumer Health Pharmaceutical MedTech Total" not in _heading_texts(document)


def _line(runs: list[tuple[str, float]], size: float = 8.4, bold: float = 1.0, top: float = 100.0) -> Block:
    """One line of (text, x0) runs, each as wide as its text in `size` type."""
    segments = [_segment(t, x, top, size, bold) for t, x in runs]
    line = Line(
        segments=segments,
        x0=segments[0].x0,
        top=top,
        x1=segments[-1].x1,
        bottom=top + size,
        size=size,
        bold=bold,
        text=" ".join(t for t, _ in runs),
    )
    return Block([line])


def test_words_spread_as_columns_are_not_one_heading():
    labels = _line([("Consumer Health", 341), ("Pharmaceutical", 458), ("MedTech", 585), ("Total", 682)])
    heading = _line([("Segment", 341), ("Sales", 375), ("Results", 402)])
    assert not block_is_heading(labels, body_size=6.0)
    assert block_is_heading(heading, body_size=6.0)
    tagged = _line([("Armored Ogre", 50), ("Creatures", 480)])  # a heading with a tag flush right
    assert block_is_heading(tagged, body_size=6.0)
    edge = tagged.bbox[2]
    assert block_is_heading(tagged, body_size=6.0, text_right=edge + 2)  # the tag ends at the text's edge
    side_by_side = _line([("Cash Flows from", 175), ("Capital Expenditures", 336)])  # VERIZON 2022 p21
    assert not block_is_heading(side_by_side, body_size=6.0, text_right=554.0)


def test_label_over_a_contact_is_not_a_heading():
    label = _line([("Investor Contacts:", 220)], size=10.6, top=510)
    contact = _line([("Jessica Moore RA-JJCUS-InvestorRel@ITS.JNJ.com", 220)], size=10.6, bold=0.0, top=530)
    other = _line([("Our results were strong this quarter.", 220)], size=10.6, bold=0.0, top=530)
    assert context_rejects_heading(None, label, contact) == "contact label"
    assert context_rejects_heading(None, label, other) is None


# The body's type is measured over prose; a body set in a bold font gives bold no weight.


def _lines(texts: list[str], size: float, bold: float = 0.0, font: str = "F", top: float = 100.0) -> Block:
    """A block of one line per text, each in one run of `font` at `size`."""
    lines = []
    for i, text in enumerate(texts):
        y = top + i * 1.2 * size
        segment = Segment(
            text=text,
            x0=50,
            top=y,
            x1=50 + 0.5 * size * len(text),
            bottom=y + size,
            size=size,
            bold=bold,
            font=font,
            chars=len(text),
        )
        lines.append(
            Line(segments=[segment], x0=50, top=y, x1=segment.x1, bottom=y + size, size=size, bold=bold, text=text)
        )
    return Block(lines)


def test_body_size_is_measured_over_prose_not_table_text():
    table_rows = [(1, _lines(["Pharmaceutical 13,163 13,603 (3.2)%" * 3], size=6.0)) for _ in range(40)]
    prose = [(1, _lines(["Worldwide sales were up in the quarter.", "Growth came from oncology."], size=10.5))]
    assert prose_body_type(table_rows + prose, fallback_size=6.0) == BodyType(10.5)
    assert prose_body_type(table_rows, fallback_size=6.0).size == 6.0  # no prose: the size over everything


def test_bold_in_the_bold_body_font_is_not_a_heading():
    prose = [(1, _lines(["Richard C. Allendorf, age 59, is General Counsel.", "He joined in 1990."], 10.0, 1.0, "F1"))]
    body = prose_body_type(prose, fallback_size=10.0)
    assert body == BodyType(10.0, "F1")
    lead_in = _lines(["The section below provides information regarding our executive officers:"], 10.0, 1.0, "F1")
    heading = _lines(["INFORMATION ABOUT OUR EXECUTIVE OFFICERS"], 10.0, 1.0, "F2")
    assert not block_is_heading(lead_in, body.size, body.bold_font)
    assert block_is_heading(heading, body.size, body.bold_font)
    assert block_is_heading(lead_in, 10.0)  # with a regular body, bold is emphasis


def test_column_label_rows_and_date_lines_are_not_headings():
    for text in (
        "Fiscal Year 2020 2019 Change",
        "Revenue by Segment 2022 2021",
        "December 31, December 31, 2020 2019",
        "(a) Taxes (a) Taxes",
        "Earnings Income Earnings Income Earnings Income",
        "May 31, 2020 Pretax",
        "In Millions May 31, 2020 May 26, 2019 Other noncurrent liabilities:",  # GENERALMILLS p93
        "Minneapolis, Minnesota July 2, 2020",
        "(ii) relates to the provision of child support, alimony payments or marital property rights",
    ):
        assert not heading_shape_ok(text), text
    for text in (
        "Comparison of Years Ended December 31, 2019 and 2018",
        "Fiscal Years Ended May 31, 2020 and May 26, 2019",
        "Recently Issued Accounting Standards Not Adopted as of January 1, 2023",
        "FORM 10-K For the Year Ended December 31, 2018",
        "(1) Consolidated Financial Statements:",
        "Pet",
    ):
        assert heading_shape_ok(text), text


def test_bookmarked_heading_on_another_page_is_a_contents_line():
    contents_line = _lines(["Certifications"], 9.0, 1.0)
    item = _lines(["Item 1. Business"], 9.0, 1.0, top=300)
    real = _lines(["Certifications"], 9.0, 1.0)
    blocks = [(3, contents_line), (4, item), (120, real)]
    outline = [(0, "Item 1. Business", 4), (0, "Certifications", 120)]
    blocks_to_headings(blocks, body_size=9.0, outline=outline)
    assert contents_line.kind == "paragraph"
    assert item.kind == "title" and real.kind == "title"


# On the filings themselves.


def test_general_mills_bold_body_lines_are_not_headings(general_mills):
    texts = _heading_texts(general_mills)
    assert "INFORMATION ABOUT OUR EXECUTIVE OFFICERS" in texts and "WORKING CAPITAL" in texts
    assert not [t for t in texts if t.startswith("The section below provides information")]
    assert not [t for t in texts if t.endswith("are shown in the following table:")]
    assert not [t for t in texts if t.startswith(("Fiscal Year 2020 2019", "May 31, 2020 Pretax", "/s/"))]


def test_statements_open_their_own_section(general_mills):
    for page, statement in ((50, "Consolidated Balance Sheets"), (52, "Consolidated Statements of Cash Flows")):
        path = _path_of_page(general_mills, page + 1)  # open at the end of the statement's page
        assert any(h.startswith(statement) for h in path), (page, path)
        assert not [h for h in path if h.startswith("Evaluation of valuation")], (page, path)


def test_release_schedules_are_not_under_the_last_prose_heading(jnj_q4):
    for page in (12, 15, 24):
        path = _path_of_page(jnj_q4, page + 1)
        assert not [h for h in path if h.startswith("NOTE TO INVESTORS")], (page, path)
        assert path and path[-1].startswith("Reconciliation of Non-GAAP"), (page, path)
