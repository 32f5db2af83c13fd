"""Two columns of prose side by side are no table: a public notice set in two text columns
(a bulleted list on the left; dated paragraphs and a wrapped numbered list on the right) over a
small unruled table of fees. The lines of the two columns share their positions, so each line
of the page holds a bullet, a left line and a right line; they must still come out as list items
and paragraphs, with no date cut between two cells, and the fees below as a two-column table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsers import parse_pdf
from parsers.tables.prose import column_reads_as_prose
from parsers.tables.settings import TableSettings

PDFS = Path(__file__).resolve().parent / "pdfs"


@pytest.fixture(scope="module")
def notice():
    truth = json.loads((PDFS / "two_column_notice.truth.json").read_text(encoding="utf-8"))
    return parse_pdf(PDFS / "two_column_notice.pdf"), truth


def test_columns_of_a_notice_are_paragraphs_and_list_items_with_each_date_whole(notice):
    document, truth = notice
    paragraphs = [e.text for e in document.elements if e.type == "paragraph"]
    items = [e.text for e in document.elements if e.type == "list_item"]
    assert paragraphs == truth["paragraphs"]
    assert items == truth["list_items"]
    for date in truth["dates"]:
        assert any(date in text for text in paragraphs), date


def test_the_small_table_under_the_columns_is_a_two_column_table(notice):
    document, truth = notice
    tables = [e for e in document.elements if e.type == "table"]
    assert [t.rows for t in tables] == [truth["table"]["rows"]]
    assert tables[0].header_rows == truth["table"]["header_rows"]
    assert all(len(row) == 2 for row in tables[0].rows)


def test_a_column_of_wrapped_sentences_reads_as_prose_and_a_column_of_labels_does_not():
    settings = TableSettings()
    wrapped = [
        "The council invites applications",
        "for garden plots at the riverside",
        "site. The application window",
        "closes on 31 July",
        "2026 for all applicants; late",
        "forms will not be accepted.",
    ]
    labels = ["Net sales", "Membership fees", "Interest expense", "Total revenue", "Net income"]
    wrapped_label = ["Net income attributable to", "noncontrolling interests", "Total equity", "Cash at end of year"]
    assert column_reads_as_prose(wrapped, settings)
    assert not column_reads_as_prose(labels, settings)
    assert not column_reads_as_prose(wrapped_label, settings)


def test_an_exhibit_index_with_one_column_of_wrapped_descriptions_stays_a_table():
    from parsers.tables.prose import grid_is_prose_columns

    grid = [
        ["10.1", "Credit agreement among the company and the lenders"],
        ["", "named therein, dated as of May 1, 2019."],
        ["10.2", "Form of indemnification agreement between the company"],
        ["", "and each of its directors and officers."],
        ["10.3", "Employee stock purchase plan, as amended and restated"],
        ["", "effective as of January 1, 2020."],
    ]
    assert not grid_is_prose_columns(grid, TableSettings())


def test_one_prose_column_beside_a_bulleted_list_of_one_line_items_is_no_table():
    """The left column's items hold no punctuation and do not wrap, so only the right column
    reads as prose; its wrapped lines sit beside new bullets, which no table's wrapped cell
    does (a table leaves the row's other cells blank on the wrapped line)."""
    from parsers.tables.prose import grid_is_prose_columns

    grid = [
        ["•", "Residents aged 18 or over", "The council invites applications"],
        ["•", "Households with no plot", "for garden plots at the riverside"],
        ["", "", "site. The application window"],
        ["•", "Registered community groups", "closes on 31 July"],
        ["•", "Schools in the district", "2026 for all applicants; late"],
        ["•", "Council tenants", "forms will not be accepted."],
    ]
    assert grid_is_prose_columns(grid, TableSettings())
    assert not grid_is_prose_columns([row[:2] for row in grid], TableSettings())


def test_table_settings_from_the_config_reach_both_table_passes():
    """`[parse.tables]` overrides reach the unruled pass (the prose test switched off by asking
    for more lines than the notice has: its columns read as a table again) and the ruled pass
    (asking for more rulings than any page draws: the crop manual's ruled tables are gone)."""
    off = {"tables": {"prose_min_lines": 1000}}
    document = parse_pdf(PDFS / "two_column_notice.pdf", settings=off)
    assert len([e for e in document.elements if e.type == "table"]) == 2
    manual = PDFS.parent.parent / "fixtures" / "crop_manual.pdf"
    unruled_off = {"unruled_min_rows": 1000}
    assert any(e.type == "table" for e in parse_pdf(manual, settings={"tables": unruled_off}).elements)
    strict = {"tables": {"min_horizontal_rulings": 1000, "min_rectangles": 1000, **unruled_off}}
    assert not any(e.type == "table" for e in parse_pdf(manual, settings=strict).elements)
