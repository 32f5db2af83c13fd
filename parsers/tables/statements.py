"""Is a grid a financial statement's? The cell vocabulary of statements (currency signs, nil
dashes) and the tests `unruled._run_to_table` asks of a candidate grid's rows beyond its
column alignment: how full its rows must be, and how long its columns' cells may be.

Pure functions of the grid's cell texts (rows of strings, first column the labels).
"""

from __future__ import annotations

import re

from parsers.tables.grid import is_numeric
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings

#: A statement has a label column and at least this many value columns (one value column
#: beside labels is an index of statements with their page numbers, complete too).
MIN_VALUE_COLUMNS = 2

#: A currency sign set apart from its amount in one cell ("$ 23,706" -> "$23,706").
SIGN_SPACE = re.compile(r"^([$€£¥₹])\s+(?=[\d(])")

#: Cells that are only a currency sign (printed in their own column left of the amounts).
CURRENCY = {"$", "€", "£", "¥", "₹", "US$", "C$", "A$"}

#: Cells that stand for nil in a column of figures.
NIL_DASHES = {"—", "–", "-"}


def columns_short(column_medians: list[float], multi: list[list[str]], settings: TableSettings) -> bool:
    """Whether every column's median cell length (characters) is within
    `max_column_median_chars`, the label column's within `max_label_median_chars` when the
    multi-cell rows `multi` are a statement's (`_labels_beside_figures`). The second test is
    made only for the runs the first turns down."""
    if max(column_medians) <= settings.max_column_median_chars:
        return True
    return (
        max(column_medians[1:]) <= settings.max_column_median_chars
        and column_medians[0] <= settings.max_label_median_chars
        and _labels_beside_figures(multi, settings)
    )


def _labels_beside_figures(multi: list[list[str]], settings: TableSettings) -> bool:
    """Whether the multi-cell rows read as a financial statement: `MIN_VALUE_COLUMNS` or more
    value columns right of the labels, and at least `min_complete_rows` rows,
    `complete_row_share` of the multi-cell rows or more, that are complete
    (`_is_complete_statement_row`).

    A statement prints a figure for every period on every line (a dash for nil), so most of
    its rows are complete; header rows and a period left blank are the exceptions. A bar
    chart's labels may be as long, but each bar's value is printed where the bar ends, so
    the values scatter over the "columns", a row fills one of them, and the axis ticks run
    together ("10% 15% 20%", no one number). One value column is not enough: an index of
    statements with their page numbers is complete too."""
    value_columns = len(multi[0]) - 1
    complete = sum(1 for row in multi if _is_complete_statement_row(row))
    least = max(settings.min_complete_rows, settings.complete_row_share * len(multi))
    return value_columns >= MIN_VALUE_COLUMNS and complete >= least


def _is_complete_statement_row(row: list[str]) -> bool:
    """A label, then a figure (`is_numeric`, or a dash for nil) in every value column: a
    header row ("", "2022", "2021") has no label. The label must not end in a figure or a
    currency sign: then the first value column was read into the labels ("Income tax
    benefit 204", "Net income $ 1,316 $"; a chart's "... RÉSEAU. 5%"), and the columns found
    are not the printed ones."""
    label = row[0].split()
    if not label or is_numeric(label[-1]) or label[-1] in CURRENCY:
        return False
    return all(is_numeric(cell) or cell in NIL_DASHES for cell in row[1:])


def min_fill_share(multi: list[list[str]], settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> float:
    """The least mean share of the columns (0-1) the multi-cell rows `multi` of a grid must
    fill to read as a table: `min_fill_share`, or `sparse_fill_share` when the columns are
    proved by rows of amounts across them all (`columns_proved_by_full_rows`)."""
    if columns_proved_by_full_rows(multi, settings):
        return settings.sparse_fill_share
    return settings.min_fill_share


def columns_proved_by_full_rows(grid: list[list[str]], settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> bool:
    """Whether at least `min_full_amount_rows` rows of `grid` hold a cell in every column and
    an amount or a nil dash ("$-", "—") in every one after the first: the balance rows of a
    statement whose other rows are sparse. Every such row puts a number in each of the
    column gaps' sides, which no chance alignment of words does."""
    full = sum(1 for row in grid if all(row) and all(_is_amount_or_nil(cell) for cell in row[1:]))
    return full >= settings.min_full_amount_rows


def _is_amount_or_nil(cell: str) -> bool:
    return is_numeric(cell) or SIGN_SPACE.sub(r"\1", cell).lstrip("$€£¥₹") in NIL_DASHES
