"""Per-page passes: what one page holds (`PageLayout`) and its body in reading order.

`pdfium_page_to_layout` runs once per page while the PDF is open: characters ->
segments, the drawing facts, and, only on pages that draw enough rulings, ruled tables
(pdfplumber's table algorithm on pypdfium2's edges, see `tables/rulings.py`). Characters and
rulings are taken into the frame the page is read in (`frames.PageFrame`: the displayed
frame, /Rotate applied), so everything after works as on an unrotated page and
`PageLayout.width`/`height` and every box are in that frame.
`layout_to_blocks` runs after the document-wide furniture decision: it removes
furniture lines, stands each table in for its cells, finds tables without rulings and
cuts the rest into reading-order blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingest.contracts.elements import DroppedText, DropReason
from parsers.tables.grid import TableFound
from parsers.tables.gutters import lines_to_tables_within_columns
from parsers.tables.ruled import page_to_drawing_facts, pdfium_page_to_tables
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.tables.unruled import table_to_segment
from parsers.textlayer.blocks import Block, Line, Placeholder, region_to_blocks, segments_to_lines
from parsers.textlayer.chars import Char, Segment, chars_to_segments
from parsers.textlayer.conservation import segments_to_char_count, segments_to_dropped
from parsers.textlayer.drawings import graphics_to_figure_boxes
from parsers.textlayer.figures import FigureFound, segments_to_figures
from parsers.textlayer.pdfium_chars import page_to_chars
from parsers.textlayer.regions import lines_to_regions
from parsers.textlayer.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings


@dataclass(slots=True)
class PageLayout:
    """`width`/`height` and all boxes: points, top-left origin, in the frame the page is
    read in; `rotation`: that frame's clockwise turn of the unrotated page (degrees), the
    page's /Rotate unless its text runs mostly sideways (`turned` then says by how much the
    reading frame turns the displayed one)."""

    page_no: int
    width: float
    height: float
    segments: list[Segment] = field(default_factory=list)
    rotated: list[Segment] = field(default_factory=list)
    tables: list[TableFound] = field(default_factory=list)
    image_area_ratio: float = 0.0
    #: Share (0-1) of the page's text objects drawn invisible (render mode 3), for `ocr.routing`.
    invisible_text_share: float = 0.0
    text: str = ""
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    #: Figure boxes (`drawings.graphics_to_figure_boxes`: images and dense vector drawings), in the reading frame.
    figure_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    rotation: int = 0
    turned: int = 0  # clockwise degrees the reading frame turns the displayed one (sideways text)
    text_chars: int = 0  # characters of the whole text layer, counted as `conservation` says
    dropped: list[DroppedText] = field(default_factory=list)  # text left out on purpose, and why


def pdfium_page_to_layout(
    document,
    index: int,
    detect_tables: bool,
    settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS,
    table_settings: TableSettings = DEFAULT_TABLE_SETTINGS,
) -> PageLayout:
    """Read page `index` (0-based) with pypdfium2 (ruled tables found with `table_settings`);
    the page is closed before returning."""
    page = document[index]
    try:
        displayed = page.get_rotation() % 360
        textpage = page.get_textpage()
        try:
            chars, frame = page_to_chars(page, textpage, settings)
        finally:
            textpage.close()
        width, height = frame.width, frame.height
        facts = page_to_drawing_facts(page, width, height, table_settings)
        if frame.is_quarter_turned:  # counted in unrotated space: a turned page's rows are its columns
            facts.horizontal, facts.vertical = facts.vertical, facts.horizontal
        tables = []
        if detect_tables and facts.may_hold_ruled_table and chars:
            tables = pdfium_page_to_tables(page, chars, frame, table_settings)  # page_to_edges takes the frame
    finally:
        page.close()
    layout = chars_to_layout(
        chars, index + 1, width, height, image_area_ratio=facts.image_area_ratio, tables=tables, settings=settings
    )
    layout.invisible_text_share = facts.invisible_text_share
    layout.figure_boxes = graphics_to_figure_boxes(
        [frame.box(*box) for box in facts.image_boxes],
        [(*frame.box(*box[:4]), box[4]) for box in facts.drawing_boxes],
        [frame.box(*box) for box in facts.frame_boxes],
        width,
        height,
        settings,
    )
    layout.rotation = frame.rotation
    layout.turned = (frame.rotation - displayed) % 360
    return layout


def chars_to_layout(
    chars: list[Char],
    page_no: int,
    width: float,
    height: float,
    *,
    image_area_ratio: float = 0.0,
    tables: list[TableFound] | None = None,
    warnings: list[str] | None = None,
    settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS,
) -> PageLayout:
    """A page's `PageLayout` from its characters (points, top-left origin), whichever
    reader produced them (pypdfium2 here, pdfminer in `pdfminer_fallback`): segments drawn
    wholly off the page dropped, a run drawn twice at the same place kept once, rotated
    segments set apart, margin line numbers stripped, upright segments grouped into lines.
    `layout.text` keeps every on-page segment (rotated ones too), one per line, for the
    text-layer verdict. `text_chars` counts every segment read; `dropped` records the three
    removals (see `conservation`). Tolerances: `settings`."""
    read = chars_to_segments(chars, settings=settings)
    on_page = [s for s in read if _on_page(s, width, height)]
    segments, overdrawn = split_overdrawn(on_page)
    upright = [s for s in segments if not s.rotated]
    kept = strip_line_numbers(upright, settings)
    kept_ids = {id(s) for s in kept} if len(kept) < len(upright) else set()
    numbers = [s for s in upright if id(s) not in kept_ids] if kept_ids else []
    off_page = [s for s in read if not _on_page(s, width, height)] if len(on_page) < len(read) else []
    layout = PageLayout(
        page_no=page_no,
        width=width,
        height=height,
        segments=kept,
        rotated=[s for s in segments if s.rotated],
        image_area_ratio=image_area_ratio,
        tables=list(tables or []),
        warnings=list(warnings or []),
        text_chars=segments_to_char_count(read),
        dropped=segments_to_dropped(off_page, DropReason.off_page)
        + segments_to_dropped(overdrawn, DropReason.overdrawn)
        + segments_to_dropped(numbers, DropReason.line_number),
    )
    layout.text = "\n".join(s.text for s in segments)
    layout.lines = segments_to_lines(layout.segments, settings)
    return layout


def _on_page(segment: Segment, width: float, height: float) -> bool:
    """False for text drawn wholly outside the visible page (clipped away by the viewer)."""
    return segment.x1 > 0 and segment.x0 < width and segment.bottom > 0 and segment.top < height


def split_overdrawn(segments: list[Segment]) -> tuple[list[Segment], list[Segment]]:
    """(kept, overdrawn): a segment with the same text as an earlier one at the same place
    (corners within 1 pt) is the same run drawn again, as producers fake bold; a reader sees it
    once. Returns the input list itself when nothing is overdrawn (the common case)."""
    seen: set[tuple[str, int, int]] = set()
    overdrawn: list[Segment] = []
    for segment in segments:
        keys = [(segment.text, round(segment.x0 + dx), round(segment.top + dy)) for dx in (0, 0.5) for dy in (0, 0.5)]
        if any(key in seen for key in keys):
            overdrawn.append(segment)
        else:
            seen.update(keys)
    if not overdrawn:
        return segments, []
    drop = {id(s) for s in overdrawn}
    return [s for s in segments if id(s) not in drop], overdrawn


def strip_line_numbers(
    segments: list[Segment], settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
) -> list[Segment]:
    """Without margin line numbers (transcripts, legal drafts): small integers (at most
    `line_number_max_digits`) standing left of all other text (`line_number_margin_pt`) on at
    least `line_number_min_lines` lines, increasing down the page."""
    digits, at_least = settings.line_number_max_digits, settings.line_number_min_lines
    numbers = [s for s in segments if s.text.isdigit() and len(s.text) <= digits]
    if len(numbers) < at_least:
        return segments
    others = [s for s in segments if not (s.text.isdigit() and len(s.text) <= digits)]
    if not others:
        return segments
    text_left = min(s.x0 for s in others)
    margin = [s for s in numbers if s.x1 < text_left - settings.line_number_margin_pt]
    values = [int(s.text) for s in sorted(margin, key=lambda s: s.top)]
    if len(margin) < at_least or values != sorted(values):
        return segments
    drop = {id(s) for s in margin}
    return [s for s in segments if id(s) not in drop]


def layout_to_blocks(
    layout: PageLayout,
    body: list[Line],
    em: float,
    detect_tables: bool,
    table_settings: TableSettings = DEFAULT_TABLE_SETTINGS,
    *,
    text_settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS,
) -> list[Block]:
    """Reading-order blocks of the page body; a table is one block with its `table` (unruled
    ones found with `table_settings`). Lines, regions and blocks are cut with `text_settings`."""
    segments = [s for line in body for s in line.segments]
    tables = list(layout.tables)
    if tables:
        slack = text_settings.inside_box_slack_pt
        segments = [s for s in segments if not any(_inside(s, t.bbox, slack) for t in tables)]
    boxes = [box for box in layout.figure_boxes if not any(_overlap(box, t.bbox) for t in tables)]
    figures, segments = segments_to_figures(segments, boxes, text_settings)
    lines = segments_to_lines(segments, text_settings)
    if detect_tables:
        for start, end, found, rest in reversed(lines_to_tables_within_columns(lines, em, table_settings)):
            tables.extend(found)
            lines[start:end] = rest
    placeholders = [table_to_segment(t, em) for t in tables] + [_figure_to_segment(f, em) for f in figures]
    if placeholders:
        # Tables and figures take part in reading order as one segment each: group again.
        # Without them (most pages) the lines above are already that grouping: grouping
        # the segments of `segments_to_lines`' own lines gives the same lines back.
        lines = segments_to_lines([s for line in lines for s in line.segments] + placeholders, text_settings)
    if not lines:
        return []
    blocks: list[Block] = []
    for region in lines_to_regions(lines, em, text_settings):
        pending: list[Line] = []
        for line in region:
            placeholders = sorted((s for s in line.segments if isinstance(s, Placeholder)), key=lambda s: s.x0)
            if not placeholders:
                pending.append(line)
                continue
            blocks.extend(region_to_blocks(pending, em, text_settings))
            pending = []
            # Every placeholder is a block of its own, in x order (two tables side by side, or a
            # ruled and an unruled one overlapping vertically, or a figure): a placeholder in a
            # text block would be a paragraph with no text and its cells would vanish.
            for placeholder in placeholders:
                lines_of = segments_to_lines([placeholder], text_settings)
                if isinstance(placeholder.stands_for, FigureFound):
                    blocks.append(Block(lines_of, kind="figure", figure=placeholder.stands_for))
                else:
                    blocks.append(Block(lines_of, kind="table", table=placeholder.stands_for))
            rest = [s for s in line.segments if not isinstance(s, Placeholder)]
            if rest:
                blocks.extend(region_to_blocks(segments_to_lines(rest, text_settings), em, text_settings))
        blocks.extend(region_to_blocks(pending, em, text_settings))
    return blocks


def _figure_to_segment(figure: FigureFound, em: float) -> Placeholder:
    """A placeholder segment standing for a figure in the reading-order pass (as tables do);
    read back in `layout_to_blocks` only, into the typed `Block.figure`."""
    x0, top, x1, bottom = figure.bbox
    return Placeholder(
        text="", x0=x0, top=top, x1=x1, bottom=bottom, size=em, bold=0.0, font="", chars=0, stands_for=figure
    )


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(segment: Segment, bbox: tuple[float, float, float, float], slack: float) -> bool:
    """The segment's middle lies in `bbox` widened by `slack` (points) on every side."""
    x0, top, x1, bottom = bbox
    mx, my = (segment.x0 + segment.x1) / 2, (segment.top + segment.bottom) / 2
    return x0 - slack <= mx <= x1 + slack and top - slack <= my <= bottom + slack
