"""Tables on an OCR'd page: rows of aligned cells, rebuilt across Tesseract's blocks.

Tesseract often gives a ruled table one block per column, or puts the header row in a
block of its own; rows are therefore rebuilt by position (`visual_rows`), and a run of
at least two consecutive rows with two or more cells aligned in columns is a table.
A row whose only cells sit in later columns continues the row above (a wrapped cell).
Runs whose cells read like prose (a two-column page) are not tables. Pixels throughout.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from parsers.ocr.words import Line, Word, join_words

ALIGN_TOLERANCE = 1.5  # cell edges within this many text heights are in the same column
ROW_OVERLAP = 0.5  # lines overlapping vertically by this share of the smaller height share a row
PROSE_CELL_WORDS = 7  # a "table" whose cells average more words than this is columns of prose
CELL_BLOCK_WORDS = 4  # a block whose lines have at most this many words (median) may be a table column
MIN_CELLS = 2  # a row of fewer cells is a line of text (or a wrapped cell), not a table row
MIN_ROWS = 2  # a table has a header and a row at least: one row of cells is a line with wide gaps
#: A cell that is a number, possibly with a unit: '2300', '0.42', '12%', '400 ml', '1,81,841'.
_NUMBER = re.compile(r"^[-+(]?[0-9०-९][0-9०-९.,:/%]*\)?(\s?(%|ml|g|kg|l|ha|cm|mm|ppm|kg/ha|rs\.?))?$", re.IGNORECASE)


def _overlap(a: Line, b: Line) -> float:
    return min(a.bottom, b.bottom) - max(a.top, b.top)


def cell_like_blocks(lines: list[Line]) -> set[int]:
    """Blocks that look like table columns or rows: their lines are short (median at most
    `CELL_BLOCK_WORDS` words) or split into cells. A block of prose is not one, so the
    short last line of a paragraph is never joined with the column beside it."""
    by_block: dict[int, list[Line]] = {}
    for line in lines:
        by_block.setdefault(line.block, []).append(line)
    return {
        block
        for block, members in by_block.items()
        if statistics.median(len(ln.words) for ln in members) <= CELL_BLOCK_WORDS
        or statistics.median(len(ln.cells) for ln in members) >= MIN_CELLS
    }


def visual_rows(lines: list[Line]) -> list[list[Line]]:
    """Lines grouped into rows: lines of different cell-like blocks side by side,
    overlapping vertically, not horizontally. Each row's lines are sorted left to right;
    rows are returned top to bottom."""
    joinable = cell_like_blocks(lines)
    rows: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: (ln.top, ln.left)):
        for row in rows[-3:]:
            if (
                line.block in joinable
                and all(other.block in joinable for other in row)
                and all(other.block != line.block for other in row)
                and all(
                    _overlap(line, other) >= ROW_OVERLAP * min(line.height, other.height)
                    and (line.left >= other.right or line.right <= other.left)
                    for other in row
                )
            ):
                row.append(line)
                row.sort(key=lambda ln: ln.left)
                break
        else:
            rows.append([line])
    return rows


def _row_cells(row: list[Line]) -> list[list[Word]]:
    return [cell for line in row for cell in line.cells]


def _aligned(cell: list[Word], columns: list[tuple[float, float]], tolerance: float) -> int | None:
    left, right = cell[0].left, cell[-1].right
    for index, (col_left, col_right) in enumerate(columns):
        if (
            abs(left - col_left) <= tolerance
            or abs(right - col_right) <= tolerance
            or (left >= col_left - tolerance and right <= col_right + tolerance)
        ):
            return index
    return None


@dataclass
class Table:
    rows: list[list[Line]]  # visual rows, top to bottom
    cells: list[list[str]]
    order: int  # reading-order position: the first line's
    header_rows: int = 0


def lines_to_tables(lines: list[Line], body: float) -> list[Table]:
    """Runs of >= 2 consecutive visual rows with >= 2 cells whose cells align in columns.

    A row with cells only in later columns (a wrapped cell) continues the previous row.
    """
    tolerance = ALIGN_TOLERANCE * body
    tables: list[Table] = []
    run: list[list[Line]] = []
    columns: list[tuple[float, float]] = []

    def close() -> None:
        nonlocal run, columns
        if sum(1 for row in run if len(_row_cells(row)) >= MIN_CELLS) >= MIN_ROWS:
            table = _rows_to_table(run, columns, tolerance)
            if table is not None:
                tables.append(table)
        run, columns = [], []

    for row in visual_rows(lines):
        cells = _row_cells(row)
        if len(cells) >= MIN_CELLS:
            indexes = [_aligned(cell, columns, tolerance) for cell in cells] if columns else []
            matches = sum(1 for i in indexes if i is not None)
            if run and matches >= min(MIN_CELLS, len(cells)) and len(cells) <= len(columns) + 1:
                run.append(row)
                continue
            close()
            run, columns = [row], [(c[0].left, c[-1].right) for c in cells]
        elif run and cells and _aligned(cells[0], columns, tolerance) not in (None, 0):
            run.append(row)  # a wrapped cell: continues the row above
        else:
            close()
    close()
    return tables


def _rows_to_table(run: list[list[Line]], columns: list[tuple[float, float]], tolerance: float) -> Table | None:
    grid: list[list[str]] = []
    for row in run:
        cells = _row_cells(row)
        texts = [""] * len(columns)
        for position, cell in enumerate(cells):
            index = _aligned(cell, columns, tolerance)
            if index is None:
                index = min(position, len(columns) - 1)
            texts[index] = (texts[index] + " " + join_words(cell)).strip()
        if len(cells) >= MIN_CELLS or not grid:
            grid.append(texts)
        else:  # continuation of a wrapped cell
            grid[-1] = [(a + " " + b).strip() for a, b in zip(grid[-1], texts)]
    filled = [cell for row in grid for cell in row if cell]
    if statistics.fmean(len(cell.split()) for cell in filled) > PROSE_CELL_WORDS:
        return None  # side-by-side prose, not a table
    return Table(
        rows=run, cells=grid, order=min(line.order for row in run for line in row), header_rows=guess_header_rows(grid)
    )


def guess_header_rows(grid: list[list[str]]) -> int:
    """1 when the first row reads as column labels: later rows hold numbers or digits
    that it lacks - no number cell in it ('MSP 2023-24' is a label, '2300', '0.42',
    '400 ml' are numbers), or no digit at all. 0 otherwise.

    Deliberately not `tables.rows_to_header_count` (text tables): that rule has no units
    ('100 ml per acre' is no number there) and no digit fallback for misread numbers;
    bold (ink) is decided by the caller, `ocr.layout`."""
    if len(grid) < MIN_ROWS:
        return 0

    def numbers(row: list[str]) -> int:
        return sum(1 for cell in row if _NUMBER.match(cell.strip()))

    def digits(row: list[str]) -> bool:
        return any(ch.isdigit() for cell in row for ch in cell)

    rest = grid[1:]
    if numbers(grid[0]) == 0 and any(numbers(row) for row in rest):
        return 1
    return 1 if not digits(grid[0]) and any(digits(row) for row in rest) else 0
