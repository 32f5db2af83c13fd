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
import re
import statistics
from dataclasses import dataclass, field

import pypdfium2.raw as pdfium_c

from parsers.blocks import Line
from parsers.chars import Char, Segment, normalize_text
from parsers.frames import PageFrame

#: A path thinner than this (points) in one direction is a ruling.
RULING_THICKNESS = 2.5
#: Tables without rulings: at least this many rows.
MIN_UNRULED_ROWS = 3
_NUMERIC = re.compile(r"^[\s(\-–+]*[$€£₹¥]?\s*[\d.,]+\s*%?\)?[*]?$")
#: "Table 2: ...", "Fig. 3. ...", "Table 2 Recommended doses": a label and a number, then a
#: separator or a word that does not start in lower case. "Table 2 brings the doses together
#: ..." is a sentence about the table, not its caption.
CAPTION = re.compile(r"^\s*(?i:table|tab\.|figure|fig\.|chart|exhibit|listing|तालिका|सारणी)\s*[\dIVXivx]+[A-Za-z]?"
                     r"(\s*[:.\-–]|\s*$|\s+(?![a-z]))")


@dataclass(slots=True)
class DrawingFacts:
    """What a page draws besides text: rulings, rectangles, multi-segment paths, images."""

    horizontal: int = 0
    vertical: int = 0
    rectangles: int = 0
    image_area_ratio: float = 0.0

    @property
    def may_hold_ruled_table(self) -> bool:
        """At least 3 horizontal and 2 vertical rulings; rectangles count (2 + 2 edges
        each) only when there are 3 or more of them (one box round a note is no table)."""
        boxes = self.rectangles if self.rectangles >= 3 else 0
        return self.horizontal + 2 * boxes >= 3 and self.vertical + 2 * boxes >= 2


@dataclass(slots=True)
class TableFound:
    rows: list[list[str]]
    bbox: tuple[float, float, float, float]
    header_rows: int = 0
    column_xs: list[float] = field(default_factory=list)
    ruled: bool = True


def page_to_drawing_facts(page, page_width: float, page_height: float) -> DrawingFacts:
    """Count a pypdfium2 page's rulings and rectangles and find its largest image.

    Form XObjects are entered one level deep (that is where many producers put tables).
    """
    facts = DrawingFacts()
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    largest_image = 0.0

    def visit(obj) -> None:
        nonlocal largest_image
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind == pdfium_c.FPDF_PAGEOBJ_FORM:
            for i in range(pdfium_c.FPDFFormObj_CountObjects(obj)):
                child = pdfium_c.FPDFFormObj_GetObject(obj, i)
                if pdfium_c.FPDFPageObj_GetType(child) != pdfium_c.FPDF_PAGEOBJ_FORM:
                    visit(child)
            return
        if kind not in (pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_IMAGE):
            return
        if not pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
            return
        width, height = right.value - left.value, top.value - bottom.value
        if kind == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            largest_image = max(largest_image, max(width, 0) * max(height, 0))
            return
        if height <= RULING_THICKNESS and width > 5:
            facts.horizontal += 1
        elif width <= RULING_THICKNESS and height > 5:
            facts.vertical += 1
        elif width > 5 and height > 5:
            segments = pdfium_c.FPDFPath_CountSegments(obj)
            if 4 <= segments <= 5:
                facts.rectangles += 1
            elif segments > 5:
                horizontal, vertical = _path_rulings(obj, segments)
                facts.horizontal += horizontal
                facts.vertical += vertical

    raw = page.raw
    for index in range(pdfium_c.FPDFPage_CountObjects(raw)):
        visit(pdfium_c.FPDFPage_GetObject(raw, index))
    facts.image_area_ratio = min(largest_image / max(page_width * page_height, 1.0), 1.0)
    return facts


def _path_rulings(obj, count: int) -> tuple[int, int]:
    """Axis-aligned straight segments of a multi-segment path (a grid drawn as one path).

    A path that is mostly curves or diagonals (a map, a chart line) counts for nothing.
    """
    x, y = ctypes.c_float(), ctypes.c_float()
    horizontal = vertical = other = 0
    previous = None
    for index in range(min(count, 4000)):
        segment = pdfium_c.FPDFPath_GetPathSegment(obj, index)
        if not pdfium_c.FPDFPathSegment_GetPoint(segment, x, y):
            continue
        point = (x.value, y.value)
        kind = pdfium_c.FPDFPathSegment_GetType(segment)
        if kind == pdfium_c.FPDF_SEGMENT_LINETO and previous is not None:
            dx, dy = abs(point[0] - previous[0]), abs(point[1] - previous[1])
            if dy <= 0.01 * dx and dx > 0:
                horizontal += 1
            elif dx <= 0.01 * dy and dy > 0:
                vertical += 1
            else:
                other += 1
        elif kind == pdfium_c.FPDF_SEGMENT_BEZIERTO:
            other += 1
        previous = point
    if other > 0.2 * (horizontal + vertical + other):
        return 0, 0
    return horizontal, vertical


def pdfium_page_to_tables(page, chars: list[Char], frame: "PageFrame") -> list[TableFound]:
    """Ruled tables of a pypdfium2 page: pdfplumber's lines strategy on pdfium edges
    (`rulings.py`) taken into `frame` (the frame `chars` are in), cells filled from
    `chars`; at least 2 x 2 with 3 filled cells."""
    from parsers.rulings import edges_to_cell_grids, grid_to_rows, page_to_edges

    found = []
    for bbox, grid in edges_to_cell_grids(page_to_edges(page, frame)):
        rows, bold = grid_to_rows(grid, chars)
        kept = [(row, flags) for row, flags in zip(rows, bold) if any(row)]
        if len(kept) < 2:
            continue
        rows = _drop_empty_columns([row for row, _ in kept])
        if len(rows[0]) < 2 or sum(1 for row in rows for cell in row if cell) < 3:
            continue
        first_bold = all(flag for flag, cell in zip(kept[0][1], kept[0][0]) if cell)
        body_bold = all(flag for _, flags in kept[1:] for flag in flags if flag is not None) and any(
            flag for _, flags in kept[1:] for flag in flags)
        xs = sorted({round(cell[0], 1) for row in grid for cell in row if cell})
        found.append(TableFound(rows=rows, bbox=tuple(float(v) for v in bbox), column_xs=xs,
                                header_rows=rows_to_header_count(rows, first_row_bold=first_bold and not body_bold)))
    return found


def _drop_empty_columns(rows: list[list[str]]) -> list[list[str]]:
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    keep = [i for i in range(width) if any(r[i] for r in rows)]
    return [[r[i] for i in keep] for r in rows]


def is_numeric(cell: str) -> bool:
    return bool(cell) and bool(_NUMERIC.match(cell))


def rows_to_header_count(rows: list[list[str]], first_row_bold: bool = False) -> int:
    """How many leading rows are the header (0, 1 or 2).

    Row 0 is a header when it is bold while the body is not, or when none of its cells
    is a number but the rows below carry numbers, or when it is all short text over
    at least two more rows. A second header row is taken when row 0 has blank cells
    (a spanning group label) and row 1 is text only over numeric rows, and when row 0 is
    a banner (one cell of text across a table of 3 or more columns, e.g. "AXE 1 –
    RESSOURCES") above a row of column names: the column names are what every row needs.

    OCR tables use their own rule (`ocr_tables.guess_header_rows`): their grids have no
    bold flags but numbers with units and misread digits. Applied to the corpus's text
    tables that rule changes 7 of 59 header counts (banners, bold-only headers), so the
    two stay apart.
    """
    if len(rows) < 2:
        return 0
    first = rows[0]
    first_text = [c for c in first if c]
    if len(first) >= 3 and len(first_text) == 1 and len(rows) >= 3 and not is_numeric(first_text[0]):
        names = [c for c in rows[1] if c]
        if len(names) >= 2 and not any(is_numeric(c) for c in names) and all(len(c) <= 60 for c in names):
            return 2
    if not first_text or any(is_numeric(c) for c in first_text):
        return 1 if first_row_bold and first_text else 0
    body_numeric = any(is_numeric(c) for row in rows[1:] for c in row)
    short = all(len(c) <= 60 for c in first_text)
    if not (first_row_bold or body_numeric or (short and len(rows) >= 3)):
        return 0
    if len(rows) >= 4 and len(first_text) < len(first) and rows[1] and not any(is_numeric(c) for c in rows[1] if c):
        if all(c for c in rows[1][1:]) and any(is_numeric(c) for row in rows[2:] for c in row):
            return 2
    return 1


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
        while j < len(lines) and lines[j].top - lines[j - 1].bottom < 1.5 * em and (
            len(lines[j].segments) >= 2 or (j + 1 < len(lines) and len(lines[j + 1].segments) >= 2)
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
    return TableFound(rows=rows, bbox=bbox, header_rows=rows_to_header_count(rows, run[0].bold >= 0.8 > run[-1].bold),
                      column_xs=[c[0] for c in columns], ruled=False)


def table_to_segment(table: TableFound, em: float) -> Segment:
    """A placeholder segment standing for a table in the reading-order pass."""
    x0, top, x1, bottom = table.bbox
    return Segment(text="", x0=x0, top=top, x1=x1, bottom=bottom, size=em, bold=0.0, font="", chars=0,
                   tag={"table": table})


def caption_of(text: str) -> bool:
    return bool(CAPTION.match(text))


def same_table_shape(first: list[list[str]], second: list[list[str]]) -> bool:
    """Could `second` continue `first` (same number of columns)?"""
    return bool(first and second) and max(map(len, first)) == max(map(len, second))


def strip_repeated_header(header: list[list[str]], rows: list[list[str]]) -> list[list[str]]:
    """Rows of a continuation without the header it repeats (compared case-insensitively)."""
    count = len(header)
    if count and len(rows) > count and all(
        [c.casefold() for c in a] == [c.casefold() for c in b] for a, b in zip(header, rows[:count])
    ):
        return rows[count:]
    return rows

