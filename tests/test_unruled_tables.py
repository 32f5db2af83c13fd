"""Tables without rulings (statements with multi-row headers, signs in
their own columns, dot leaders, wrapped and indented row labels) and the title or unit
line above a table as its caption. Pure functions on hand-built lines, then a page of a
real 10-K (COSTCO_2021_10K.pdf p36, extracted to a temporary PDF) and ICDAR eu-012."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import BENCH, CORPUS, ROOT, pdf_pages, shared_file

from parsers.structure.captions import table_title_of
from parsers.tables.headers import header_rows_with_broken_words_joined, stub_header_count
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS
from parsers.tables.statements import columns_proved_by_full_rows, min_fill_share
from parsers.tables.unruled import columns_without_sign_columns, lines_to_unruled_tables, stubs_to_indent_levels
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


def test_the_row_naming_the_columns_under_stub_empty_header_rows_is_a_header_row():
    """GENERALMILLS 2020 10-K: "In Millions | 2020 | 2019" under "Fiscal Year", the unit in
    the stub; and a header stacked over four lines (p77)."""
    years = [
        ["", "Fiscal Year", ""],
        ["In Millions", "2020", "2019"],
        ["Net sales", "$5.9", "$4.2"],
        ["Total", "1", "2"],
    ]
    assert stub_header_count(years) == 2
    stacked = [["", "Share-Settled", ""], ["", "Units", ""], ["", "(Thousands)", "Fair Value"], ["", "", "Grant"]]
    stacked += [["Granted", "1,913.4", "53.27"], ["Vested", "(1,039.7)", "55.81"]]
    assert stub_header_count(stacked) == 4
    text = [["", "Description", "Status"], ["Project A", "Build the road", "Done"], ["Project B", "Paint", "Open"]]
    assert stub_header_count(text) == 1  # a table of text: its first row is a body row


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
    pytest.importorskip("pypdfium2")
    source = shared_file(FINANCE / "COSTCO_2021_10K.pdf")
    from parsers import parse_pdf

    return parse_pdf(pdf_pages(source, 36, into=tmp_path_factory.mktemp("costco")))


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
    path = shared_file(ICDAR / "eu-012.pdf")
    from parsers import parse_pdf

    assert [t.page for t in parse_pdf(path).elements if t.type == "table" and t.page == 3 and not t.data["ruled"]] == []


def test_contents_entries_with_dot_leaders_are_no_table():
    """DA-619p p1 / chelsea p3: cutting dot leaders must not turn a contents page into a table."""
    lines = [
        _line(100 + 11 * k, (20, 250, f"Chapter {k} ........ {k + 5}"), (300, 530, f"Part {k} ........ {k + 20}"))
        for k in range(5)
    ]
    assert lines_to_unruled_tables(lines, em=8.0) == []


def test_two_column_prose_is_turned_down_before_any_column_search(monkeypatch):
    """Every line of a page of prose in two columns is two cells, so each run is
    tried from each of its lines in turn. Cells that long cannot be a table's: the runs are
    turned down from their cells alone, without the per-point column search (the two runs
    left are of short lines)."""
    from parsers import parse_pdf
    from parsers.tables import unruled

    searched = []
    search = unruled.cells_to_column_bounds
    monkeypatch.setattr(unruled, "cells_to_column_bounds", lambda *a: searched.append(1) or search(*a))
    document = parse_pdf(ROOT / "fixtures" / "two_column.pdf")
    assert not any(e.type == "table" for e in document.elements)
    assert len(searched) <= 2  # main searched 26 times: once for each line of the page's one long run


def _random_run(rng) -> list[Line]:
    """Lines of 1-5 cells on a jittered column grid; texts from the kinds a table or prose
    holds: numbers, currency signs, closers, short labels, long ASCII phrases, and long
    non-ASCII text that normalisation shortens (soft hyphens, combining accents)."""
    words = ["Net sales", "Total", "Cost of revenue", "Interest", "(171)", "2021", "$", "%", ")", "3,877"]
    long_texts = [
        "Sow soybean only after 75 to 100 mm of rain has fallen",
        "Keep the crop free of weeds for the first 45 days after sowing",
        "$ 1,234 is the amount of the line item named in the note above",
        "Re\u00adgis\u00adtra\u00adtion for pro\u00adcure\u00adment opens on 1 October 2024",
        "Cafe\u0301 au lait de\u0301jeuner pre\u0301vu a\u0300 la maison",
    ]
    lines, top, long_share = [], 100.0, rng.choice([0.05, 0.5, 0.95])  # a table, mixed, prose
    for _ in range(rng.randint(3, 9)):
        cells, x = [], 20.0
        for _ in range(rng.randint(1, 5)):
            text = rng.choice(long_texts if rng.random() < long_share else words)
            width = 4.0 * len(text) * rng.uniform(0.4, 1.0)
            cells.append((x, x + width, text))
            x += width + rng.choice([2.0, 6.0, 30.0, 80.0])
        lines.append(_line(top, *cells))
        top += rng.choice([9.5, 11.0, 11.0, 13.0])
    return lines


def test_the_early_long_cell_test_changes_no_result(monkeypatch):
    """`_cells_too_long` turns runs down before the column search; it must only ever turn
    down runs the full tests turn down too. Random runs, with and without it."""
    import random

    from parsers.tables import unruled

    rng = random.Random(22)
    runs = [_random_run(rng) for _ in range(1000)]
    early = [unruled._cells_too_long([unruled._line_to_cells(line) for line in run]) for run in runs]
    with_it = [unruled.run_to_table(run, 8.0) for run in runs]
    monkeypatch.setattr(unruled, "_cells_too_long", lambda line_cells: False)
    without = [unruled.run_to_table(run, 8.0) for run in runs]
    assert with_it == without
    assert sum(early) >= 25 and sum(t is not None for t in without) >= 25  # both sides exercised


def test_tables_at_the_edge_of_the_long_cell_test_are_still_tables():
    """Rows of a 33-character label and an amount: as many long cells as short ones, and
    the median cell (19 characters) is short. Rows of three 28-character cells that carry
    soft hyphens: over 30 characters as drawn, 28 once normalised, so not surely long."""
    label = "Net income attributable to Costco"
    run = [_line(100 + 11 * k, (20, 170, label), (300, 330, f"{k + 1},234")) for k in range(4)]
    assert lines_to_unruled_tables(run, em=8.0)
    hyphenated = "Mem\u00adber\u00adship fees and re\u00adnewals"
    run = [_line(100 + 11 * k, (20, 140, hyphenated), (180, 300, hyphenated), (340, 460, hyphenated)) for k in range(4)]
    assert lines_to_unruled_tables(run, em=8.0)


# --- words broken across header lines, signs run into the next column, spreads ---


def test_a_header_word_broken_over_two_lines_is_one_cell_where_the_stack_ends():
    grid = [
        ["", "", "", "Constant-"],
        ["", "In millions,", "Percent of Net", "Currency"],
        ["Fiscal 2020", "except per share", "Sales", "Growth (a)"],
        ["Net sales", "$17,626.6", "", ""],
    ]
    runs = [[1 if cell else 0 for cell in row] for row in grid]
    joined, kept = header_rows_with_broken_words_joined(grid, runs)
    assert joined[0] == ["", "In millions,", "Percent of Net", "Constant-Currency"]
    assert joined[1][3] == "Growth (a)" and kept == [1, 2, 3]  # the emptied first row is dropped
    assert grid[0][3] == "Constant-"  # the input is left alone


def test_a_broken_header_word_is_not_joined_across_columns_the_bounds_merged():
    grid = [["", "Share-Settled Weighted-"], ["", "Units Average Grant-"], ["Granted", "1,913.4 53.27"]]
    runs = [[0, 2], [0, 2], [1, 2]]
    assert header_rows_with_broken_words_joined(grid, runs) == (grid, [0, 1, 2])


def test_a_currency_sign_run_into_the_amount_before_it_goes_to_the_amount_after_it():
    """GENERALMILLS 2020 10-K p77: pdfium reads "4,272.3 $" as one run (the gap is under 0.8
    em); the sign's column and the next column's header ("Date Fair Value") then left no gap,
    so two columns of figures were one ("4,272.3 $ 53.87")."""
    run = [_line(100, (200, 240, "Units"), (262, 320, "Date Fair Value"))]
    run += [
        _line(112 + 12 * k, (20, 90, f"Row {k}"), (200, 259, f"{k},272.3 $"), (300, 320, "53.87")) for k in range(3)
    ]
    ((_, _, table),) = lines_to_unruled_tables(run, em=10.0)
    assert [row[1:] for row in table.rows[1:]] == [["0,272.3", "$53.87"], ["1,272.3", "$53.87"], ["2,272.3", "$53.87"]]


def _two_columns_around(items: list[Line], words: str) -> list[Line]:
    """`items` between three lines above and three below, each a run of `words` left of x 200
    and one right of x 400."""
    above = [_line(20 + 12 * k, (20, 200, words), (400, 580, words)) for k in range(3)]
    below = [_line(120 + 12 * k, (20, 200, words), (400, 580, words)) for k in range(3)]
    return above + items + below


def _items() -> list[Line]:
    return [
        _line(60 + 12 * k, (20, 30, "o"), (40, 150, f"Yes, at level {k}"), (400, 410, "o"), (420, 500, "No"))
        for k in range(4)
    ]


def test_a_table_is_not_read_across_a_pages_gutter():
    """Two lists of short items side by side, between two columns of prose: each side alone
    is no table (docling-gt's spread), so none is made of the two."""
    from parsers.tables.gutters import lines_to_tables_within_columns

    lines = _two_columns_around(_items(), "a sentence of prose runs on for some nine words")
    assert lines_to_unruled_tables(lines, em=8.0)  # read as one table, the gutter's items its columns
    ((start, end, tables, rest),) = lines_to_tables_within_columns(lines, em=8.0)
    assert tables == [] and end == 7  # the items, and the prose line before them, stay text
    kept = sorted(s.text for line in lines[start:end] for s in line.segments)
    assert sorted(s.text for line in rest for s in line.segments) == kept


def test_a_gap_with_only_labels_beside_it_is_no_gutter():
    """A page of tables side by side (la-precinct-bulletin: contests in columns, labels and
    votes): no prose beside the gap, so the rows stay whole."""
    from parsers.tables.gutters import lines_to_tables_within_columns

    lines = _two_columns_around(_items(), "VOTER NOMINATED")
    assert [tables for _, _, tables, _ in lines_to_tables_within_columns(lines, em=8.0)] == [
        [table] for _, _, table in lines_to_unruled_tables(lines, em=8.0)
    ]


def test_a_tables_own_column_gap_is_no_gutter():
    """Paragraphs above and below cross the table's gap: the table stays whole."""
    from parsers.tables.gutters import lines_to_tables_within_columns

    prose = [_line(20 + 12 * k, (20, 580, "a paragraph across the page")) for k in range(3)]
    rows = [_line(60 + 12 * k, (20, 150, f"Label {k}"), (400, 450, f"{k},234")) for k in range(4)]
    ((_, _, tables, rest),) = lines_to_tables_within_columns(prose + rows + prose, em=8.0)
    assert len(tables) == 1 and rest == []


def _page(tmp_path, source, page):
    pytest.importorskip("pypdfium2")
    shared_file(source)
    from parsers import parse_pdf

    return parse_pdf(pdf_pages(source, page, into=tmp_path), {"ocr": {"mode": "never"}})


def test_generalmills_p20_constant_currency_is_the_tables_column_header(tmp_path):
    """White boxes behind the "$" and "%" columns were taken for a ruled grid whose one cell
    held every figure; the header lines above became titles ("Constant-" alone)."""
    document = _page(tmp_path, FINANCE / "GENERALMILLS_2020_10K.pdf", 20)
    assert not any(e.type == "title" and "Constant" in e.text for e in document.elements)
    table = next(e for e in document.elements if e.type == "table")
    header = [cell for row in table.rows[: table.header_rows] for cell in row]
    assert "Constant-Currency" in header and "Growth (a)" in header
    rows = {row[0]: row[1:] for row in table.rows}
    assert rows["Net sales"][:2] == ["$17,626.6", "5 %"]
    assert rows["Adjusted operating profit (a)"] == ["3,058.0", "7 %", "17.3 %", "7 %"]


def test_generalmills_p77_grant_date_header_is_whole_and_over_its_own_column(tmp_path):
    document = _page(tmp_path, FINANCE / "GENERALMILLS_2020_10K.pdf", 77)
    table = next(e for e in document.elements if e.type == "table" and "Granted" in e.text)
    assert [row[1:] for row in table.rows if row[0] == "Granted"] == [["1,913.4", "53.27", "34.2", "53.64"]]
    assert sum(row.count("Weighted-Average Grant-Date Fair Value") for row in table.rows) == 2


def test_generalmills_p83_every_sign_run_into_an_amount_goes_to_the_amount_after_it(tmp_path):
    """ "1,039.6 $", "777.7 $", "- $": the signs' narrow columns hold other text further down,
    so folding them as columns left "$" cells apart; each now goes before the next cell."""
    document = _page(tmp_path, FINANCE / "GENERALMILLS_2020_10K.pdf", 83)
    table = next(e for e in document.elements if e.type == "table")
    (equity,) = [[c for c in row[1:] if c] for row in table.rows if row[0] == "Equity (a)"]
    assert equity == ["$1,039.6", "$777.7", "$-", "$1,817.3", "$1,226.2", "$664.6", "$-", "$1,890.8"]


@pytest.mark.shared
def test_a_two_page_spread_is_read_as_two_pages_not_one_table():
    """docling-gt table_mislabeled_as_picture.pdf: a spread whose two pages' answer lists
    lined up as one table; "witness-" / "es" and "practic-" / "ing" were cut into it."""
    source = BENCH / "docling-gt" / "table_mislabeled_as_picture.pdf"
    shared_file(source)
    from parsers import parse_pdf

    document = parse_pdf(source, {"ocr": {"mode": "never"}})
    middle = 612.0  # the spread's fold
    for table in (e for e in document.elements if e.type == "table"):
        assert table.bbox[2] < middle or table.bbox[0] > middle
    text = " ".join(e.text for e in document.elements)
    assert "child witnesses or suspected" in text and "member or practicing lawyer supervises" in text


def test_a_negative_with_its_currency_sign_outside_the_bracket_is_a_number():
    """VERIZON 2022 10-K p106: once "$" goes with the amount on its right, a row of "$(366)",
    "$(2,309)", "$(1,055)" is a row of numbers, not a header row."""
    from parsers.tables.grid import is_numeric, rows_to_header_count

    assert is_numeric("$(2,309)") and is_numeric("(171)") and not is_numeric("(a)")
    rows = [
        ["Net debt related costs (1)", "$(366)", "$(2,309)"],
        ["Other, net", "(1,706)", "(1,523)"],
        ["", "$(2,072)", "$(3,832)"],
    ]
    assert rows_to_header_count(rows) == 0


# --- long row labels: a statement's beside its figures, a bar chart's beside its bars ---

_LONG_LABELS = [
    "Unrealized gains / losses on available-for-sale securities",
    "Net increase (decrease) from available-for-sale securities",
    "Unrealized gains / losses on derivative instruments",
    "Other comprehensive income (loss), net of taxes",
    "Total comprehensive income, net of taxes and other items",
]


def test_a_statements_long_row_labels_beside_complete_rows_of_figures_are_a_table():
    """ADOBE 2022 10-K p55: row labels of a median 46.5 characters, over the 45 a column may
    hold; each row has a figure in every one of three columns, so it is a statement."""
    run = [
        _line(100 + 11 * k, (20, 290, label), (380, 410, f"({k + 1}9)"), (450, 480, "1,234"), (520, 550, "$56"))
        for k, label in enumerate(_LONG_LABELS)
    ]
    ((start, end, table),) = lines_to_unruled_tables(run, em=8.0)
    assert (start, end) == (0, 5)
    assert [row[0] for row in table.rows] == _LONG_LABELS


def test_a_bar_charts_long_labels_with_values_at_the_bars_ends_are_no_table(monkeypatch):
    """chelsea_pdta.pdf p19: labels as long, right-aligned, each with its bar's value printed
    where the bar ends (one "column" per row) and the axis ticks below: no row holds a figure
    in every value column. Without the figures test the same lines read as a table."""
    from parsers.tables import statements

    values = [(330, 345, "5%"), (495, 513, "25%"), (459, 476, "21%"), (420, 438, "16%")]
    run = [_line(100 + 12 * k, (20, 300, label), value) for k, (label, value) in enumerate(zip(_LONG_LABELS, values))]
    ticks = [(303 + 42 * k, 316 + 42 * k, f"{5 * k}%") for k in range(7)]
    run.append(_line(100 + 12 * len(values), *ticks))
    assert lines_to_unruled_tables(run, em=8.0) == []
    monkeypatch.setattr(statements, "_labels_beside_figures", lambda *a: True)
    assert lines_to_unruled_tables(run, em=8.0) != []


def test_adobe_p55_statement_with_long_labels_is_one_table_with_its_wrapped_label_whole(tmp_path):
    """The label printed "available-" at a line's end and "for-sale securities" on the next:
    read as paragraphs it was cut between two elements; as one table's row it is whole."""
    document = _page(tmp_path, FINANCE / "ADOBE_2022_10K.pdf", 55)
    (table,) = [e for e in document.elements if e.type == "table"]
    labels = [row[0] for row in table.rows]
    assert "Reclassification adjustment for recognized gains / losses on available-for-sale securities" in labels
    assert labels[-1] == "Total comprehensive income, net of taxes"
    assert not any(e.type == "paragraph" and "available" in e.text for e in document.elements)


@pytest.mark.shared
def test_chelsea_p19_bar_chart_labels_are_no_table(tmp_path):
    document = _page(tmp_path, CORPUS / "chelsea_pdta.pdf", 19)
    assert not any(e.type == "table" and "SÉCURITAIRE" in e.text for e in document.elements)


def test_generalmills_p60_a_sentence_between_two_tables_ends_the_first(tmp_path):
    """Four tables 1.3 em apart, each introduced by a sentence ("... is as follows:"), read as
    two tables with the sentences as rows, and the second table's figures under the first
    table's columns ("Current assets $ 870.0", "2019 2018" in one cell). A currency sign after
    an amount in that amount's column is the next amount's ("$21,019.0 $" | "21,162.6")."""
    document = _page(tmp_path, FINANCE / "GENERALMILLS_2020_10K.pdf", 60)
    tables = [e for e in document.elements if e.type == "table"]
    assert not any("as follows:" in cell for table in tables for row in table.rows for cell in row)
    rows = {row[0]: row[1:] for table in tables for row in table.rows}
    assert rows["Dividends received"] == ["76.5", "86.7", "113.2"]
    assert rows["Current assets"] == ["$870.0", "$895.6"]
    assert rows["Total"] == ["$21,019.0", "$21,162.6"]  # the second "$" lay in the first amount's column
    paragraphs = [e.text for e in document.elements if e.type == "paragraph"]
    assert "Joint venture earnings and cash flow activity is as follows:" in paragraphs


# --- statements of changes in equity: sparse rows, a title beside the company, two tables ---


def _equity_statement() -> list[Line]:
    """Label + 6 value columns: a header, then movements that fill 2 of the 6 (a column and
    the total), between two rows of amounts in every column. The rows fill 0.57 of the
    columns on average."""
    xs = [(160, 190), (210, 240), (260, 290), (310, 340), (360, 390), (410, 440)]
    names = ["Common", "Paid-in", "Retained", "Treasury", "Other", "Total"]

    def amounts(top: float, label: str, values: dict[int, str]) -> Line:
        return _line(top, (20, 130, label), *((xs[k][0], xs[k][1], v) for k, v in sorted(values.items())))

    lines = [_line(100, *((x0, x1, name) for (x0, x1), name in zip(xs, names)))]
    lines.append(amounts(111, "Balance at January 1", {k: f"{k + 1},000" for k in range(6)}))
    for n in range(8):
        lines.append(amounts(122 + 11 * n, f"Movement {n}", {n % 5: f"({n + 1}2)", 5: f"({n + 1}2)"}))
    lines.append(amounts(210, "Balance at December 31", {k: f"{k + 2},000" for k in range(6)}))
    return lines


def test_a_sparse_statement_is_a_table_when_rows_of_amounts_fill_every_column():
    ((start, end, table),) = lines_to_unruled_tables(_equity_statement(), em=8.0)
    assert (start, end) == (0, 11) and len(table.rows[0]) == 7
    assert table.rows[3] == ["Movement 1", "", "(22)", "", "", "", "(22)"]
    assert table.header_rows == 1


def test_a_sparse_table_needs_two_rows_of_amounts_in_every_column():
    full = ["Balance", "1", "2", "3", "4"]
    sparse = ["Net income", "", "5", "", "5"]
    assert min_fill_share([full, sparse, sparse, full]) == DEFAULT_TABLE_SETTINGS.sparse_fill_share
    assert min_fill_share([full, sparse, sparse, sparse]) == DEFAULT_TABLE_SETTINGS.min_fill_share


def test_full_rows_of_amounts_or_nil_dashes_prove_the_columns():
    grid = [["Balance", "$-", "$907", "—"], ["Net income", "", "1,316", ""], ["Balance", "$-", "$910", "(2)"]]
    assert columns_proved_by_full_rows(grid)
    assert not columns_proved_by_full_rows(grid[:2])
    assert not columns_proved_by_full_rows([["Common", "Paid-in", "Total", "x"]] * 2)  # names, not amounts


def test_a_title_set_larger_beside_the_company_name_is_no_row_of_the_table():
    """CORNING 2022 p62: the statement's title at the left and the company at the right, one
    line in a larger size, tight over the table: it was the table's first row and its only
    header row, over the column names."""
    title = dataclasses.replace(_line(88, (20, 150, "Statements of Income"), (390, 420, "Costco")), size=10.0)
    lines = [title, *_statement()]
    ((start, end, table),) = lines_to_unruled_tables(lines, em=8.0)
    assert (start, end) == (1, 7)
    assert table.rows[0] == ["", "Fiscal Year Ended", ""] and table.header_rows == 2


def test_a_table_set_tight_over_another_in_other_columns_is_a_table_of_its_own():
    """3M 2018 p59: the statement, then "Supplemental share information" in other columns,
    less than 1.5 em below it: together they align as neither. The table found from a later
    line leaves the lines before it to be read on their own; they were text. (The later
    table may still take the first table's last rows, which its columns tolerate.)"""
    first = [
        _line(100 + 11 * k, (20, 120, f"Item {k}"), (190, 270, f"{k},111"), (280, 345, f"{k},222")) for k in range(4)
    ]
    second = [
        _line(
            144 + 11 * k, (20, 120, f"Share {k}"), (180, 220, f"{k}1,000"), (250, 290, f"{k}2,000"), (320, 360, f"{k}3")
        )
        for k in range(4)
    ]
    found = lines_to_unruled_tables(first + second, em=8.0)
    assert [(start, end) for start, end, _ in found] == [(0, 3), (3, 8)]
    assert found[0][2].rows == [
        ["Item 0", "0,111", "0,222"],
        ["Item 1", "1,111", "1,222"],
        ["Item 2", "2,111", "2,222"],
    ]
    assert found[1][2].rows[1:] == [[f"Share {k}", f"{k}1,000", f"{k}2,000", f"{k}3"] for k in range(4)]


def test_corning_2022_p62_equity_statement_is_one_table_under_its_stacked_header(tmp_path):
    """The statement of changes in shareholders' equity: 33 lines whose movements fill about
    half of its 10 columns. It was text down to its last 9 rows, and "Non-" of the stacked
    "Non- / controlling / interest" header was read into another column's words."""
    document = _page(tmp_path, FINANCE / "CORNING_2022_10K.pdf", 62)
    (table,) = [e for e in document.elements if e.type == "table"]
    header = table.rows[: table.header_rows]
    assert [row[8] for row in header][-2:] == ["Non-controlling", "interest"]
    assert header[-1][:3] == ["(in millions)", "stock", "stock"]
    rows = {row[0]: row[1:] for row in table.rows[table.header_rows :]}
    assert rows["Balance as of December 31, 2019"][-1] == "$12,997"
    assert rows["Non-controlling interest in HSG (1)"] == ["", "", "", "", "", "", "", "102", "102"]
    assert not any("Consolidated Statements" in cell for row in table.rows for cell in row)


def test_header_lines_the_table_below_did_not_take_are_no_table_of_their_own():
    """3M 2018 p105: the stacked header of an offsetting table, set in columns its figures do
    not share: read again on their own, the header lines align, but a table of no figures
    is no table; they stay text."""
    head = [
        _line(100 + 11 * k, (20, 120, f"Heading {k}"), (190, 270, f"Gross amount {k}"), (280, 345, f"Net amount {k}"))
        for k in range(4)
    ]
    body = [
        _line(
            144 + 11 * k, (20, 120, f"Share {k}"), (180, 220, f"{k}1,000"), (250, 290, f"{k}2,000"), (320, 360, f"{k}3")
        )
        for k in range(4)
    ]
    assert [(start, end) for start, end, _ in lines_to_unruled_tables(head + body, em=8.0)] == [(3, 8)]


def test_generalmills_p93_a_sentence_naming_a_statement_introduces_its_table_and_heads_nothing(tmp_path):
    """Cut from the tables it introduced, "Certain Consolidated Statements of Cash Flows amounts
    are as follows:" named a statement, so it became a level-1 heading over every chunk after
    it, through the glossary three pages on; it is its table's caption."""
    document = _page(tmp_path, FINANCE / "GENERALMILLS_2020_10K.pdf", 93)
    assert not any(e.type == "title" and e.text.endswith("as follows:") for e in document.elements)
    captions = [e.caption for e in document.elements if e.type == "table"]
    assert "Certain Consolidated Statements of Cash Flows amounts are as follows:" in captions
