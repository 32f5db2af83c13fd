"""Which leading rows of an unruled table are its header, and a header word broken over two
of them made whole. Pure functions over the grid of cell strings (`unruled.run_to_table`)."""

from __future__ import annotations

import re

from parsers.tables.grid import is_numeric
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.textlayer.text_joins import ends_in_broken_word, join_wrapped_lines


def header_rows_with_broken_words_joined(
    grid: list[list[str]], runs: list[list[int]]
) -> tuple[list[list[str]], list[int]]:
    """A column header broken by a line-end hyphen is one cell: in the leading rows that hold
    no number (a header stacked over lines: "Constant-" / "Currency" / "Growth (a)"), a cell
    ending in a broken word (`ends_in_broken_word`) is joined to the cell below it in its
    column (`join_wrapped_lines`: "Constant-" + "Currency" -> "Constant-Currency", as
    printed), which takes the joined text: financial headers are stacked to the bottom, so
    the rest of the column's header stays in the rows beside the other columns' lines. Both
    cells must be one run of words each (`runs[r][k]`, `_cells_to_runs`): two runs in one
    cell are columns the bounds merged, whose lines are no one header. Returns the grid
    without the rows left empty, and the indexes of the input rows kept; the input is left
    alone.

    Why: each header line is a row of the grid, so the word was cut across two header rows
    and a question about "constant-currency growth" found neither half."""
    zone = 0
    while zone < len(grid) - 1 and not any(is_numeric(cell) for cell in grid[zone]):
        zone += 1
    head = [list(row) for row in grid[:zone]]
    emptied = set()
    for r in range(zone - 1):
        for k, cell in enumerate(head[r]):
            below = head[r + 1][k]
            if cell and below and ends_in_broken_word(cell) and runs[r][k] == 1 and runs[r + 1][k] == 1:
                head[r + 1][k] = join_wrapped_lines([cell, below])
                head[r][k] = ""
                emptied.add(r)
    if not emptied:
        return grid, list(range(len(grid)))
    kept = [r for r in range(len(grid)) if r >= zone or r not in emptied or any(head[r])]
    return [head[r] if r < zone else grid[r] for r in kept], kept


#: A body under a stub-empty header has at least this many rows (one row under a header is
#: no evidence that the stub column holds labels).
MIN_BODY_ROWS = 2
#: A year as a column header ("2020"): a number, but no amount.
_YEAR = re.compile(r"(?:19|20)\d\d")


def stub_header_count(rows: list[list[str]], settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> int:
    """Leading rows with an empty first cell over a body whose first cells are filled are
    column headers (a statement's "52 Weeks Ended / August 29, / 2021" over row labels):
    the stub column is blank exactly where the columns are named. Up to
    `max_stub_header_rows` rows (equity plan tables stack a header over up to 8 lines:
    "Number of" / "securities to be" / "issued upon" / ...); 0 when under `stub_label_share`
    of the body's labels are filled (a table with no label column). The row right after them is a header
    row too when it names every column and holds no amount (`_names_columns`): its stub is
    the unit ("In Millions | 2020 | 2019", "In Millions | Payable | Interest Rate", as annual
    reports set their statements' notes), and read as a body row the years or names of the columns were
    no part of the header the chunker repeats."""
    count = 0
    while count < len(rows) and not rows[count][0] and any(rows[count][1:]):
        count += 1
    if count and count < len(rows) and _names_columns(rows[count], rows[count + 1 :]):
        count += 1
    body = rows[count:]
    if not 1 <= count <= settings.max_stub_header_rows or len(body) < MIN_BODY_ROWS:
        return 0
    if sum(1 for r in body if r[0]) < settings.stub_label_share * len(body):
        return 0
    return count


def _names_columns(row: list[str], body: list[list[str]]) -> bool:
    """Every value cell filled and none an amount (a year is a name: "2020"), over a body of
    amounts (in a table of text, a first row of text is as likely a body row)."""
    values = row[1:]
    if not (row[0] and all(values)) or any(_is_amount(c) for c in values):
        return False
    return any(_is_amount(c) for r in body for c in r[1:])


def _is_amount(cell: str) -> bool:
    return is_numeric(cell) and not _YEAR.fullmatch(cell)


def bold_header_count(rows: list[list[str]], bold: list[list[bool]], settings: TableSettings) -> int:
    """Leading rows set in bold over a body that is not are the header, however many (up to
    `max_stub_header_rows`): a manual sets its column names and, under them, their units
    ("Seed rate" / "(kg/ha)") both in bold, and the units are as much what every row needs.
    A row is bold when every filled cell of it is (`bold[r][k]`, `cells._is_bold`). A bold
    row holding its first cell alone is a section label opening the body ("Current assets"),
    and ends the header. 0 when no body row holds a regular cell: a table set all in bold
    gives no evidence."""
    count = 0
    for row, flags in zip(rows, bold):
        filled = [flag for cell, flag in zip(row, flags) if cell]
        section_label = bool(row[0]) and not any(row[1:])
        if not filled or not all(filled) or section_label or count >= settings.max_stub_header_rows:
            break
        count += 1
    body = [flag for row, flags in zip(rows[count:], bold[count:]) for cell, flag in zip(row, flags) if cell]
    return count if body and not all(body) else 0
