"""Tables: which pages can hold a ruled table, pdfplumber's lines strategy there, tables
without rulings from aligned columns, header rows, captions, and continuation merging.

Cost model: pdfplumber needs ~200 ms to parse a page, pypdfium2 ~1-5 ms to list its
drawing objects. `page_to_drawing_facts` counts the straight rulings and rectangles a
page draws (and the largest image, for the OCR decision); only on a page with enough of
them (`DrawingFacts.may_hold_ruled_table`) are the edges collected and pdfplumber's
lines-strategy algorithm run on them (`rulings.py`), never pdfplumber's page parse.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import pypdfium2.raw as pdfium_c

from parsers.tables.grid import TableFound, rows_to_header_count
from parsers.tables.headers import bold_header_count, stub_header_count
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.textlayer.chars import Char, chars_to_segments
from parsers.textlayer.frames import Matrix, PageFrame, box_to_page, form_to_page_matrix

#: Form XObjects nested deeper than this are not entered (a guard against pathological nesting).
MAX_FORM_DEPTH = 4
#: A rectangle is a path of 4 segments (move + 3 lines, closed) or 5 (move + 4 lines); more
#: is a multi-segment path (a grid drawn as one path, a chart line), 2-3 a straight stroke.
RECTANGLE_SEGMENTS = (4, 5)
#: A path of at least this many segments is one straight line (move + line).
LINE_SEGMENTS = 2
#: Path segments read per path at most (a guard against maps of many thousand pieces).
MAX_PATH_SEGMENTS = 4000
#: A ruled table has at least two rows and two columns with text.
MIN_GRID_SIDE = 2


@dataclass(slots=True)
class DrawingFacts:
    """What a page draws besides text: rulings, rectangles, multi-segment paths, images."""

    horizontal: int = 0
    vertical: int = 0
    rectangles: int = 0
    image_area_ratio: float = 0.0
    #: Every image's box in PDF user space (left, bottom, right, top; points, bottom-left
    #: origin, not yet in the reading frame): the figure candidates (`textlayer.figures`).
    image_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    #: Text objects, and those drawn invisible (render mode 3: an OCR layer under a scan).
    text_objects: int = 0
    invisible_text_objects: int = 0

    @property
    def invisible_text_share(self) -> float:
        """Share (0-1) of the text objects drawn invisible; 0.0 when there are none."""
        return self.invisible_text_objects / self.text_objects if self.text_objects else 0.0

    #: Paths that draw rather than rule (curves, diagonals, small multi-segment marks), same
    #: space, each with its number of curved or diagonal segments (small marks: all their
    #: segments): the vector-figure candidates (`textlayer.figures`).
    drawing_boxes: list[tuple[float, float, float, float, int]] = field(default_factory=list)
    #: Rectangles and straight rulings, same space: a drawing's frame and axes (`textlayer.figures`).
    frame_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    #: The tolerances these facts were counted with and are judged by (`may_hold_ruled_table`).
    settings: TableSettings = DEFAULT_TABLE_SETTINGS

    @property
    def may_hold_ruled_table(self) -> bool:
        """At least `min_horizontal_rulings` horizontal and `min_vertical_rulings` vertical
        rulings; rectangles count (2 + 2 edges each) only when there are `min_rectangles` or
        more of them (one box round a note is no table)."""
        settings = self.settings
        boxes = self.rectangles if self.rectangles >= settings.min_rectangles else 0
        sides = 2 * boxes
        return (
            self.horizontal + sides >= settings.min_horizontal_rulings
            and self.vertical + sides >= settings.min_vertical_rulings
        )


def page_to_drawing_facts(
    page, page_width: float, page_height: float, settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> DrawingFacts:
    """Count a pypdfium2 page's rulings, rectangles and (invisible) text objects, find its
    largest image and list its image boxes.

    Form XObjects are entered one level deep (that is where many producers put tables) for the
    counts and the largest image; deeper ones (a spread's page placed as a form in a form,
    a scanned report's pages) only for the figure candidates (`image_boxes`, `drawing_boxes`,
    `frame_boxes`), so table and OCR decisions do not change with them.
    """
    facts = DrawingFacts(settings=settings)
    thin, long, mark = settings.ruling_thickness_pt, settings.min_ruling_length_pt, settings.min_mark_size_pt
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    largest_image = 0.0

    def visit(obj, depth: int = 0, to_page: Matrix | None = None) -> None:
        nonlocal largest_image
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind == pdfium_c.FPDF_PAGEOBJ_FORM:
            inner = form_to_page_matrix(obj, to_page)
            for i in range(pdfium_c.FPDFFormObj_CountObjects(obj)):
                child = pdfium_c.FPDFFormObj_GetObject(obj, i)
                if depth < MAX_FORM_DEPTH:
                    visit(child, depth + 1, inner)
            return
        if kind == pdfium_c.FPDF_PAGEOBJ_TEXT:
            if depth <= 1:  # counted like the table and OCR facts below
                facts.text_objects += 1
                if pdfium_c.FPDFTextObj_GetTextRenderMode(obj) == pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE:
                    facts.invisible_text_objects += 1
            return
        if kind not in (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE):
            return
        if not pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
            return
        width, height = right.value - left.value, top.value - bottom.value
        box = box_to_page((left.value, bottom.value, right.value, top.value), to_page)
        counted = depth <= 1  # the table and OCR facts see what they always saw
        if kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            if counted:
                largest_image = max(largest_image, max(width, 0) * max(height, 0))
            facts.image_boxes.append(box)
            return
        if height <= thin and width > long:
            facts.horizontal += counted
            facts.frame_boxes.append(box)
        elif width <= thin and height > long:
            facts.vertical += counted
            facts.frame_boxes.append(box)
        elif width > long and height > long:
            segments = pdfium_c.FPDFPath_CountSegments(obj)
            if segments in RECTANGLE_SEGMENTS:
                facts.rectangles += counted
                facts.frame_boxes.append(box)
            elif segments > max(RECTANGLE_SEGMENTS):
                horizontal, vertical, drawn = _path_rulings(obj, segments, settings)
                if counted:
                    facts.horizontal += horizontal
                    facts.vertical += vertical
                if drawn:
                    facts.drawing_boxes.append((*box, drawn))
            elif segments >= LINE_SEGMENTS:  # a straight line that is neither horizontal nor vertical
                facts.drawing_boxes.append((*box, 1))
        elif width > mark and height > mark:
            segments = pdfium_c.FPDFPath_CountSegments(obj)
            if segments > max(RECTANGLE_SEGMENTS):  # a small mark: a dot, an arrow head, a glyph drawn as a path
                facts.drawing_boxes.append((*box, segments))

    raw = page.raw
    for index in range(pdfium_c.FPDFPage_CountObjects(raw)):
        visit(pdfium_c.FPDFPage_GetObject(raw, index))
    facts.image_area_ratio = min(largest_image / max(page_width * page_height, 1.0), 1.0)
    return facts


def _path_rulings(obj, count: int, settings: TableSettings) -> tuple[int, int, int]:
    """(horizontal, vertical, drawn): the axis-aligned straight segments of a multi-segment path
    (a grid drawn as one path; within `axis_slope`) and its curved or diagonal ones.

    A path whose pieces are over `curved_path_share` curves or diagonals (a map, a chart
    line) counts no rulings.
    """
    x, y = ctypes.c_float(), ctypes.c_float()
    horizontal = vertical = other = 0
    previous = None
    slope = settings.axis_slope
    for index in range(min(count, MAX_PATH_SEGMENTS)):
        segment = pdfium_c.FPDFPath_GetPathSegment(obj, index)
        if not pdfium_c.FPDFPathSegment_GetPoint(segment, x, y):
            continue
        point = (x.value, y.value)
        kind = pdfium_c.FPDFPathSegment_GetType(segment)
        if kind == pdfium_c.FPDF_SEGMENT_LINETO and previous is not None:
            dx, dy = abs(point[0] - previous[0]), abs(point[1] - previous[1])
            if dy <= slope * dx and dx > 0:
                horizontal += 1
            elif dx <= slope * dy and dy > 0:
                vertical += 1
            else:
                other += 1
        elif kind == pdfium_c.FPDF_SEGMENT_BEZIERTO:
            other += 1
        previous = point
    if other > settings.curved_path_share * (horizontal + vertical + other):
        return 0, 0, other
    return horizontal, vertical, other


def pdfium_page_to_tables(
    page, chars: list[Char], frame: "PageFrame", settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> list[TableFound]:
    """Ruled tables of a pypdfium2 page: pdfplumber's lines strategy on pdfium edges
    (`rulings.py`) taken into `frame` (the frame `chars` are in), cells filled from
    `chars`; at least 2 x 2 with `min_filled_cells` filled, two rows of it divided into cells
    (`cells.grid_shows_columns`). Every character inside a kept grid's box
    reaches a cell: one no cell holds fills the grid position it falls in, and a grid
    whose such characters do not read as cells is rejected (`cells.grid_to_orphans`).

    Header rows are decided as for unruled tables: a bold first row over a body that is not,
    a row of names over figures, leading rows with a blank stub over labelled rows
    (`headers.stub_header_count`), or leading rows in bold (`headers.bold_header_count`): a
    ruled comparison of periods heads its columns with
    years over a blank stub, in the body's weight, and its years are numbers."""
    from parsers.tables.cells import (
        grid_hides_columns,
        grid_is_drawing,
        grid_shows_columns,
        grid_to_orphans,
        grid_to_owned_chars,
        grid_to_rows,
        orphans_fit_grid,
        spilled_chars,
    )
    from parsers.tables.rulings import edges_to_cell_grids, page_to_edges

    found = []
    segments = None
    for bbox, grid in edges_to_cell_grids(page_to_edges(page, frame, settings)):
        if not grid_shows_columns(grid) or grid_is_drawing(grid, chars, settings):
            continue
        segments = chars_to_segments(chars) if segments is None else segments
        orphans = grid_to_orphans(grid, chars, spilled_chars(bbox, segments, chars))
        if not orphans_fit_grid(orphans, settings):
            continue
        owned = grid_to_owned_chars(grid, chars)  # once: both the test and the reading need it
        if grid_hides_columns(grid, chars, owned, settings):
            continue
        rows, bold = grid_to_rows(grid, chars, orphans, segments, owned, settings)
        kept = [(row, flags) for row, flags in zip(rows, bold) if any(row)]
        if len(kept) < MIN_GRID_SIDE:
            continue
        rows = _drop_empty_columns([row for row, _ in kept])
        if len(rows[0]) < MIN_GRID_SIDE or sum(1 for row in rows for cell in row if cell) < settings.min_filled_cells:
            continue
        first_bold = all(flag for flag, cell in zip(kept[0][1], kept[0][0]) if cell)
        body_bold = all(flag for _, flags in kept[1:] for flag in flags if flag is not None) and any(
            flag for _, flags in kept[1:] for flag in flags
        )
        xs = sorted({round(cell[0], 1) for row in grid for cell in row if cell})
        found.append(
            TableFound(
                rows=rows,
                bbox=tuple(float(v) for v in bbox),
                column_xs=xs,
                header_rows=max(
                    rows_to_header_count(rows, first_bold and not body_bold, settings),
                    stub_header_count(rows, settings),
                    bold_header_count([row for row, _ in kept], [flags for _, flags in kept], settings),
                ),
            )
        )
    return found


def _drop_empty_columns(rows: list[list[str]]) -> list[list[str]]:
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    keep = [i for i in range(width) if any(r[i] for r in rows)]
    return [[r[i] for i in keep] for r in rows]
