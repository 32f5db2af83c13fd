"""Unruled tables never cross a page's gutter: the columns of a two-column page or of a
two-page spread are read apart before their lines are taken for a table's rows.

`lines_to_unruled_tables` looks at the page's lines, and a line is a band of the page's
height: on a spread scanned as one page (a questionnaire's two facing pages) it
holds a line of the left page and a line of the right page. Two lists of short items side by
side ("Yes, at the national (federal) level" on the left, "Don't know" on the right) then
line up as the "columns" of one table, and the end of a question on one side ("... child
witness-" / "es or suspected ...") was cut from it into that table's first row.

A gutter is an x range at least `TableSettings.gutter_em` wide that no segment of the page's body crosses,
from the top of the page to its bottom, with prose beside it on both sides outside the table
(runs of at least `PROSE_WORDS` words, on at least `gutter_side_lines` lines each): a page of
two columns of text. A table's own column gap is no gutter: the text above and below a table
(its caption, the paragraphs around it) crosses it, or stands on one side only; and a page
of tables side by side (an election bulletin's contests in columns)
has no prose beside its gaps, only more labels and figures, which must stay in their rows.
A table found across a gutter is looked for again on each side alone
(`lines_to_unruled_tables` on each side's segments of its lines): what reads as a table
there stays one, the rest flows as text. Coordinates: points, top-left origin.
"""

from __future__ import annotations

from parsers.tables.grid import TableFound
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.tables.unruled import lines_to_unruled_tables
from parsers.textlayer.blocks import PROSE_WORDS, Line, segments_to_lines
from parsers.textlayer.chars import Segment

#: Tables found in lines[start:end]: (start, end, the tables read there, the lines of that
#: range that no table took; empty when one table took them all).
TablesFound = tuple[int, int, list[TableFound], list[Line]]


def lines_to_tables_within_columns(
    lines: list[Line], em: float, settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> list[TablesFound]:
    """`lines_to_unruled_tables` of the page's body `lines`, each table that crosses a gutter
    (`page_gutters`) replaced by the tables read on each side of it. Returns (first line
    index, end index, tables, lines of the range left as text), in line order."""
    found = lines_to_unruled_tables(lines, em, settings)
    if not found:
        return []
    gutters = page_gutters(lines, em, settings)
    result: list[TablesFound] = []
    for start, end, table in found:
        outside = lines[:start] + lines[end:]
        cuts = [gap for gap in gutters if _splits(gap, table.bbox, outside, settings)]
        if not cuts:
            result.append((start, end, [table], []))
            continue
        tables, rest = _tables_beside_gutters(lines[start:end], cuts, em, settings)
        result.append((start, end, tables, rest))
    return result


def page_gutters(
    lines: list[Line], em: float, settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> list[tuple[float, float]]:
    """The x ranges (x0, x1), at least `gutter_em` wide, that no segment of `lines` covers,
    between the leftmost and the rightmost text."""
    spans = sorted((s.x0, s.x1) for line in lines for s in line.segments if s.text.strip())
    gaps = []
    reach = None
    for x0, x1 in spans:
        if reach is not None and x0 - reach >= settings.gutter_em * em:
            gaps.append((reach, x0))
        reach = x1 if reach is None else max(reach, x1)
    return gaps


def _splits(
    gap: tuple[float, float], bbox: tuple[float, float, float, float], outside: list[Line], settings: TableSettings
) -> bool:
    """Whether the gutter `gap` runs through the table's box with prose beside it on both sides
    on at least `gutter_side_lines` of the lines `outside` the table."""
    x0, x1 = gap
    if not bbox[0] < x0 < x1 < bbox[2]:
        return False
    left = sum(1 for line in outside if any(s.x1 <= x0 and _is_prose(s) for s in line.segments))
    right = sum(1 for line in outside if any(s.x0 >= x1 and _is_prose(s) for s in line.segments))
    return min(left, right) >= settings.gutter_side_lines


def _is_prose(segment: Segment) -> bool:
    return len(segment.text.split()) >= PROSE_WORDS


def _tables_beside_gutters(
    run: list[Line], cuts: list[tuple[float, float]], em: float, settings: TableSettings
) -> tuple[list[TableFound], list[Line]]:
    """The tables read on each side of the gutters `cuts` among the segments of `run`, and the
    lines of the segments no table took (regrouped, top to bottom)."""
    edges = sorted(x0 for x0, _ in cuts)
    sides: list[list[Segment]] = [[] for _ in range(len(edges) + 1)]
    for line in run:
        for segment in line.segments:
            sides[sum(1 for edge in edges if segment.x0 >= edge)].append(segment)
    tables: list[TableFound] = []
    rest: list[Segment] = []
    for segments in sides:
        side_lines = segments_to_lines(segments)
        taken: set[int] = set()
        for start, end, table in lines_to_unruled_tables(side_lines, em, settings):
            tables.append(table)
            taken.update(range(start, end))
        rest.extend(s for k, line in enumerate(side_lines) if k not in taken for s in line.segments)
    return tables, segments_to_lines(rest)
