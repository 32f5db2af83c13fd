"""Header rows of ruled tables of figures: a row of years over a blank stub is the header,
though the years are numbers and the row is set in the body's weight; a group label over the
years stacks the header over two rows. Without the header the chunker repeats nothing over a
split table's rows, and "2024" no longer names the column a figure sits in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsers import parse_pdf

PDFS = Path(__file__).resolve().parent / "pdfs"


@pytest.fixture(scope="module")
def case():
    truth = json.loads((PDFS / "ruled_year_header.truth.json").read_text(encoding="utf-8"))
    tables = [e for e in parse_pdf(PDFS / "ruled_year_header.pdf").elements if e.type == "table"]
    return tables, truth["tables"]


def test_ruled_tables_keep_their_cells(case):
    tables, truth = case
    assert [t.rows for t in tables] == [t["rows"] for t in truth]


def test_a_row_of_years_over_a_blank_stub_is_the_header_of_a_ruled_table(case):
    tables, truth = case
    assert tables[0].header_rows == truth[0]["header_rows"]


def test_a_group_label_over_the_years_stacks_a_ruled_tables_header_over_two_rows(case):
    tables, truth = case
    assert tables[1].header_rows == truth[1]["header_rows"]


def test_header_rows_set_in_bold_over_a_regular_body_are_all_the_header(case):
    """Column names, then their units, both in bold: the units are part of what every row
    needs ("100" is kg/ha)."""
    tables, truth = case
    assert tables[2].header_rows == truth[2]["header_rows"]
