"""A ruled grid's cells filled with text, and the two repairs an under-ruled grid needs.

Producers often rule a table less than its structure: (1) booktabs style, the header is
fully ruled but the body rows only by horizontal rules, so pdfplumber's lines strategy sees
each body row as ONE cell spanning every column ("Austria 86.2 13.8 0 3,375"); (2) column
rules but no rules between body rows, so 13 body rows become one row of 13-line cells. Both
are repaired from the text itself, with evidence the grid already holds:

- `segments_to_columns`: a cell spanning several grid columns is dealt into them when every
  text segment (a run of characters broken at gaps over 0.8 em, `chars.SEGMENT_GAP_EM`)
  lies inside one column and at least two columns get text. A real spanning cell (a title,
  a group label centred over two columns, a note) has a segment crossing a column boundary
  or sits in one column, and stays spanned.
- `band_to_rows`: a row whose cells hold several lines is cut into one row per shared text
  line when at least one cell is a stack of numbers (one number per line) and another cell
  has several lines too. Wrapped text in a normal row never has a cell of one-number lines.

Every character whose centre lies in a cell ends up in exactly one output cell (no word
is dropped by either repair). A character inside the grid's box that no cell holds (an
open-sided table whose outer columns have no rules below the header; a row whose last
cell the producer did not rule) is an *orphan*: `grid_to_orphans` places it at the grid
position (row band, column) it falls in, where the grid has no cell, and `grid_to_rows`
fills that position with it. When orphans at one position stand apart on a line (two
separate runs: "1.0%   (7.4)%   (1.2)%" where the grid has one column), the grid's columns
do not describe the text and `orphans_fit_grid` says so: the caller rejects the grid and
its text flows on as paragraphs or an unruled table. Coordinates: points, top-left origin.
"""

from __future__ import annotations

from parsers.tables.grid import is_numeric
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.textlayer.blocks import Line, lines_to_text, segments_to_lines
from parsers.textlayer.chars import Char, Segment, chars_to_segments

Box = tuple[float, float, float, float]

#: Two or more: columns given text by a dealt cell, lines of a stacked cell, rows of a cut band,
#: numbers standing apart on a line, cells of a row that show columns.
SEVERAL = 2


def grid_to_column_bounds(grid: list[list[Box | None]]) -> list[tuple[float, float]]:
    """(x0, x1) of each grid column: pdfplumber's rows list cells by the sorted distinct
    x0 of all cells, so column j runs from the j-th x0 to the next (the last to the right
    edge of the table)."""
    starts = sorted({round(cell[0], 2) for row in grid for cell in row if cell})
    right = max(cell[2] for row in grid for cell in row if cell)
    return [(x0, starts[j + 1] if j + 1 < len(starts) else right) for j, x0 in enumerate(starts)]


def segments_to_columns(
    segments: list[Segment], bounds: list[tuple[float, float]], settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> list[list[Segment]] | None:
    """The segments of one cell dealt to the columns `bounds` it spans, or None when the
    cell must stay spanned: a segment crossing a column boundary (by over `cell_overhang_pt`),
    or text in fewer than two columns."""
    overhang = settings.cell_overhang_pt
    dealt: list[list[Segment]] = [[] for _ in bounds]
    for segment in segments:
        middle = (segment.x0 + segment.x1) / 2
        index = next((k for k, (x0, x1) in enumerate(bounds) if x0 <= middle < x1), None)
        if index is None:
            index = 0 if middle < bounds[0][0] else len(bounds) - 1
        x0, x1 = bounds[index]
        if segment.x0 < x0 - overhang or segment.x1 > x1 + overhang:
            return None
        dealt[index].append(segment)
    if sum(1 for column in dealt if column) < SEVERAL:
        return None
    return dealt


def band_to_rows(cells: list[list[Line]], settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> list[list[list[Line]]]:
    """One grid row's cells (each a list of text lines, top to bottom) as one or more
    rows: cut at text lines shared across columns when a cell is a stack of numbers (>= 2
    lines, each one number) and another cell has >= 2 lines. Lines are grouped by vertical
    overlap (over `line_overlap_share` of the shorter one); a group with text only where no
    stacked-number cell is (a wrapped row label) joins the group above it. Returns `[cells]` unchanged otherwise."""
    stacked = [k for k, lines in enumerate(cells) if len(lines) >= SEVERAL and all(is_numeric(l.text) for l in lines)]
    multi = [k for k, lines in enumerate(cells) if len(lines) >= SEVERAL]
    if not stacked or len(multi) < SEVERAL:
        return [cells]
    placed = sorted(((line, k) for k, lines in enumerate(cells) for line in lines), key=lambda p: p[0].top)
    groups: list[list[tuple[Line, int]]] = []
    extents: list[list[float]] = []
    for line, k in placed:
        if groups:
            top, bottom = extents[-1]
            overlap = min(bottom, line.bottom) - max(top, line.top)
            if overlap > settings.line_overlap_share * min(line.height, bottom - top):
                groups[-1].append((line, k))
                extents[-1] = [min(top, line.top), max(bottom, line.bottom)]
                continue
        groups.append([(line, k)])
        extents.append([line.top, line.bottom])
    rows: list[list[list[Line]]] = []
    for group in groups:
        row: list[list[Line]] = [[] for _ in cells]
        for line, k in group:
            row[k].append(line)
        if rows and not any(row[k] for k in stacked):
            for k, lines in enumerate(row):
                rows[-1][k].extend(lines)
            continue
        rows.append(row)
    return rows if len(rows) >= SEVERAL else [cells]


Position = tuple[int, int]


def grid_to_orphans(
    grid: list[list[Box | None]], chars: list[Char], spilled: list[Char] | None = None
) -> dict[Position, list[Char]]:
    """The visible characters inside the grid's box whose centre no cell holds (with the
    spaces between them), by the
    (row, column) position they fall in: row r's band runs from its top to the next row's
    top (the last to the box's bottom), column k is `grid_to_column_bounds`' k-th. Only
    positions where the grid has no cell (None) are returned; a character whose position
    holds a cell that ends short of it (cells of one row with different bottoms) joins that
    cell's position all the same. `spilled`: characters outside the box that belong with it
    all the same (`spilled_chars`), placed at the nearest row and column. Empty for a grid
    whose rows do not list one entry per column."""
    boxes = [cell for row in grid for cell in row if cell]
    if not boxes:
        return {}
    bounds = grid_to_column_bounds(grid)
    if any(len(row) != len(bounds) for row in grid):
        return {}
    left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
    right, bottom = max(b[2] for b in boxes), max(b[3] for b in boxes)
    row_tops = [min(cell[1] for cell in row if cell) if any(row) else None for row in grid]
    orphans: dict[Position, list[Char]] = {}
    outside = {id(char) for char in spilled or []}
    for char in chars:  # `spilled` are some of `chars`
        if not char.is_space and not char.text.strip():
            continue
        x, y = (char.x0 + char.x1) / 2, (char.top + char.bottom) / 2
        if id(char) not in outside and not (left <= x <= right and top <= y <= bottom):
            continue
        if any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in boxes):
            continue
        r = max((i for i, row_top in enumerate(row_tops) if row_top is not None and row_top <= y), default=0)
        k = next((i for i, (x0, x1) in enumerate(bounds) if x0 <= x < x1), 0 if x < left else len(bounds) - 1)
        orphans.setdefault((r, k), []).append(char)
    # Spaces ride along, in drawing order, where visible orphans are: without them the
    # orphans' words were glued wherever glyphs sit closer than the space threshold
    # (a Korean form's cells read "◦대상질병에U코드일부(3종)" for "◦ 대상질병에 U코드 일부(3종)").
    return {position: placed for position, placed in orphans.items() if not all(c.is_space for c in placed)}


def spilled_chars(bbox: Box, segments: list[Segment], chars: list[Char]) -> list[Char]:
    """Characters outside `bbox` whose run (one of `segments`, `chars.chars_to_segments` of
    the page's `chars`) has its midpoint inside it (within 1 pt): the page body leaves such a run to the table
    (`textlayer.layout.layout_to_blocks`), so the table must hold all of it (a bullet line
    running past the underlines of a form taken as its grid)."""
    x0, top, x1, bottom = bbox
    spilled: list[Char] = []
    for segment in segments:
        mx, my = (segment.x0 + segment.x1) / 2, (segment.top + segment.bottom) / 2
        if not (x0 - 1 <= mx <= x1 + 1 and top - 1 <= my <= bottom + 1):
            continue
        if segment.x0 >= x0 - 1 and segment.x1 <= x1 + 1 and segment.top >= top - 1 and segment.bottom <= bottom + 1:
            continue
        spilled.extend(
            c
            for c in chars
            if _holds((segment.x0, segment.top, segment.x1, segment.bottom), *_centre(c))
            and not _holds(bbox, *_centre(c))
        )
    return spilled


def orphans_fit_grid(orphans: dict[Position, list[Char]], settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> bool:
    """True when the orphans of every position read as one cell: on each of its text lines
    one run (`chars.chars_to_segments`, which breaks at gaps over 0.8 em), and no word cut
    between two positions (`orphans_cut_words`). Separate runs side by side at one position
    are columns the grid does not have; a word whose letters fall at two positions is a column
    boundary through a line of text."""
    for placed in orphans.values():
        for line in segments_to_lines(chars_to_segments(placed)):
            if len(line.segments) > 1:
                return False
    return not orphans_cut_words(orphans, settings)


def orphans_cut_words(orphans: dict[Position, list[Char]], settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> int:
    """How many words the grid's column bounds cut where its row has no cell: the last glyph
    at position (r, k) and the first at (r, k + 1) on one line, no space between them (gap
    under `cut_gap_em`, neither a space character).

    Rules drawn around prose (an annual report's paragraph with shading behind some of its
    words makes ten "columns" over it) leave most of its lines in no cell; the column bounds of
    the few cells then cut its words ("Du" | "ring", "additio" | "n"). The words of an
    open-sided table's orphans stand in their columns, apart by a column gap."""
    cut = 0
    for (r, k), placed in orphans.items():
        after = _glyphs_by_line(orphans.get((r, k + 1), []))
        for baseline, glyphs in _glyphs_by_line(placed).items():
            left = max(glyphs, key=lambda c: c.x1)
            right = min(after.get(baseline, ()), key=lambda c: c.x0, default=None)
            if right is not None and abs(right.x0 - left.x1) <= settings.cut_gap_em * max(left.size, 1.0):
                cut += 1
    return cut


def _glyphs_by_line(chars: list[Char]) -> dict[int, list[Char]]:
    """Visible glyphs by their rounded bottom (points): one text line each."""
    lines: dict[int, list[Char]] = {}
    for char in chars:
        if not char.is_space:
            lines.setdefault(round(char.bottom), []).append(char)
    return lines


def grid_to_rows(
    grid: list[list[Box | None]],
    chars: list[Char],
    orphans: dict[Position, list[Char]] | None = None,
    page_segments: list[Segment] | None = None,
    owned: dict[Position, list[Char]] | None = None,
    settings: TableSettings = DEFAULT_TABLE_SETTINGS,
) -> tuple[list[list[str]], list[list[bool]]]:
    """Cell texts (wrapped lines joined, hyphenation undone, Hangul line ends judged on the
    page's evidence, `page_draws_line_end_spaces`) and whether each cell is bold,
    with both repairs above applied (so a row of the grid may give several rows).

    A character belongs to the cell holding its centre (the largest, where cells overlap);
    `orphans` (`grid_to_orphans`) fill
    the positions they were placed at; a spanned cell (None) with no orphans is "".
    `page_segments`: `chars_to_segments(chars)` when the caller has it (None: made here if needed);
    `owned`: `grid_to_owned_chars(grid, chars)` likewise.
    """
    if not grid or not any(cell for row in grid for cell in row):
        return [], []
    orphans = orphans or {}
    ends = page_draws_line_end_spaces(chars, page_segments)
    owned = grid_to_owned_chars(grid, chars) if owned is None else owned
    bounds = grid_to_column_bounds(grid)
    rows, bold = [], []
    for r, row in enumerate(grid):
        cells: list[list[Line]] = [[] for _ in row]
        for j, cell in enumerate(row):
            placed = orphans.get((r, j), [])
            if cell is None:
                if placed:
                    cells[j] = segments_to_lines(chars_to_segments(placed, ends))
                continue
            inside = owned.get((r, j), [])
            segments = chars_to_segments(sorted(inside + placed, key=_reading_key) if placed else inside, ends)
            spanned = _spanned_columns(cell, bounds)
            dealt = segments_to_columns(segments, [bounds[k] for k in spanned], settings) if len(spanned) > 1 else None
            if dealt is None:
                cells[j] = segments_to_lines(segments) if segments else []
                continue
            for k, column in zip(spanned, dealt):
                if k < len(cells) and column:
                    cells[k] = segments_to_lines(column)
        for band in band_to_rows(cells, settings):
            rows.append([lines_to_text(lines) if lines else "" for lines in band])
            bold.append([_is_bold(lines, settings) for lines in band])
    return rows, bold


def _spanned_columns(cell: Box, bounds: list[tuple[float, float]]) -> list[int]:
    """The grid columns (`grid_to_column_bounds` indexes) a cell covers: from the column whose
    start is nearest the cell's left edge to the last one starting before its right edge."""
    first = min(range(len(bounds)), key=lambda k: abs(bounds[k][0] - cell[0]))
    return [k for k in range(first, len(bounds)) if bounds[k][0] < cell[2] - 1]


def page_draws_line_end_spaces(chars: list[Char], segments: list[Segment] | None = None) -> bool:
    """Whether the page (`chars`, all of it) draws a space after some line end: then a Hangul
    cell line without one ends inside a word, as in its paragraphs (`text_joins._separator`:
    a Korean form's cell "... 장티푸스, 파라" / "티푸스, ..." reads "파라티푸스", as the text
    below it prints). A cell alone rarely draws one, so its own characters are no evidence.
    Only pages holding Hangul are looked at: the evidence serves no other join. `segments`:
    `chars_to_segments(chars)`, when the caller already made them."""
    if not any("\uac00" <= c.text <= "\ud7a3" for c in chars):
        return False
    return any(segment.space_after for segment in (chars_to_segments(chars) if segments is None else segments))


def grid_to_owned_chars(grid: list[list[Box | None]], chars: list[Char]) -> dict[Position, list[Char]]:
    """Each character whose centre lies in a cell, under the (row, column) of exactly one cell.

    pdfplumber's cells overlap where a box is drawn inside a cell, and a character counted in
    both was held twice (earnings tables with boxed figures; a statistics table's whole row).
    The outer cell takes the characters first; when all of them lie inside one smaller cell,
    that cell takes them instead. So a header cell "Adjusted Operational 1,3" with a box round
    "Adjusted" keeps its text whole, and rows framed a second time, label and
    numbers each inside an inner cell, keep the inner cells, which are the ones aligned with
    the other rows' columns."""
    cells = sorted(
        ((r, j, cell) for r, row in enumerate(grid) for j, cell in enumerate(row) if cell),
        key=lambda item: -_area(item[2]),
    )
    owned: dict[Position, list[Char]] = {}
    for char in chars:
        x, y = (char.x0 + char.x1) / 2, (char.top + char.bottom) / 2
        for r, j, box in cells:
            if _holds(box, x, y):
                owned.setdefault((r, j), []).append(char)
                break
    for position in list(owned):
        held = owned[position]
        first = held[0]
        x, y = (first.x0 + first.x1) / 2, (first.top + first.bottom) / 2
        inner = [
            (r, j, box)
            for r, j, box in reversed(cells)
            if (r, j) != position
            and _holds(box, x, y)
            and all(_holds(box, (c.x0 + c.x1) / 2, (c.top + c.bottom) / 2) for c in held)
        ]
        if inner:
            r, j, _ = inner[0]
            owned[(r, j)] = owned.get((r, j), []) + owned.pop(position)
    return owned


def _area(box: Box) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _holds(box: Box, x: float, y: float) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _centre(char: Char) -> tuple[float, float]:
    """The (x, y) centre of a character's box, points."""
    return (char.x0 + char.x1) / 2, (char.top + char.bottom) / 2


def _reading_key(char: Char) -> tuple[int, float]:
    """Characters in reading order for `chars_to_segments`: by line (2 pt bands), then x."""
    return (round(char.bottom / 2), char.x0)


def _is_bold(lines: list[Line], settings: TableSettings) -> bool:
    """At least `header_bold_share` of the cell's characters bold."""
    segments = [s for line in lines for s in line.segments if s.text.strip()]
    total = sum(max(s.chars, 1) for s in segments)
    return bool(segments) and sum(s.bold * max(s.chars, 1) for s in segments) >= settings.header_bold_share * total


def grid_to_cut_words(
    grid: list[list[Box | None]], chars: list[Char], settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> int:
    """How many words a cell border of the grid cuts through: two glyphs side by side on a
    line, no space between them (gap under `cut_gap_em`, neither a space character), with a
    border of their row between their centres.

    Table text stays inside its cells; a drawing whose "cell borders" cut numbers in two
    ("20" | ".4") is a chart's bars and gridlines or a legend's boxes, not a table. A row
    label overflowing into the next cell at a word space ("Concern over friends" beside
    "Count") is no cut.
    """
    cut = 0
    for row in grid:
        boxes = [cell for cell in row if cell]
        if not boxes:
            continue
        top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
        borders = sorted({b[2] for b in boxes})[:-1]
        lines: dict[int, list[Char]] = {}
        for c in chars:
            if top <= _centre(c)[1] <= bottom:
                lines.setdefault(round(c.bottom), []).append(c)
        for line in lines.values():
            line.sort(key=lambda c: c.x0)
            for a, b in zip(line, line[1:]):
                if a.is_space or b.is_space or b.x0 - a.x1 > settings.cut_gap_em * max(a.size, 1.0):
                    continue
                if any(_centre(a)[0] < x < _centre(b)[0] for x in borders):
                    cut += 1
    return cut


def grid_to_filled_share(grid: list[list[Box | None]], chars: list[Char]) -> float:
    """Share (0-1) of the grid's cells holding at least one visible character's centre."""
    boxes = [cell for row in grid for cell in row if cell]
    centres = [_centre(c) for c in chars if not c.is_space]
    filled = sum(1 for x0, top, x1, bottom in boxes if any(x0 <= x <= x1 and top <= y <= bottom for x, y in centres))
    return filled / max(len(boxes), 1)


def grid_is_drawing(
    grid: list[list[Box | None]], chars: list[Char], settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> bool:
    """True when the ruled grid is a chart's plot area or a legend's boxes, not a table:
    its borders cut `drawing_cut_words` or more words, or one word while under
    `drawing_cut_fill_share` of its cells hold text, or under `drawing_fill_share` of its
    cells hold text at all (gridlines of a plot, where a table fills most of its cells).
    The defaults separate the charts of statistical reports from their ruled tables."""
    cuts = grid_to_cut_words(grid, chars, settings)
    if cuts >= settings.drawing_cut_words:
        return True
    filled = grid_to_filled_share(grid, chars)
    return filled < settings.drawing_fill_share or (cuts >= 1 and filled < settings.drawing_cut_fill_share)


def grid_hides_columns(
    grid: list[list[Box | None]],
    chars: list[Char],
    owned: dict[Position, list[Char]] | None = None,
    settings: TableSettings = DEFAULT_TABLE_SETTINGS,
) -> bool:
    """True when one cell of the grid holds a table of figures the grid does not draw: on two
    or more (`hidden_column_lines`) of its text lines, two or more numbers standing apart (runs that
    `chars.chars_to_segments` breaks at gaps over 0.8 em, each `is_numeric`: a lone "$" or
    "%" is none). Only cells one grid column wide: a cell spanning columns is dealt into them
    (`segments_to_columns`). Text runs apart in a cell (a bullet and its item, the steps of an
    action plan) are no columns.

    Why: rectangles filled behind a few cells (an annual report's white boxes behind the "$"
    and "%" columns and three row labels) make a "grid" whose one cell holds every
    figure of the table, four columns by seven rows; read as a table, "17,626.6 5 % 2,953.9
    17 % ..." was one cell and every row label lost its figures. A ruled table keeps its
    columns in its cells; such a grid is rejected, and its text goes to the unruled pass,
    which reads the columns from the words' alignment. `owned`: `grid_to_owned_chars(grid,
    chars)` when the caller has it (`grid_to_rows` needs it too)."""
    bounds = grid_to_column_bounds(grid)
    owned = grid_to_owned_chars(grid, chars) if owned is None else owned
    for (r, j), held in owned.items():
        if len(_spanned_columns(grid[r][j], bounds)) > 1:
            continue
        lines = segments_to_lines(chars_to_segments(sorted(held, key=_reading_key)))
        apart = [line for line in lines if sum(1 for s in line.segments if is_numeric(s.text.strip())) >= SEVERAL]
        if len(apart) >= settings.hidden_column_lines:
            return True
    return False


def grid_shows_columns(grid: list[list[Box | None]]) -> bool:
    """At least two rows of the grid are divided into two or more cells. Boxes drawn around
    each line of a paragraph (a highlight in a report's prose) make a "grid" whose rows
    are one box wide, except where one line's box ends and the next begins on the same
    baseline; read as a table, its prose was cut mid-word ("sharin" | "g"). Such a grid is
    no table: its text flows as paragraphs."""
    return sum(1 for row in grid if sum(1 for cell in row if cell) >= SEVERAL) >= SEVERAL
