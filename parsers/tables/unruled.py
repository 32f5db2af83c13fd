"""Tables drawn without rulings: runs of lines whose words fall into aligned columns.

The pass, one line each (`run_to_table`):

    lines -> cells (dot leaders cut out) -> column boundaries (gaps that persist down the
    multi-cell rows) -> grid -> sign columns folded into their numbers -> wrapped row labels
    joined -> header rows, row indents

Column boundaries come from the alignment of many rows, not from one: a gap between
columns is an x range that the cells of (nearly) every row with two or more cells leave
empty. Left-, right-, decimal- and centre-aligned columns all leave such a gap beside them.
A spanning header ("52 Weeks Ended" over a column of amounts, "Fiscal Year Ended" over two
dates) may cross a gap: at most `TableSettings.span_tolerance` of the multi-cell rows may,
so one wide header does not merge two columns of numbers into one. Tolerances are
`TableSettings` fields, passed down from `lines_to_unruled_tables`.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from parsers.tables.grid import TableFound, is_numeric, rows_to_header_count
from parsers.tables.headers import header_rows_with_broken_words_joined, stub_header_count
from parsers.tables.prose import grid_is_prose_columns
from parsers.tables.row_labels import rows_with_wrapped_labels_joined, stubs_to_indent_levels
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.tables.statements import CURRENCY, SIGN_SPACE, columns_short, min_fill_share
from parsers.textlayer.blocks import PROSE_WORDS, Line, Placeholder
from parsers.textlayer.chars import Segment, normalize_text

#: A line of two or more cells is a candidate row of a table; one cell is a label or a wrap.
SEVERAL = 2
#: A dot leader: four or more dots, spaced or not ("Net sales ........ 1,234", ". . . . .").
_LEADER = re.compile(r"\s*(?:\.\s?){4,}\s*|\s*(?:…\s?)+\s*")
#: A contents entry ends in a page number: up to 4 digits, not part of an amount.
_PAGE_NUMBER_END = re.compile(r"(?<![\d,$€£])\d{1,4}$")
#: A currency sign ending a run after an amount or a dash for nil ("4,272.3 $", "- $"):
#: pdfium runs the sign of the next column's amount into this one when the gap is under
#: 0.8 em (statements that set "$" in its own narrow column right before the amount).
_TRAILING_SIGN = re.compile(r"^(.*[\d)\-–—])\s+([$€£¥₹])$")
#: Cells that close a number printed in the column before ("%", ")" of a negative, "%)").
_CLOSERS = {"%", ")", "%)", "pts", "bps", "x"}


@dataclass(slots=True)
class _Cell:
    """One run of words of a table line, with its x range in points (top-left origin).
    `surely_long`: `_is_surely_long(text)`, kept because a line is in many candidate runs.
    `split_sign`: a currency sign cut off the end of its run (`_TRAILING_SIGN`); it counts
    for no column's extent, so the gap it sits in is seen (`cells_to_column_bounds`)."""

    text: str
    x0: float
    x1: float
    split_sign: bool = False
    surely_long: bool = field(default=False)


def lines_to_unruled_tables(
    lines: list[Line], em: float, settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> list[tuple[int, int, TableFound]]:
    """Tables without rulings: runs of >= 3 lines whose segments fall into >= 2 aligned
    columns with short cells. Returns (first line index, end index, table), in line order.

    A run may hold lines of one cell (section labels such as "OPERATING EXPENSES", a
    wrapped row label) between lines of several cells; it never starts or ends on one, nor
    starts on a title (`_is_title_over`). A sentence set apart inside a run
    (`_introduction_in_run`) ends it when what comes before the sentence is a table of its
    own: the sentence introduces the next table. Otherwise the run is read whole, as if the
    sentence were one of its section labels."""
    found: list[tuple[int, int, TableFound]] = []
    cells = [_line_to_cells(line, settings) for line in lines]  # once per line: in many candidate runs
    _find_tables(lines, cells, 0, len(lines), em, found, 0, settings)
    return found


def _find_tables(
    lines: list[Line],
    cells: list[list[_Cell]],
    lo: int,
    hi: int,
    em: float,
    found: list[tuple[int, int, TableFound]],
    floor: int,
    settings: TableSettings,
) -> None:
    """The tables of `lines[lo:hi]` appended to `found`, in line order (`cells`: each line's;
    `floor`: where the table before these lines ends, above which no header is taken).

    A run that reads as no table is tried from each later line in turn. When one of those
    reads as a table, the run's lines before it are looked at again on their own: two tables
    set tight one under the other (a statement of changes in equity, then its "Supplemental
    share information" in other columns) align as neither together. A table
    read there must hold figures (`_holds_figures`): lines of column headers alone are the
    header of the table below that its columns did not take, not a table."""
    i = lo
    run_begin, run_end = lo, -1
    while i < hi:
        if len(cells[i]) < SEVERAL or _is_title_over(lines, i, settings):
            i += 1
            continue
        j = i + 1
        while (
            j < hi
            and lines[j].top - lines[j - 1].bottom < settings.run_line_gap_em * em
            and (len(lines[j].segments) >= SEVERAL or _multi_cell_line_follows(lines, j, em, settings))
        ):
            j += 1
        if j != run_end:
            run_begin, run_end = i, j
        top = found[-1][1] if found else floor
        cut = _introduction_in_run(lines, cells, i, j, em, settings)
        hit = _table_from(lines, cells, i, cut, em, top, settings) if cut is not None else None
        hit = hit or _table_from(lines, cells, i, j, em, top, settings)
        if hit is None:
            i += 1
            continue
        start, j, table = hit
        if start - run_begin >= settings.unruled_min_rows:
            before: list[tuple[int, int, TableFound]] = []
            _find_tables(lines, cells, run_begin, start, em, before, top, settings)
            found.extend(item for item in before if _holds_figures(item[2].rows))
        found.append((start, j, table))
        i = run_begin = j  # what is left of the run is looked at again from here on


def _table_from(
    lines: list[Line], cells: list[list[_Cell]], i: int, end: int, em: float, floor: int, settings: TableSettings
) -> tuple[int, int, TableFound] | None:
    """The table of lines[i:end] without its last one-cell lines, as (start, end, table), with
    the spanning headers above it (down to `floor`) when it is a table with them; None when
    those lines are no table."""
    while end > i and len(cells[end - 1]) < SEVERAL:
        end -= 1
    start = _start_with_spanning_headers(lines, i, end, floor, em, settings)
    table = _table_of(lines, cells, start, end, em, settings)
    if table is None and start < i:
        start, table = i, _table_of(lines, cells, i, end, em, settings)
    return (start, end, table) if table is not None else None


def _holds_figures(rows: list[list[str]]) -> bool:
    """Whether a cell is digits and punctuation only: an amount, a date ("11/24/2019"), an
    exhibit number ("10.3.3*"); a header's "December 31, 2018" holds letters too."""
    return any(
        cell and any(c.isdigit() for c in cell) and not any(c.isalpha() for c in cell) for row in rows for cell in row
    )


def _table_of(
    lines: list[Line], cells: list[list[_Cell]], start: int, end: int, em: float, settings: TableSettings
) -> TableFound | None:
    if end - start < settings.unruled_min_rows:
        return None
    return _run_to_table(lines[start:end], cells[start:end], em, settings)


def _is_title_over(lines: list[Line], i: int, settings: TableSettings) -> bool:
    """Whether line `i` is set over `title_size_ratio` times the size of the next line: a
    statement's title, which may hold two cells ("Consolidated Statements of ..." at the
    left, the company's name at the right), so it would be the table's first row, and its
    only header row, over the column names below it."""
    return i + 1 < len(lines) and lines[i].size > settings.title_size_ratio * lines[i + 1].size


def _introduction_in_run(
    lines: list[Line], cells: list[list[_Cell]], i: int, j: int, em: float, settings: TableSettings
) -> int | None:
    """The index of the first line of lines[i + 1:j] that is a sentence of its own between
    tables, with `unruled_min_rows` lines of several cells after it in the run; None when
    there is none. Such a sentence is one segment of `PROSE_WORDS` words or more set 1 em or
    more below the line before it (an annual report's "... activity is as follows:" between
    two tables set about 1.3 em apart); a table's one-cell lines are section labels or
    wrapped row labels, short or set tight."""
    for k in range(i + 1, j):
        line = lines[k]
        if len(line.segments) != 1 or line.top - lines[k - 1].bottom < em or len(line.text.split()) < PROSE_WORDS:
            continue
        if sum(1 for row in cells[k + 1 : j] if len(row) >= SEVERAL) >= settings.unruled_min_rows:
            return k
    return None


def _start_with_spanning_headers(
    lines: list[Line], i: int, j: int, floor: int, em: float, settings: TableSettings
) -> int:
    """The run's first line moved up over up to two one-cell lines set tight above it
    (gap under 1 em) that sit over the value columns, right of where the second cells of
    the run's lines start (within `spanning_header_slack_pt`): a group header ("Fiscal Year
    Ended") spanning the columns below."""
    slack = settings.spanning_header_slack_pt
    value_x = min((line.segments[1].x0 for line in lines[i:j] if len(line.segments) >= SEVERAL), default=None)
    for _ in range(2):
        if value_x is None or i - 1 < floor:
            break
        above = lines[i - 1]
        if len(above.segments) != 1 or lines[i].top - above.bottom >= em or above.x0 < value_x - slack:
            break
        i -= 1
    return i


def _multi_cell_line_follows(lines: list[Line], j: int, em: float, settings: TableSettings) -> bool:
    """Whether one of the next two lines after the one-cell line `j` has several cells, the
    lines between set tight (a section label, or a label wrapped over two lines)."""
    for k in (j + 1, j + 2):
        if k >= len(lines) or lines[k].top - lines[k - 1].bottom >= settings.run_line_gap_em * em:
            return False
        if len(lines[k].segments) >= SEVERAL:
            return True
    return False


def run_to_table(run: list[Line], em: float, settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> TableFound | None:
    """A table from a run of lines, or None when the run does not read as one (prose,
    too few aligned columns, long cells, or mostly one-cell lines: the axis labels of a
    chart line up in columns too, but few of their lines hold two cells)."""
    return _run_to_table(run, [_line_to_cells(line, settings) for line in run], em, settings)


def _run_to_table(
    run: list[Line], line_cells: list[list[_Cell]], em: float, settings: TableSettings
) -> TableFound | None:
    """`run_to_table` given each line's cells (`_line_to_cells`).

    Two tests come before the column bounds, the costly step, because they need only the
    cells: too few lines of two or more cells, and cells too long for a table
    (`_cells_too_long`). On a page of prose in two columns every line is two cells, and each
    run is tried from every one of its lines in turn (`lines_to_unruled_tables`); these
    tests turn those runs down at a cost linear in their cells. Each is implied by a test
    below it, so they change no result. Text set in columns side by side is turned down once
    its grid is known (`prose.grid_is_prose_columns`)."""
    several = sum(1 for cells in line_cells if len(cells) >= SEVERAL)
    least = max(settings.unruled_min_rows, settings.multi_cell_share * len(run))
    if several < least or _cells_too_long(line_cells):
        return None
    if is_contents_run(run, settings):
        return None
    bounds = cells_to_column_bounds(line_cells, em, settings)
    if bounds is None:
        return None
    grid = [_cells_to_row(cells, bounds) for cells in line_cells]
    grid, bounds = columns_without_sign_columns(grid, bounds)
    multi = [row for row in grid if sum(1 for c in row if c) >= SEVERAL]
    least = max(settings.unruled_min_rows, settings.multi_cell_share * len(grid))
    if len(bounds) < SEVERAL or len(multi) < least:
        return None
    filled = statistics.mean(sum(1 for c in row if c) / len(bounds) for row in multi)
    lengths = [len(c) for row in grid for c in row if c]
    column_medians = [statistics.median([len(r[k]) for r in grid if r[k]] or [0]) for k in range(len(bounds))]
    if (
        filled < min_fill_share(multi, settings)
        or statistics.median(lengths) > settings.max_median_cell_chars
        or not columns_short(column_medians, multi, settings)
    ):
        return None
    if len(bounds) == SEVERAL and not any(is_numeric(r[1]) for r in grid):
        return None
    if grid_is_prose_columns(grid, settings):
        return None
    stubs = [min(c.x0 for c in cells) if row[0] and cells else None for cells, row in zip(line_cells, grid)]
    grid, kept = header_rows_with_broken_words_joined(grid, [_cells_to_runs(cells, bounds) for cells in line_cells])
    stubs = [stubs[r] for r in kept]
    rows, stubs = rows_with_wrapped_labels_joined(grid, stubs, [run[r].top for r in kept], settings)
    bold_header = run[0].bold >= settings.header_bold_share > run[-1].bold
    header = max(rows_to_header_count(rows, bold_header, settings), stub_header_count(rows, settings))
    bbox = (min(l.x0 for l in run), min(l.top for l in run), max(l.x1 for l in run), max(l.bottom for l in run))
    return TableFound(
        rows=rows,
        bbox=bbox,
        header_rows=header,
        column_xs=[b[0] for b in bounds],
        ruled=False,
        row_indents=stubs_to_indent_levels(stubs, em, settings),
    )


def _cells_too_long(line_cells: list[list[_Cell]]) -> bool:
    """Whether the table's cells, however the columns fall, must have a median length over
    `max_median_cell_chars`; decided from the lines' cells alone (`_Cell.surely_long`).

    A cell is surely long when its text is ASCII and, stripped, longer than the limit:
    whatever column it falls in, the table's cell there holds its text whole (cells of one
    column are joined with spaces, sign columns are glued onto their numbers, and NFKC and
    the other normalisations leave ASCII text as it is). A line with a long cell gives at
    least one long table cell, and at most one short table cell per other cell of it. When
    the long ones outnumber the short ones, more than half of the table's cells are long,
    so the median is too (`_run_to_table` then turns the run down: it changes no result).
    """
    long = short = 0
    for cells in line_cells:
        surely_long = sum(cell.surely_long for cell in cells)
        long += surely_long > 0
        short += len(cells) - surely_long
    return long > short


def _is_surely_long(text: str, limit: int) -> bool:
    """ASCII text longer than `limit` characters as a table cell (stripped, a currency sign's
    space dropped as `_cells_to_row` drops it)."""
    text = text.strip()
    return len(text) > limit and text.isascii() and len(SIGN_SPACE.sub(r"\1", text)) > limit


def is_contents_run(run: list[Line], settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> bool:
    """Contents entries ("MAIN GAME ........ 6"): most lines hold a dot leader and end in a
    page number (an integer of up to 4 digits). They are navigation, which
    `structure/toc.py` handles; a price list ("Tea .... 2.50", "$3") is still a table."""
    texts = [" ".join(s.text for s in line.segments).strip() for line in run]
    entries = sum(1 for text in texts if _LEADER.search(text) and _PAGE_NUMBER_END.search(text))
    return entries >= settings.contents_entry_share * len(run)


def _line_to_cells(line: Line, settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> list[_Cell]:
    """A line's segments as cells, dot leaders cut out: "Net sales ....... 1,234" in one
    segment is two cells, each given the share of the segment's width its characters take.
    A currency sign cut off the end of a run (`_TRAILING_SIGN`) is put before the next cell of
    the line, which keeps its own x range ("4,272.3 $" + "53.87" -> "4,272.3", "$53.87"): the
    sign's column may hold other text further down, so folding it as a column
    (`columns_without_sign_columns`) would leave it apart. Each cell's `surely_long` is set
    against `max_median_cell_chars`."""
    cells: list[_Cell] = []
    for segment in line.segments:
        cells.extend(_segment_to_cells(segment))
    if any(cell.split_sign for cell in cells):
        cells = _signs_joined_to_next(cells)
    for cell in cells:
        cell.surely_long = _is_surely_long(cell.text, settings.max_median_cell_chars)
    return cells


def _signs_joined_to_next(cells: list[_Cell]) -> list[_Cell]:
    """A split-off currency sign put before the next cell's text (`_line_to_cells`)."""
    joined: list[_Cell] = []
    for cell in cells:
        if joined and joined[-1].split_sign:
            joined[-1] = _Cell(f"{joined[-1].text}{cell.text}", cell.x0, cell.x1, split_sign=cell.split_sign)
        else:
            joined.append(cell)
    return joined


def _segment_to_cells(segment: Segment) -> list[_Cell]:
    """A segment's cells: dot leaders cut out, and a currency sign ending it after an amount
    set apart as a cell of its own (`_TRAILING_SIGN`), so that the sign goes with the amount on
    its right (`columns_without_sign_columns`) and its column gap is seen. Cell x ranges are
    the share of the segment's width their characters take."""
    text = segment.text
    trailing = _TRAILING_SIGN.match(text.strip())
    if trailing:
        per_char = segment.width / max(len(text), 1)
        split = segment.x1 - per_char * len(trailing.group(2))
        return [
            _Cell(trailing.group(1), segment.x0, segment.x0 + per_char * len(trailing.group(1))),
            _Cell(trailing.group(2), split, segment.x1, split_sign=True),
        ]
    if not _LEADER.search(text):
        return [_Cell(text, segment.x0, segment.x1)] if text.strip() else []
    per_char = segment.width / max(len(text), 1)
    cells, start = [], 0
    for match in list(_LEADER.finditer(text)) + [None]:
        end = match.start() if match else len(text)
        part = text[start:end].strip()
        if part:
            cells.append(_Cell(part, segment.x0 + start * per_char, segment.x0 + end * per_char))
        start = match.end() if match else end
    return cells


def cells_to_column_bounds(
    line_cells: list[list[_Cell]], em: float, settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> list[tuple[float, float]] | None:
    """Column x ranges from the gaps that persist down the rows of two or more cells.

    Coverage is counted per point of x: how many multi-cell rows have a cell there. A gap
    is a stretch at least `min_gap_em` wide covered by at most `span_tolerance` of those
    rows, with cells on both sides. Returns None when fewer than two columns remain."""
    multi = [cells for cells in line_cells if len(cells) >= SEVERAL]
    if len(multi) < SEVERAL:
        return None
    left = int(min(c.x0 for cells in multi for c in cells))
    right = int(max(c.x1 for cells in multi for c in cells)) + 1
    coverage = [0] * (right - left + 1)
    for cells in multi:
        covered = set()
        for cell in cells:
            if cell.split_sign:
                continue
            covered.update(range(int(cell.x0) - left, int(cell.x1) - left + 1))
        for x in covered:
            coverage[x] += 1
    crossings = max(1, int(settings.span_tolerance * len(multi)))
    limit = crossings if len(multi) >= settings.span_tolerance_min_rows else 0
    bounds: list[list[float]] = []
    gap = 0
    for x, count in enumerate(coverage):
        if count > limit:
            if bounds and gap < settings.min_gap_em * em:
                bounds[-1][1] = left + x
            elif not bounds or gap:
                bounds.append([left + x, left + x])
            bounds[-1][1] = left + x
            gap = 0
        elif bounds:
            gap += 1
    if len(bounds) < SEVERAL:
        return None
    bounds += _narrow_columns_in_gaps(multi, bounds)
    return sorted((b[0], b[1] + 1) for b in bounds)


def _narrow_columns_in_gaps(multi: list[list[_Cell]], bounds: list[list[float]]) -> list[list[float]]:
    """Signs lying wholly inside a gap (a "$" printed on the first and total rows only)
    are a column of their own, not a crossing: returns their x ranges, one per gap. Only
    signs: a short header word in a gap is a header centred over a column."""
    extra = []
    for (_, gap_start), (gap_end, _) in zip(bounds, bounds[1:]):
        inside = [
            c
            for cells in multi
            for c in cells
            if c.x0 >= gap_start and c.x1 <= gap_end and (c.text in CURRENCY or c.text in _CLOSERS)
        ]
        if inside:
            extra.append([min(c.x0 for c in inside), max(c.x1 for c in inside)])
    return extra


def _cells_to_row(cells: list[_Cell], bounds: list[tuple[float, float]]) -> list[str]:
    """Each cell goes to the column its x range overlaps most (a spanning header to the
    first of the columns it covers equally; a cell in a gap to the nearest column)."""
    row = [""] * len(bounds)
    for cell, best in zip(cells, _cells_to_columns(cells, bounds)):
        row[best] = f"{row[best]} {cell.text}".strip()
    return [SIGN_SPACE.sub(r"\1", normalize_text(c)) for c in row]


def _cells_to_columns(cells: list[_Cell], bounds: list[tuple[float, float]]) -> list[int]:
    """The column of each of a line's cells (`_column_of`), except that a currency sign
    placed after other text of its column goes to the column of the cell after it: a sign is
    printed before its amount, so it is that amount's ("$" "13,923.2" "$" "13,995.8" with the
    second "$" inside the first amount's column of a statement set tight, read "$13,923.2 $")."""
    columns = [_column_of(cell, bounds) for cell in cells]
    for k in range(len(cells) - 1):
        if cells[k].text in CURRENCY and columns[k] in columns[:k]:
            columns[k] = columns[k + 1]
    return columns


def _column_of(cell: _Cell, bounds: list[tuple[float, float]]) -> int:
    overlaps = [min(cell.x1, x1) - max(cell.x0, x0) for x0, x1 in bounds]
    best = max(range(len(bounds)), key=lambda k: (overlaps[k], -k))
    if overlaps[best] <= 0:
        middle = (cell.x0 + cell.x1) / 2
        best = min(range(len(bounds)), key=lambda k: min(abs(middle - bounds[k][0]), abs(middle - bounds[k][1])))
    return best


def columns_without_sign_columns(
    grid: list[list[str]], bounds: list[tuple[float, float]]
) -> tuple[list[list[str]], list[tuple[float, float]]]:
    """A column holding only currency signs is folded into the column on its right ("$" +
    "192,052" -> "$192,052"); a column holding only "%" or the ")" of a negative into the
    column on its left ("(171" + ")" -> "(171)"). The sign belongs to the number: split
    off, it would be a cell of its own that no question about the amount finds."""
    k = 0
    while k < len(bounds):
        values = {row[k] for row in grid if row[k]}
        if values and values <= CURRENCY and k + 1 < len(bounds):
            target, glue = k + 1, lambda sign, number: f"{sign}{number}" if number else sign
        elif values and values <= _CLOSERS and k > 0:
            target, glue = k - 1, lambda sign, number: f"{number}{sign}" if number else sign
        else:
            k += 1
            continue
        grid = [[*row[:target], glue(row[k], row[target]), *row[target + 1 :]] for row in grid]
        grid = [row[:k] + row[k + 1 :] for row in grid]
        lo, hi = sorted((k, target))
        merged = (min(bounds[lo][0], bounds[hi][0]), max(bounds[lo][1], bounds[hi][1]))
        bounds = [*bounds[:lo], merged, *bounds[hi + 1 :]]
        k = max(lo - 1, 0)
    return grid, bounds


def _cells_to_runs(cells: list[_Cell], bounds: list[tuple[float, float]]) -> list[int]:
    """How many of a line's cells go to each column, placed as `_cells_to_row` places them."""
    runs = [0] * len(bounds)
    for column in _cells_to_columns(cells, bounds):
        runs[column] += 1
    return runs


def table_to_segment(table: TableFound, em: float) -> Placeholder:
    """A placeholder segment standing for a table in the reading-order pass."""
    x0, top, x1, bottom = table.bbox
    return Placeholder(
        text="", x0=x0, top=top, x1=x1, bottom=bottom, size=em, bold=0.0, font="", chars=0, stands_for=table
    )
