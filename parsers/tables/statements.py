"""Is a grid a financial statement's? The cell vocabulary of statements (currency signs, nil
dashes) and the tests `unruled._run_to_table` asks of a candidate grid's rows beyond its
column alignment: how full its rows must be, and how long its columns' cells may be.

Pure functions of the grid's cell texts (rows of strings, first column the labels).
"""

from __future__ import annotations

import re

from parsers.tables.grid import is_numeric

#: A statement proves its columns with at least this many complete rows (`_labels_beside_figures`).
MIN_COMPLETE_ROWS = 3

#: A column's cells are short: its median cell holds at most this many characters
#: (a column of sentences beside a column of numbers is prose with figures, not a table) ...
MAX_COLUMN_MEDIAN_CHARS = 45

#: ... except a statement's row labels ("Unrealized gains / losses on available-for-sale
#: securities"), whose median may reach this many when the rows beside them are figures
#: (`_labels_beside_figures`).
MAX_LABEL_MEDIAN_CHARS = 60

#: The multi-cell rows of a table fill at least this share of its columns, on average (a
#: chance alignment of words, a chart's scattered labels, fill few of the columns it makes).
MIN_FILL_SHARE = 0.6

#: The share asked instead of a table with `MIN_FULL_AMOUNT_ROWS` rows of amounts in every
#: column (`columns_proved_by_full_rows`): a statement of changes in equity prints each
#: movement only in the columns it moves (a dividend under retained earnings and the totals),
#: so its rows fill about half of its 7-10 columns (CORNING 2022 p62 0.55, 3M 2018 p59 0.56).
SPARSE_FILL_SHARE = 0.4

#: Rows that fill every column with amounts, for a sparse table (`SPARSE_FILL_SHARE`).
MIN_FULL_AMOUNT_ROWS = 2

#: A currency sign set apart from its amount in one cell ("$ 23,706" -> "$23,706").
SIGN_SPACE = re.compile(r"^([$€£¥₹])\s+(?=[\d(])")

#: Cells that are only a currency sign (printed in their own column left of the amounts).
CURRENCY = {"$", "€", "£", "¥", "₹", "US$", "C$", "A$"}

#: Cells that stand for nil in a column of figures.
NIL_DASHES = {"—", "–", "-"}


def columns_short(column_medians: list[float], multi: list[list[str]]) -> bool:
    """Whether every column's median cell length (characters) is within
    `MAX_COLUMN_MEDIAN_CHARS`, the label column's within `MAX_LABEL_MEDIAN_CHARS` when the
    multi-cell rows `multi` are a statement's (`_labels_beside_figures`). The second test is
    made only for the runs the first turns down."""
    if max(column_medians) <= MAX_COLUMN_MEDIAN_CHARS:
        return True
    return (
        max(column_medians[1:]) <= MAX_COLUMN_MEDIAN_CHARS
        and column_medians[0] <= MAX_LABEL_MEDIAN_CHARS
        and _labels_beside_figures(multi)
    )


def _labels_beside_figures(multi: list[list[str]]) -> bool:
    """Whether the multi-cell rows read as a financial statement: two or more value columns
    right of the labels, and at least `MIN_COMPLETE_ROWS` rows, half of the multi-cell rows or
    more, that are complete (`_is_complete_statement_row`).

    A statement prints a figure for every period on every line (a dash for nil), so most of
    its rows are complete; header rows and a period left blank are the exceptions. A bar
    chart's labels may be as long, but each bar's value is printed where the bar ends, so
    the values scatter over the "columns", a row fills one of them, and the axis ticks run
    together ("10% 15% 20%", no one number). One value column is not enough: an index of
    statements with their page numbers is complete too."""
    value_columns = len(multi[0]) - 1
    complete = sum(1 for row in multi if _is_complete_statement_row(row))
    return value_columns >= 2 and complete >= MIN_COMPLETE_ROWS and complete >= 0.5 * len(multi)


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


def min_fill_share(multi: list[list[str]]) -> float:
    """The least mean share of the columns (0-1) the multi-cell rows `multi` of a grid must
    fill to read as a table: `MIN_FILL_SHARE`, or `SPARSE_FILL_SHARE` when the columns are
    proved by rows of amounts across them all (`columns_proved_by_full_rows`)."""
    return SPARSE_FILL_SHARE if columns_proved_by_full_rows(multi) else MIN_FILL_SHARE


def columns_proved_by_full_rows(grid: list[list[str]]) -> bool:
    """Whether at least `MIN_FULL_AMOUNT_ROWS` rows of `grid` hold a cell in every column and
    an amount or a nil dash ("$-", "—") in every one after the first: the balance rows of a
    statement whose other rows are sparse. Every such row puts a number in each of the
    column gaps' sides, which no chance alignment of words does."""
    full = sum(1 for row in grid if all(row) and all(_is_amount_or_nil(cell) for cell in row[1:]))
    return full >= MIN_FULL_AMOUNT_ROWS


def _is_amount_or_nil(cell: str) -> bool:
    return is_numeric(cell) or SIGN_SPACE.sub(r"\1", cell).lstrip("$€£¥₹") in NIL_DASHES
