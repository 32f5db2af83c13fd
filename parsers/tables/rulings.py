"""Ruled tables without pdfplumber's page parse: pypdfium2 path edges fed to pdfplumber's
own table algorithm, cells filled from pypdfium2 characters.

pdfplumber's lines strategy is `edges -> merge_edges -> edges_to_intersections ->
intersections_to_cells -> cells_to_tables`; only the first step needs the page parsed
by pdfminer (~200 ms a page). `page_to_edges` produces the same edge records (`x0`,
`x1`, `top`, `bottom`, `width`, `height`, `orientation`) from pypdfium2's path objects
in a few milliseconds, so `edges_to_cell_grids` runs pdfplumber's algorithm, with its
default tolerances, on them. Every axis-aligned straight piece of a path counts, as in
pdfplumber (lines, rectangle sides, the straight runs of "curves"); Bézier pieces do not.

Coordinates: PDF points, top-left origin, in the frame the page is read in
(`frames.PageFrame`: the displayed frame of a page with /Rotate, so a table drawn turned
on a portrait page with /Rotate 90 gets its rows as rows); `top = page_height - y` on
an unrotated page.
"""

from __future__ import annotations

import ctypes

import pypdfium2.raw as pdfium_c
from pdfplumber.table import (
    Table,
    cells_to_tables,
    edges_to_intersections,
    intersections_to_cells,
    merge_edges,
)
from pdfplumber.table import TableSettings as PlumberTableSettings

from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.textlayer.frames import PageFrame

_SETTINGS = PlumberTableSettings.resolve({"vertical_strategy": "lines", "horizontal_strategy": "lines"})
#: Guards a division by a zero-length side: not a tolerance.
_TINY = 1e-9
#: Rules crossed by a row rule, counted at whole points, for it to have open sides (two or more).
_MIN_CROSSED = 2
#: A side is drawn where at least this many row rules end together.
_MIN_SIDE_RULES = 2
_MAX_SEGMENTS_PER_PAGE = 50_000

Matrix = tuple[float, float, float, float, float, float]


def _compose(outer: Matrix, inner: Matrix) -> Matrix:
    """inner then outer (PDF row-vector convention)."""
    a, b, c, d, e, f = inner
    A, B, C, D, E, F = outer
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def page_to_edges(page, frame: PageFrame, settings: TableSettings = DEFAULT_TABLE_SETTINGS) -> list[dict]:
    """Horizontal and vertical edges drawn on a pypdfium2 page (Form XObjects included),
    in `frame` (the `PageFrame` the page's characters are in); a straight piece within
    `axis_slope` of an axis is an edge."""
    slope = settings.axis_slope
    page_height = frame.height
    to_frame = frame.up_point
    edges: list[dict] = []
    matrix = pdfium_c.FS_MATRIX()
    x, y = ctypes.c_float(), ctypes.c_float()
    budget = [_MAX_SEGMENTS_PER_PAGE]

    def add(p, q) -> None:
        (x0, y0), (x1, y1) = p, q
        dx, dy = abs(x1 - x0), abs(y1 - y0)
        if dy <= slope * max(dx, _TINY) and dx >= 1:
            top = page_height - (y0 + y1) / 2
            edges.append(
                {
                    "x0": min(x0, x1),
                    "x1": max(x0, x1),
                    "top": top,
                    "bottom": top,
                    "width": dx,
                    "height": 0.0,
                    "orientation": "h",
                    "object_type": "curve",
                }
            )
        elif dx <= slope * max(dy, _TINY) and dy >= 1:
            left = (x0 + x1) / 2
            edges.append(
                {
                    "x0": left,
                    "x1": left,
                    "top": page_height - max(y0, y1),
                    "bottom": page_height - min(y0, y1),
                    "width": 0.0,
                    "height": dy,
                    "orientation": "v",
                    "object_type": "curve",
                }
            )

    def visit(obj, outer: Matrix | None) -> None:
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if not pdfium_c.FPDFPageObj_GetMatrix(obj, matrix):
            return
        own = (matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f)
        full = _compose(outer, own) if outer else own
        if kind == pdfium_c.FPDF_PAGEOBJ_FORM:
            for i in range(pdfium_c.FPDFFormObj_CountObjects(obj)):
                visit(pdfium_c.FPDFFormObj_GetObject(obj, i), full)
            return
        if kind != pdfium_c.FPDF_PAGEOBJ_PATH:
            return
        a, b, c, d, e, f = full
        start = previous = None
        count = pdfium_c.FPDFPath_CountSegments(obj)
        budget[0] -= count
        if budget[0] < 0:
            return
        for index in range(count):
            segment = pdfium_c.FPDFPath_GetPathSegment(obj, index)
            if not pdfium_c.FPDFPathSegment_GetPoint(segment, x, y):
                continue
            point = to_frame(a * x.value + c * y.value + e, b * x.value + d * y.value + f)
            kind_ = pdfium_c.FPDFPathSegment_GetType(segment)
            if kind_ == pdfium_c.FPDF_SEGMENT_MOVETO:
                start = point
            elif kind_ == pdfium_c.FPDF_SEGMENT_LINETO and previous is not None:
                add(previous, point)
            previous = point
            if pdfium_c.FPDFPathSegment_GetClose(segment) and start is not None and previous is not None:
                add(previous, start)
                previous = start

    raw = page.raw
    for index in range(pdfium_c.FPDFPage_CountObjects(raw)):
        visit(pdfium_c.FPDFPage_GetObject(raw, index), None)
    return edges


def edges_to_cell_grids(edges: list[dict]) -> list[tuple[tuple[float, float, float, float], list[list[tuple | None]]]]:
    """pdfplumber's lines strategy on our edges: (table bbox, rows of cell bboxes or None)."""
    settings = _SETTINGS
    edges = [
        e
        for e in edges
        if (e["width"] if e["orientation"] == "h" else e["height"]) >= settings.edge_min_length_prefilter
    ]
    edges = merge_edges(
        edges,
        snap_x_tolerance=settings.snap_x_tolerance,
        snap_y_tolerance=settings.snap_y_tolerance,
        join_x_tolerance=settings.join_x_tolerance,
        join_y_tolerance=settings.join_y_tolerance,
    )
    edges = [e for e in edges if (e["width"] if e["orientation"] == "h" else e["height"]) >= settings.edge_min_length]
    edges = edges + edges_to_open_sides(edges)
    intersections = edges_to_intersections(edges, settings.intersection_x_tolerance, settings.intersection_y_tolerance)
    cells = intersections_to_cells(intersections)
    grids = []
    for group in cells_to_tables(cells):
        table = Table(None, group)
        grids.append((table.bbox, [list(row.cells) for row in table.rows]))
    return grids


#: Row rules ending within this many points of each other end at one (undrawn) side.
_SIDE_TOLERANCE = 2.0
#: A row rule must reach this far (points) past the last column rule it crosses to have an
#: open side there (a rule ending at a column rule is closed by it).
_SIDE_OVERHANG = 5.0
#: Two rules further apart than this (points) are not rows of one table (a row is rarely
#: taller than 4 lines of 10 pt type).
_SIDE_MAX_GAP = 60.0


def edges_to_open_sides(edges: list[dict]) -> list[dict]:
    """Vertical edges for the sides a table leaves undrawn: where >= 2 horizontal rules that
    cross two or more vertical rules run on past the outermost one they cross and end at the same x
    (within 2 pt), a vertical edge is added there, from the first of those rules to the last.

    Why: many producers draw the row rules across the full width but only the inner column
    rules (statistical offices' tables often are), so pdfplumber's cells stop at the inner rules and the
    first and last columns (the row labels, the last numbers) fall outside the table.
    Horizontal rules crossing fewer than two column rules (page separators, booktabs tables,
    a table with one rule after its label column) add nothing: there the unruled-table
    pass reads the columns from the words' alignment.
    """
    horizontal = [e for e in edges if e["orientation"] == "h"]
    vertical = [e for e in edges if e["orientation"] == "v"]
    ends: dict[str, list[tuple[float, float]]] = {"left": [], "right": []}
    for h in horizontal:
        crossed = [
            v["x0"]
            for v in vertical
            if h["x0"] - 1 <= v["x0"] <= h["x1"] + 1 and v["top"] - 1 <= h["top"] <= v["bottom"] + 1
        ]
        if len({round(x) for x in crossed}) < _MIN_CROSSED:
            continue
        if min(crossed) - h["x0"] > _SIDE_OVERHANG:
            ends["left"].append((h["x0"], h["top"]))
        if h["x1"] - max(crossed) > _SIDE_OVERHANG:
            ends["right"].append((h["x1"], h["top"]))
    added = []
    for points in ends.values():
        for group in _points_to_sides(sorted(points)):
            x = sum(p[0] for p in group) / len(group)
            top, bottom = min(p[1] for p in group), max(p[1] for p in group)
            added.append(
                {"x0": x, "x1": x, "top": top, "bottom": bottom, "width": 0.0, "height": bottom - top}
                | {"orientation": "v", "object_type": "curve"}
            )
    return added


def _points_to_sides(points: list[tuple[float, float]]) -> list[list[tuple[float, float]]]:
    """Rule ends (x, y) grouped into sides: same x within `_SIDE_TOLERANCE`, consecutive
    rules at most `_SIDE_MAX_GAP` apart (two tables one above the other with the same
    margins get a side each), >= 2 rules a side."""
    columns: list[list[tuple[float, float]]] = []
    for point in points:
        if columns and point[0] - columns[-1][0][0] <= _SIDE_TOLERANCE:
            columns[-1].append(point)
        else:
            columns.append([point])
    sides = []
    for column in columns:
        column.sort(key=lambda p: p[1])
        run = [column[0]]
        for point in column[1:] + [(0.0, float("inf"))]:
            if point[1] - run[-1][1] > _SIDE_MAX_GAP:
                if len(run) >= _MIN_SIDE_RULES:
                    sides.append(run)
                run = []
            run.append(point)
    return sides
