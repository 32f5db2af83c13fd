"""Tables drawn without rulings: runs of lines whose words fall into aligned columns."""

from __future__ import annotations

import statistics

from parsers.tables.grid import TableFound, is_numeric, rows_to_header_count
from parsers.textlayer.blocks import Line
from parsers.textlayer.chars import Segment, normalize_text

#: Tables without rulings: at least this many rows.
MIN_UNRULED_ROWS = 3


def lines_to_unruled_tables(lines: list[Line], em: float) -> list[tuple[int, int, TableFound]]:
    """Tables without rulings: runs of >= 3 lines whose segments fall into >= 2 aligned
    columns with short cells. Returns (first line index, end index, table)."""
    found = []
    i = 0
    while i < len(lines):
        if len(lines[i].segments) < 2:
            i += 1
            continue
        j = i + 1
        while (
            j < len(lines)
            and lines[j].top - lines[j - 1].bottom < 1.5 * em
            and (len(lines[j].segments) >= 2 or (j + 1 < len(lines) and len(lines[j + 1].segments) >= 2))
        ):
            j += 1
        while j > i and len(lines[j - 1].segments) < 2:
            j -= 1
        table = _run_to_table(lines[i:j], em) if j - i >= MIN_UNRULED_ROWS else None
        if table is not None:
            found.append((i, j, table))
            i = j
        else:
            i += 1
    return found


def _run_to_table(run: list[Line], em: float) -> TableFound | None:
    segments = [s for line in run for s in line.segments]
    spans = sorted((s.x0, s.x1) for s in segments)
    columns: list[list[float]] = [list(spans[0])]
    for x0, x1 in spans[1:]:
        if x0 - columns[-1][1] < 0.8 * em:
            columns[-1][1] = max(columns[-1][1], x1)
        else:
            columns.append([x0, x1])
    if len(columns) < 2:
        return None
    rows = []
    for line in run:
        row = [""] * len(columns)
        for segment in line.segments:
            middle = (segment.x0 + segment.x1) / 2
            index = next(k for k, (x0, x1) in enumerate(columns) if x0 - 1 <= middle <= x1 + 1)
            row[index] = f"{row[index]} {segment.text}".strip()
        rows.append([normalize_text(c) for c in row])
    filled = statistics.mean(sum(1 for c in row if c) / len(columns) for row in rows)
    lengths = [len(c) for row in rows for c in row if c]
    column_medians = [statistics.median([len(r[k]) for r in rows if r[k]] or [0]) for k in range(len(columns))]
    if filled < 0.6 or statistics.median(lengths) > 30 or max(column_medians) > 45:
        return None
    if len(columns) == 2 and not any(is_numeric(r[1]) for r in rows):
        return None
    bbox = (min(l.x0 for l in run), min(l.top for l in run), max(l.x1 for l in run), max(l.bottom for l in run))
    return TableFound(
        rows=rows,
        bbox=bbox,
        header_rows=rows_to_header_count(rows, run[0].bold >= 0.8 > run[-1].bold),
        column_xs=[c[0] for c in columns],
        ruled=False,
    )


def table_to_segment(table: TableFound, em: float) -> Segment:
    """A placeholder segment standing for a table in the reading-order pass."""
    x0, top, x1, bottom = table.bbox
    return Segment(
        text="", x0=x0, top=top, x1=x1, bottom=bottom, size=em, bold=0.0, font="", chars=0, tag={"table": table}
    )
