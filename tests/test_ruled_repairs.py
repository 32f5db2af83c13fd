"""Under-ruled grids repaired from their text: booktabs body rows, bands of
stacked numbers, open sides, and drawings that pose as grids. Pure functions on hand-built
inputs first, then the ICDAR 2013 EU PDFs where each case was found."""

from __future__ import annotations

import pytest
from conftest import BENCH

from parsers.tables.cells import grid_is_drawing, grid_to_rows
from parsers.tables.rulings import edges_to_cell_grids
from parsers.textlayer.chars import Char

ICDAR = BENCH / "icdar2013-eu"


def _edge(x0, top, x1, bottom):
    horizontal = top == bottom
    return {
        "x0": x0,
        "x1": x1,
        "top": top,
        "bottom": bottom,
        "width": x1 - x0 if horizontal else 0.0,
        "height": 0.0 if horizontal else bottom - top,
        "orientation": "h" if horizontal else "v",
        "object_type": "curve",
    }


def _word(text, x, top, size=10.0):
    return [
        Char(c, x + 6 * i, top, x + 6 * (i + 1), top + size, size, False, "F", False, c == " ")
        for i, c in enumerate(text)
    ]


def test_booktabs_body_row_is_dealt_into_the_header_columns():
    # header ruled into 3 columns; body rows ruled only horizontally (plus the frame)
    edges = [_edge(100, y, 400, y) for y in (100, 120, 140, 160)]
    edges += [_edge(100, 100, 100, 160), _edge(400, 100, 400, 160)]
    edges += [_edge(x, 100, x, 120) for x in (200, 300)]
    [(_, grid)] = edges_to_cell_grids(edges)
    chars = _word("Country", 105, 105) + _word("Share", 205, 105) + _word("Total", 305, 105)
    chars += _word("Austria", 105, 125) + _word("86.2", 205, 125) + _word("3,375", 305, 125)
    chars += _word("Belgium", 105, 145) + _word("0", 205, 145) + _word("3,973", 305, 145)
    rows, _ = grid_to_rows(grid, chars)
    assert rows == [["Country", "Share", "Total"], ["Austria", "86.2", "3,375"], ["Belgium", "0", "3,973"]]


def test_spanning_title_crossing_a_column_rule_stays_spanned():
    edges = [_edge(100, y, 400, y) for y in (100, 120, 140)]
    edges += [_edge(100, 100, 100, 140), _edge(400, 100, 400, 140), _edge(250, 120, 250, 140)]
    [(_, grid)] = edges_to_cell_grids(edges)
    chars = _word("Fiscal Year Ended in 2023", 180, 105) + _word("a", 105, 125) + _word("b", 255, 125)
    rows, _ = grid_to_rows(grid, chars)
    assert rows[0] == ["Fiscal Year Ended in 2023", ""]


def test_band_of_stacked_numbers_is_cut_into_rows_at_shared_lines():
    # column rules, no rules between the 3 body rows
    edges = [_edge(100, y, 400, y) for y in (100, 120, 180)]
    edges += [_edge(x, 100, x, 180) for x in (100, 250, 400)]
    [(_, grid)] = edges_to_cell_grids(edges)
    chars = _word("Country", 105, 105) + _word("EURbn", 255, 105)
    for k, (name, value) in enumerate([("Bulgaria", "2.3"), ("Cyprus", "0.21"), ("Malta", "0.28")]):
        chars += _word(name, 105, 125 + 18 * k) + _word(value, 255, 125 + 18 * k)
    rows, _ = grid_to_rows(grid, chars)
    assert rows == [["Country", "EURbn"], ["Bulgaria", "2.3"], ["Cyprus", "0.21"], ["Malta", "0.28"]]


def test_wrapped_text_cells_are_not_cut_into_rows():
    edges = [_edge(100, y, 400, y) for y in (100, 140)] + [_edge(x, 100, x, 140) for x in (100, 250, 400)]
    [(_, grid)] = edges_to_cell_grids(
        edges + [_edge(100, 160, 400, 160), _edge(100, 140, 100, 160), _edge(400, 140, 400, 160)]
    )
    chars = _word("Chronic illness", 105, 105) + _word("and pain", 105, 120)
    chars += _word("Count", 255, 105) + _word("Percentage", 255, 120)
    rows, _ = grid_to_rows(grid, chars)
    assert rows[0] == ["Chronic illness and pain", "Count Percentage"]


def test_row_rules_past_the_inner_column_rules_close_the_open_sides():
    # rows ruled from 70 to 520, only the inner column rules (120, 250, 390) drawn
    edges = [_edge(70, y, 520, y) for y in (100, 120, 140, 160)]
    edges += [_edge(x, 100, x, 160) for x in (120, 250, 390)]
    [(bbox, grid)] = edges_to_cell_grids(edges)
    assert round(bbox[0]) == 70 and round(bbox[2]) == 520
    assert [len(row) for row in grid] == [4, 4, 4]


def test_grid_whose_borders_cut_numbers_is_a_chart():
    edges = [_edge(100, y, 400, y) for y in (100, 120, 140)] + [_edge(x, 100, x, 140) for x in (100, 250, 400)]
    [(_, grid)] = edges_to_cell_grids(edges)
    # value labels of bars, "20.4" and "45.0" run across the gridline at x = 250
    chars = _word("20.4", 238, 105) + _word("45.0", 238, 125) + _word("Men", 105, 105)
    assert grid_is_drawing(grid, chars)
    table = _word("Men", 105, 105) + _word("20.4", 255, 105) + _word("Women", 105, 125) + _word("45.0", 255, 125)
    assert not grid_is_drawing(grid, table)


def _tables(name):
    from parsers import parse_pdf

    path = ICDAR / f"{name}.pdf"
    if not path.exists():
        pytest.skip(f"{path} not available")
    return [e for e in parse_pdf(path).elements if e.type.value == "table"]


def test_icdar_eu016_booktabs_rows_have_their_five_cells():
    [table] = _tables("eu-016")
    assert ["Austria", "86.2", "13.8", "0", "3,375"] in table.rows
    assert ["United Kingdom", "24.0", "21.4", "54.6", "13,802"] in table.rows


def test_icdar_eu017_country_box_on_page_1_is_no_table():
    assert [t.page for t in _tables("eu-017")] == [2]


def test_icdar_eu008_body_rows_are_not_one_band():
    [table] = _tables("eu-008")
    assert ["Bulgaria", "2.3", "3.2", "5.5"] in table.rows
    assert ["Czech Republic", "8.8", "13.4", "22.2"] in table.rows


def test_icdar_eu012_grids_without_outer_rules_keep_all_columns_and_no_notes():
    tables = _tables("eu-012")
    first = next(t for t in tables if t.caption and t.caption.startswith("Table 1"))
    assert first.rows[0] == ["", "Finland", "EU-15", "EU-25"]
    assert ["1996", "3.7", "1.6", "1.7"] in first.rows
    assert not any("Source" in cell for row in first.rows for cell in row)
    every_word = {w for t in tables for row in t.rows for cell in row for w in cell.split()}
    assert {"ISCED", "Denmark", "Agriculture", "15-24"} <= every_word
