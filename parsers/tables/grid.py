"""A table found on a page (rows of cell strings, its box) and how many of its leading rows are its header."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings

#: A table of one row has no header; a banner is over at least this many column names.
SEVERAL = 2
#: A banner spans a table of at least this many columns (over two columns, one filled header
#: cell is as likely a row label's heading as a banner).
BANNER_MIN_COLUMNS = 3
#: A first row of short text is a header only over at least this many rows in all (it and two
#: body rows); a banner likewise (it, the column names, a body row).
MIN_HEADED_ROWS = 3
#: A table has at least this many rows before its second row is a header row too (a group
#: label, then column names, then at least two body rows).
STACKED_HEADER_MIN_ROWS = 4


@dataclass(slots=True)
class TableFound:
    rows: list[list[str]]
    bbox: tuple[float, float, float, float]
    header_rows: int = 0
    column_xs: list[float] = field(default_factory=list)
    ruled: bool = True
    #: per row, the indent level of its label (0 = leftmost); unruled tables only, else empty
    row_indents: list[int] = field(default_factory=list)


_NUMERIC = re.compile(r"^[\s(\-–+]*[$€£₹¥]?[\s(\-–+]*[\d.,]+\s*%?\)?[*]?$")


def is_numeric(cell: str) -> bool:
    """An amount, a count or a percentage: "1,234", "(171)", "-3.5 %", "$17,626.6", and a
    negative with its sign outside the bracket, "$(2,309)" (as `unruled.columns_without_sign_columns`
    folds "$" into "(2,309)")."""
    return bool(cell) and bool(_NUMERIC.match(cell))


def rows_to_header_count(
    rows: list[list[str]], first_row_bold: bool = False, settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> int:
    """How many leading rows are the header (0, 1 or 2).

    Row 0 is a header when it is bold while the body is not, or when none of its cells
    is a number but the rows below carry numbers, or when it is all short text (cells of at
    most `max_header_cell_chars`) over at least two more rows. A second header row is taken
    when row 0 has blank cells (a spanning group label) and row 1 is text only over numeric
    rows, and when row 0 is a banner (one cell of text across a table of 3 or more columns,
    e.g. "AXE 1 – RESSOURCES") above a row of column names: the column names are what every row needs.

    OCR tables use their own rule (`ocr.tables.guess_header_rows`): their grids have no
    bold flags but numbers with units and misread digits. Applied to the corpus's text
    tables that rule changes 7 of 59 header counts (banners, bold-only headers), so the
    two stay apart.
    """
    if len(rows) < SEVERAL:
        return 0
    longest = settings.max_header_cell_chars
    first = rows[0]
    first_text = [c for c in first if c]
    banner = len(first) >= BANNER_MIN_COLUMNS and len(first_text) == 1 and not is_numeric(first_text[0])
    if banner and len(rows) >= MIN_HEADED_ROWS:
        names = [c for c in rows[1] if c]
        if len(names) >= SEVERAL and not any(is_numeric(c) for c in names) and all(len(c) <= longest for c in names):
            return 2
    if not first_text or any(is_numeric(c) for c in first_text):
        return 1 if first_row_bold and first_text else 0
    body_numeric = any(is_numeric(c) for row in rows[1:] for c in row)
    short = all(len(c) <= longest for c in first_text)
    if not (first_row_bold or body_numeric or (short and len(rows) >= MIN_HEADED_ROWS)):
        return 0
    names_below = rows[1] and not any(is_numeric(c) for c in rows[1] if c)
    if len(rows) >= STACKED_HEADER_MIN_ROWS and len(first_text) < len(first) and names_below:
        if all(c for c in rows[1][1:]) and any(is_numeric(c) for row in rows[2:] for c in row):
            return 2
    return 1
