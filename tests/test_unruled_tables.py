"""Issue 13 part 2: tables without rulings (statements with multi-row headers, signs in
their own columns, dot leaders, wrapped and indented row labels) and the title or unit
line above a table as its caption. Pure functions on hand-built lines, then a page of a
real 10-K (COSTCO_2021_10K.pdf p36, extracted to a temporary PDF) and ICDAR eu-012."""

from __future__ import annotations

import pytest
from conftest import BENCH

from parsers.structure.captions import table_title_of
from parsers.tables.unruled import (
    columns_without_sign_columns,
    lines_to_unruled_tables,
    stub_header_count,
    stubs_to_indent_levels,
)
from parsers.textlayer.blocks import Line
from parsers.textlayer.chars import Segment

FINANCE = BENCH / "financebench-dev"
ICDAR = BENCH / "icdar2013-eu"


def _line(top: float, *cells: tuple[float, float, str], bold: float = 0.0) -> Line:
    segments = [
        Segment(text=t, x0=x0, top=top, x1=x1, bottom=top + 9, size=8, bold=bold, font="F", chars=len(t))
        for x0, x1, t in cells
    ]
    return Line(
        segments=segments,
        x0=segments[0].x0,
        top=top,
        x1=segments[-1].x1,
        bottom=top + 9,
        size=8,
        bold=bold,
        text=" ".join(s.text for s in segments),
    )


def _statement() -> list[Line]:
    """A statement: a group header spanning two date columns, "$" in its own column on the
    first row, right-aligned amounts of different widths, a parenthesised negative, dot
    leaders after the labels, an indented total."""
    return [
        _line(100, (300, 420, "Fiscal Year Ended")),
        _line(111, (300, 350, "2021"), (380, 420, "2020")),
        _line(122, (20, 120, "Net sales . . . . . ."), (280, 285, "$"), (320, 350, "192,052"), (390, 420, "163,220")),
        _line(133, (20, 120, "Membership fees"), (330, 350, "3,877"), (400, 420, "3,541")),
        _line(144, (20, 120, "Interest expense ......"), (330, 352, "(171)"), (400, 422, "(160)")),
        _line(155, (36, 120, "Total revenue"), (320, 350, "195,929"), (390, 420, "166,761")),
    ]


def test_statement_columns_come_from_alignment_signs_and_leaders_join_their_numbers():
    lines = _statement()
    ((start, end, table),) = lines_to_unruled_tables(lines, em=8.0)
    assert (start, end) == (0, 6)
    assert [len(r) for r in table.rows] == [3] * 6
    assert table.rows[2] == ["Net sales", "$192,052", "163,220"]
    assert table.rows[4] == ["Interest expense", "(171)", "(160)"]
    assert table.header_rows == 2
    assert table.row_indents == [0, 0, 0, 0, 0, 1]


def test_sign_columns_fold_into_their_numbers():
    grid = [["Sales", "$", "10", "5", "%"], ["Costs", "", "(3", "2", "%"]]
    bounds = [(0, 50), (60, 64), (70, 90), (100, 120), (121, 125)]
    rows, merged = columns_without_sign_columns(grid, bounds)
    assert rows == [["Sales", "$10", "5%"], ["Costs", "(3", "2%"]]
    assert len(merged) == 3


def test_header_rows_are_the_leading_rows_with_an_empty_stub():
    rows = [["", "52 Weeks Ended", "52 Weeks Ended"], ["", "August 29,", "August 30,"], ["", "2021", "2020"]]
    rows += [["Net sales", "$192,052", "$163,220"], ["Membership fees", "3,877", "3,541"], ["Total", "1", "2"]]
    assert stub_header_count(rows) == 3
    assert stub_header_count([["", "1", "2"], ["", "3", "4"], ["", "5", "6"]]) == 0


def test_indent_levels_group_nearby_label_positions():
    assert stubs_to_indent_levels([19.0, 35.0, 35.5, 52.0, None, 19.2], em=8.0) == [0, 1, 1, 2, 0, 0]


@pytest.mark.parametrize(
    "text",
    ["Consolidated Statements of Cash Flows (In thousands) (Unaudited)", "(in millions)", "52 Weeks Ended"],
)
def test_statement_titles_and_unit_lines_are_table_titles(text):
    assert table_title_of(text)


def test_a_section_heading_is_no_table_title():
    assert not table_title_of("Results of operations")
    assert not table_title_of("Liquidity")


@pytest.fixture(scope="module")
def costco_page(tmp_path_factory):
    pdfium = pytest.importorskip("pypdfium2")
    source = FINANCE / "COSTCO_2021_10K.pdf"
    if not source.exists():
        pytest.skip("FinanceBench PDFs not available")
    out = tmp_path_factory.mktemp("costco") / "costco_p36.pdf"
    new = pdfium.PdfDocument.new()
    new.import_pages(pdfium.PdfDocument(str(source)), [35])
    new.save(str(out))
    from parsers import parse_pdf

    return parse_pdf(out)


def test_costco_income_statement_is_one_table_with_its_title_and_three_header_rows(costco_page):
    tables = [e for e in costco_page.elements if e.type == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert "CONSOLIDATED STATEMENTS OF INCOME" in table.caption
    assert "(amounts in millions" in table.caption
    assert table.header_rows == 3
    assert [r[1] for r in table.rows[:3]] == ["52 Weeks Ended", "August 29,", "2021"]
    rows = {r[0]: r[1:] for r in table.rows}
    assert rows["Net sales"] == ["$192,052", "$163,220", "$149,351"]
    assert rows["Interest expense"] == ["(171)", "(160)", "(150)"]
    assert "NET INCOME PER COMMON SHARE ATTRIBUTABLE TO COSTCO:" in rows  # wrapped label: one row
    labels = [r[0] for r in table.rows]
    indents = table.data["row_indents"]
    level = {label: indents[labels.index(label)] for label in ("Total revenue", "Net sales", "REVENUE")}
    assert level["Total revenue"] > level["Net sales"] > level["REVENUE"]


def test_costco_column_headers_are_never_headings(costco_page):
    titles = [e.text for e in costco_page.elements if e.type == "title"]
    assert not any("Weeks Ended" in t or "August 29" in t for t in titles)


def test_costco_statement_title_opens_a_section_and_stays_the_tables_caption(costco_page):
    # The statement's title closes the heading before it (parsers/structure/headings.py: a
    # table page's title line), so the income statement's chunks are not filed under the
    # previous page's section; the table keeps it as its caption too.
    titles = [e.text for e in costco_page.elements if e.type == "title"]
    assert any("CONSOLIDATED STATEMENTS OF INCOME" in t for t in titles)
    (table,) = [e for e in costco_page.elements if e.type == "table"]
    assert "CONSOLIDATED STATEMENTS OF INCOME" in table.caption


def test_chunker_repeats_the_multi_row_header_in_every_piece(costco_page):
    from ingest.chunker import chunk_document
    from ingest.chunking.settings import ChunkSettings
    from ingest.tokens import tiktoken_counter

    settings = ChunkSettings(child_max_tokens=120, overlap_tokens=0, parent_max_tokens=1200)
    chunks = [c for c in chunk_document(costco_page, settings, tiktoken_counter("cl100k_base")) if c.kind == "child"]
    pieces = [c for c in chunks if "| Membership fees" in c.text or "| Basic" in c.text]
    assert len(pieces) >= 2
    assert all("52 Weeks Ended / August 29, / 2021" in c.text for c in pieces)
    assert all("CONSOLIDATED STATEMENTS OF INCOME" in c.text for c in pieces)


def test_icdar_eu012_bar_chart_labels_are_no_table():
    path = ICDAR / "eu-012.pdf"
    if not path.exists():
        pytest.skip("ICDAR 2013 EU not available")
    from parsers import parse_pdf

    assert [t.page for t in parse_pdf(path).elements if t.type == "table" and t.page == 3 and not t.data["ruled"]] == []


def test_contents_entries_with_dot_leaders_are_no_table():
    """DA-619p p1 / chelsea p3: cutting dot leaders must not turn a contents page into a table."""
    lines = [
        _line(100 + 11 * k, (20, 250, f"Chapter {k} ........ {k + 5}"), (300, 530, f"Part {k} ........ {k + 20}"))
        for k in range(5)
    ]
    assert lines_to_unruled_tables(lines, em=8.0) == []
