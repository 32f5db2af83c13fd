"""Tables to pieces that each read with their header: `table_to_row_pieces`.

Serialization (the choice, documented in the README (Chunking)): a Markdown pipe table.
Cells have their whitespace collapsed and "|" escaped as "\\|".

    Table 2: Recommended insecticides            <- caption line, when there is one
    | Pest | Insecticide | Dose per litre of water |
    | --- | --- | --- |
    | Whitefly | Pyriproxyfen 10 EC | 2 ml per litre |

Several header rows are merged into one (per column, the distinct cells top-down
joined by " / "). Every row piece repeats the caption and the header exactly once. A
table that fits is one piece; otherwise it is split between rows; a row too long on
its own (with the caption) is first tried without the caption (the heading path still
names the section), then split by columns, each piece keeping the row label (first
column) and the headers of its columns; a single cell too long with its label is split
like prose (never into parts under `MIN_CELL_ROOM` tokens), each part keeping label and
headers. When even that leaves no room the piece keeps its cell whole, goes over budget
and is flagged `oversize`. When no piece has room for the caption, a first piece holds
the caption and the header alone, so the caption is never lost.

Overlap: a row piece after the first starts with the previous piece's last rows when
they fit in the overlap budget (whole rows; never the header again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ingest.chunking.prose import split_span
from ingest.chunking.sections import TableBlock

TextCount = Callable[[str], int]


@dataclass(frozen=True)
class TablePiece:
    """Some rows (indexes into `TableBlock.rows`) and columns of a table.

    `columns` None means all. `cell_part` is a character range of the text of the last
    listed column's cell when one cell is split (then `rows` has one row).
    `overlap_rows` leading rows repeat the previous piece's last rows.
    """

    rows: tuple[int, ...]
    columns: tuple[int, ...] | None = None
    cell_part: tuple[int, int] | None = None
    overlap_rows: int = 0
    oversize: bool = False
    caption: bool = True
    #: rows whose canonical span the piece claims (a caption-only piece stands for the rows it introduces)
    span_rows: tuple[int, ...] | None = None


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|")


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(_escape(cell) for cell in cells) + " |"


def table_prefix(block: TableBlock, columns: tuple[int, ...] | None = None, caption: bool = True) -> str:
    """Caption line and header lines repeated at the top of every piece ('' when neither)."""
    lines = [block.caption] if block.caption and caption else []
    if block.header and columns != ():
        cols = columns if columns is not None else range(len(block.header))
        lines.append(_line([block.header[c] for c in cols]))
        lines.append("|" + " --- |" * len(cols))
    return "\n".join(lines)


def row_line(
    block: TableBlock, row: int, columns: tuple[int, ...] | None = None, cell_part: tuple[int, int] | None = None
) -> str:
    cells = block.rows[row]
    cols = list(columns) if columns is not None else list(range(len(cells)))
    values = [cells[c] for c in cols]
    if cell_part is not None:
        values[-1] = values[-1][cell_part[0] : cell_part[1]]
    return _line(values)


def serialize_piece(block: TableBlock, piece: TablePiece) -> str:
    prefix = table_prefix(block, piece.columns, piece.caption)
    lines = [prefix] if prefix else []
    lines.extend(row_line(block, row, piece.columns, piece.cell_part) for row in piece.rows)
    return "\n".join(lines)


def table_to_row_pieces(
    block: TableBlock,
    budget: int,
    overlap: int,
    count: TextCount,
    rows: tuple[int, ...] | None = None,
    columns: tuple[int, ...] | None = None,
    cell_part: tuple[int, int] | None = None,
    caption: bool = True,
) -> list[TablePiece]:
    """Split (part of) a table into pieces of at most `budget` tokens of serialized text.

    `caption` False re-splits a part that already lost its caption (a parent's piece).
    """
    rows = tuple(range(len(block.rows))) if rows is None else rows
    whole = TablePiece(rows=rows, columns=columns, cell_part=cell_part, caption=caption)
    if not rows and caption and block.caption:  # a caption piece re-split at a smaller budget (a child's)
        return [_caption_piece(block, budget, count, rows)]
    if not rows or count(serialize_piece(block, whole)) <= budget:
        return [whole]
    if len(rows) > 1 and columns is None and cell_part is None:
        pieces = _split_rows(block, rows, budget, overlap, count, caption)
    elif len(rows) > 1:
        pieces = [
            piece
            for row in rows
            for piece in table_to_row_pieces(block, budget, 0, count, (row,), columns, cell_part, caption)
        ]
    else:
        pieces = _split_row(block, rows[0], budget, count, columns, cell_part)
    if caption and block.caption and not any(piece.caption for piece in pieces):
        pieces.insert(0, _caption_piece(block, budget, count, rows))
    return pieces


def _caption_piece(block: TableBlock, budget: int, count: TextCount, rows: tuple[int, ...]) -> TablePiece:
    """When no row piece has room for the caption, the caption and header get a piece of their own,
    so the caption text is still in a child chunk."""
    with_header = TablePiece(rows=(), span_rows=rows)
    if count(serialize_piece(block, with_header)) <= budget:
        return with_header
    alone = TablePiece(rows=(), columns=(), span_rows=rows)
    if count(serialize_piece(block, alone)) <= budget:
        return alone
    return TablePiece(rows=(), columns=(), oversize=True, span_rows=rows)


def _split_rows(
    block: TableBlock, rows: tuple[int, ...], budget: int, overlap: int, count: TextCount, caption: bool
) -> list[TablePiece]:
    prefix = table_prefix(block, caption=caption)
    prefix_tokens = count(prefix) + 1 if prefix else 0
    row_tokens = {row: count(row_line(block, row)) + 1 for row in rows}
    pieces: list[TablePiece] = []
    position = 0
    while position < len(rows):
        row = rows[position]
        if prefix_tokens + row_tokens[row] > budget:
            pieces.extend(_split_row(block, row, budget, count, None, None))
            position += 1
            continue
        carried = _overlap_rows(pieces, row_tokens, overlap, budget - prefix_tokens - row_tokens[row])
        total = prefix_tokens + sum(row_tokens[r] for r in carried) + row_tokens[row]
        end = position + 1
        while end < len(rows) and total + row_tokens[rows[end]] <= budget:
            total += row_tokens[rows[end]]
            end += 1
        piece = TablePiece(rows=carried + rows[position:end], overlap_rows=len(carried), caption=caption)
        while count(serialize_piece(block, piece)) > budget:
            if piece.overlap_rows:
                piece = TablePiece(rows=piece.rows[1:], overlap_rows=piece.overlap_rows - 1, caption=caption)
            elif end - position > 1:
                end -= 1
                piece = TablePiece(rows=piece.rows[:-1], caption=caption)
            else:
                break
        pieces.append(piece)
        position = end
    return pieces


def _overlap_rows(pieces: list[TablePiece], row_tokens: dict[int, int], overlap: int, room: int) -> tuple[int, ...]:
    """The previous row piece's last whole rows within the overlap budget (never all of its rows)."""
    if not pieces or overlap <= 0 or pieces[-1].columns is not None or pieces[-1].cell_part is not None:
        return ()
    previous = pieces[-1].rows
    carried: list[int] = []
    total = 0
    for row in reversed(previous[1:]):
        if total + row_tokens[row] > min(overlap, room):
            break
        carried.insert(0, row)
        total += row_tokens[row]
    return tuple(carried)


def _split_row(
    block: TableBlock,
    row: int,
    budget: int,
    count: TextCount,
    columns: tuple[int, ...] | None,
    cell_part: tuple[int, int] | None,
) -> list[TablePiece]:
    """One row too long with the caption: drop the caption (the heading path still names the
    table's section); then split its columns, each piece keeping the row label; then a cell."""
    bare = TablePiece(rows=(row,), columns=columns, cell_part=cell_part, caption=False)
    if count(serialize_piece(block, bare)) <= budget:
        return [bare]
    columns = columns if columns is not None else tuple(range(len(block.rows[row])))
    label, others = (columns[:1], columns[1:]) if len(columns) > 1 else ((), columns)
    if len(others) > 1 and cell_part is None:
        pieces: list[TablePiece] = []
        group: list[int] = []
        for column in others:
            candidate = TablePiece(rows=(row,), columns=label + tuple(group + [column]), caption=False)
            if group and count(serialize_piece(block, candidate)) > budget:
                pieces.extend(_fit_columns(block, row, budget, count, label + tuple(group)))
                group = [column]
            else:
                group.append(column)
        pieces.extend(_fit_columns(block, row, budget, count, label + tuple(group)))
        return pieces
    return _split_cell(block, row, budget, count, columns, cell_part)


def _fit_columns(
    block: TableBlock, row: int, budget: int, count: TextCount, columns: tuple[int, ...]
) -> list[TablePiece]:
    piece = TablePiece(rows=(row,), columns=columns, caption=False)
    if count(serialize_piece(block, piece)) <= budget:
        return [piece]
    return _split_cell(block, row, budget, count, columns, None)


#: A cell is split only into parts of at least this many tokens; with less room a
#: value such as "1.2 g per litre" stays whole and the piece is flagged oversize.
MIN_CELL_ROOM = 12


def _split_cell(
    block: TableBlock,
    row: int,
    budget: int,
    count: TextCount,
    columns: tuple[int, ...],
    cell_part: tuple[int, int] | None,
) -> list[TablePiece]:
    """Split the last column's cell text with the prose splitter; label and headers stay on every part."""
    text = block.rows[row][columns[-1]]
    empty = TablePiece(rows=(row,), columns=columns, cell_part=(0, 0), caption=False)
    room = budget - count(serialize_piece(block, empty)) - 1
    low, high = cell_part if cell_part is not None else (0, len(text))
    if room < MIN_CELL_ROOM or high - low == 0:
        return [TablePiece(rows=(row,), columns=columns, cell_part=cell_part, oversize=True, caption=False)]
    parts = split_span(text, (low, high), room, lambda s, e: count(text[s:e]))
    return [TablePiece(rows=(row,), columns=columns, cell_part=(s, e), caption=False) for s, e, _, _ in parts]
