"""Columns of prose side by side are no table: the test `unruled._run_to_table` asks of a
candidate grid after its column alignment.

A page set in two text columns (a notice, a newsletter, a scheme leaflet: a bulleted list on
one side, paragraphs on the other) holds on each line a segment of each column, at the same x
from line to line: the lines align as the rows of a table whose cells are short when the
columns are narrow. What tells them apart is how text runs down a column. A table's cell is
a label or a value of its own row: it ends where the row ends, and the cell below starts
another row. A prose column's cell is one line of a wrapped sentence: it stops mid-phrase
and the line below goes on with it (a lower-case word, or the year of a date the line break
cut: "closes on 31 July" / "2026 for all applicants"), or it ends a sentence. And running
text is set in sentence case, most of its words in lower case, where column heads, names
and labels are in title case or capitals ("Maximum Dollar Value" / "of Shares that May
Yet", "Costco Wholesale Canada, Ltd."), however their lines wrap. A table may
wrap one column so (an exhibit index's descriptions beside their numbers, a wrapped row
label), but never two: the other columns of a table hold the numbers or short labels the
wrapped text belongs to. So a grid with `prose_columns_min` or more columns that read as
prose (`column_reads_as_prose`) is turned down, and its lines flow as text.

One prose column beside a list of short lines (a bulleted list of one-line items, no
punctuation) is told apart by where its lines wrap: a table's row that wraps a cell leaves
its other cells blank on the wrapped line (an exhibit number stands on the first line of its
description only), or wraps them too; a text column's wrapped line sits beside whatever the
next column holds there, a new bullet, a new item (`_wraps_beside_new_lines`).

Pure functions of the grid's cell strings (rows of strings, one per line of the run).
"""

from __future__ import annotations

import re
import statistics

from parsers.tables.settings import TableSettings

#: Punctuation that ends a sentence or a clause, and what may close it after ("over.)").
_SENTENCE_MARKS = ".!?;:"
_CLOSING = "'\"’”)]"
#: A line that stops inside a date: after a day and a month ("31 July", "1 Sept.") or a month
#: and a day ("July 31,"), where the year must follow.
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_DAY_MONTH_END = re.compile(rf"(?:\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?)$")
#: A line that starts with a year (the rest of a date cut by the line break above it).
_YEAR_START = re.compile(r"^(?:19|20)\d\d\b")


def grid_is_prose_columns(grid: list[list[str]], settings: TableSettings) -> bool:
    """Whether `prose_columns_min` or more columns of `grid` read as prose
    (`column_reads_as_prose`): text columns side by side, not a table."""
    if not grid:
        return False
    columns = [[row[k] for row in grid] for k in range(len(grid[0]))]
    prose = [k for k, column in enumerate(columns) if column_reads_as_prose(column, settings)]
    if len(prose) >= settings.prose_columns_min:
        return True
    return any(_wraps_beside_new_lines(columns, k, settings) for k in prose)


def _wraps_beside_new_lines(columns: list[list[str]], k: int, settings: TableSettings) -> bool:
    """Whether the prose column `k` wraps its lines beside new lines of the other columns: of
    the rows where its cell goes on from the cell above (`_runs_on`; at least
    `prose_min_lines` - 1 of them), at least `prose_beside_share` hold a cell in another column
    that does not go on from the one above it."""
    column = columns[k]
    wrapped = [r for r in range(1, len(column)) if column[r - 1].strip() and column[r].strip()]
    wrapped = [r for r in wrapped if _runs_on(column[r - 1], column[r])]
    if len(wrapped) < settings.prose_min_lines - 1:
        return False
    beside = sum(
        1
        for r in wrapped
        if any(
            other[r].strip() and not (other[r - 1].strip() and _runs_on(other[r - 1], other[r]))
            for j, other in enumerate(columns)
            if j != k
        )
    )
    return beside >= settings.prose_beside_share * len(wrapped)


def column_reads_as_prose(column: list[str], settings: TableSettings) -> bool:
    """Whether a column's cells, top to bottom (one per line; "" where the line has none),
    are the lines of wrapped sentences: at least `prose_min_lines` filled cells, of
    `prose_line_words` words or more at the median, in sentence case (`_in_sentence_case`),
    one of them at least ending a sentence (`_ends_sentence`: column heads stacked over lines
    in sentence case, "Total number of shares" / "purchased as part of", end none), and at
    least `prose_line_share` of them ending a sentence or going on in the cell right below
    (`_runs_on`)."""
    filled = [k for k, cell in enumerate(column) if cell.strip()]
    if len(filled) < settings.prose_min_lines:
        return False
    if statistics.median(len(column[k].split()) for k in filled) < settings.prose_line_words:
        return False
    if not _in_sentence_case([column[k] for k in filled], settings):
        return False
    if not any(_ends_sentence(column[k]) for k in filled):
        return False
    flowing = sum(
        1
        for k in filled
        if _ends_sentence(column[k])
        or (k + 1 < len(column) and column[k + 1].strip() and _runs_on(column[k], column[k + 1]))
    )
    return flowing >= settings.prose_line_share * len(filled)


def _ends_sentence(cell: str) -> bool:
    """Whether a line ends a sentence or a clause: its last word begins in lower case and ends
    in sentence punctuation ("over.", "applicants;"). A name's abbreviation ("Inc.", "Ltd.",
    "S.A.") ends no sentence."""
    text = cell.strip().rstrip(_CLOSING)
    words = text.split()
    return bool(words) and text[-1] in _SENTENCE_MARKS and words[-1][0].islower()


def _in_sentence_case(cells: list[str], settings: TableSettings) -> bool:
    """Whether at least `prose_lowercase_share` of the cased words of `cells` begin in lower
    case. Words of scripts without case (Devanagari) do not count; with none cased, False:
    no evidence of running text."""
    initials = [word[0] for cell in cells for word in cell.split() if word[0].isupper() or word[0].islower()]
    lower = sum(1 for c in initials if c.islower())
    return bool(initials) and lower >= settings.prose_lowercase_share * len(initials)


def _runs_on(upper: str, lower: str) -> bool:
    """Whether `lower` goes on with the phrase `upper` stopped in: it starts with a lower-case
    word, or with the year of a date `upper` ends in."""
    upper, lower = upper.strip(), lower.strip()
    if lower[0].islower():
        return True
    return bool(_YEAR_START.match(lower) and _DAY_MONTH_END.search(upper))
