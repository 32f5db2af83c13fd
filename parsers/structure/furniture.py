"""Running headers, footers and page numbers: found by position and repetition.

A line is a furniture candidate when it lies in the top or bottom `edge_share` of its
page, or is among the first/last `edge_lines` lines (`FurnitureSettings`). Its key is its text lower-cased
with digits replaced by `#` and spaces collapsed, so "Page 3 of 10" and "Page 4 of 10"
share one key. A key seen in the same zone on at least `min_pages` pages (or on every
page of a document shorter than that, when it has 2+ pages) is a header or a footer.
A candidate that is only a page number ("7", "- 7 -", "Page 7", "7 of 20", "vii") is
a page number on its own, repeated or not.
"""

from __future__ import annotations

import re
from collections import defaultdict

from ingest.contracts.elements import Element, ElementType, PageInfo
from parsers.structure.settings import DEFAULT_FURNITURE_SETTINGS, FurnitureSettings
from parsers.textlayer.blocks import Line
from parsers.textlayer.layout import PageLayout

_PAGE_NUMBER = re.compile(
    r"^\s*(?:page|p\.|seite|pág\.?|पृष्ठ)?\s*[-–—(\[]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—)\]]?\s*"
    r"(?:(?:of|/|de|von)\s*\d{1,4})?\s*$",
    re.IGNORECASE,
)


def furniture_key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


def is_page_number(text: str) -> bool:
    return bool(text.strip()) and bool(_PAGE_NUMBER.match(text))


def line_zone(
    index: int,
    boxes: list[tuple[float, float]],
    page_height: float,
    em: float,
    settings: FurnitureSettings = DEFAULT_FURNITURE_SETTINGS,
) -> str | None:
    """'header', 'footer' or None for line `index`; `boxes` are the page's lines as
    (top, bottom), top to bottom.

    A header line ends in the top `edge_share` of the page (or is one of the first
    `edge_lines` lines and ends in the top `edge_lines_share`), and is set apart from
    the line below it by at least `gap_em` unless that line is in the zone too; footers
    mirror this at the bottom. A paragraph's first line at the top of a page is
    therefore never a header, however often its words repeat.
    """
    top, bottom = boxes[index]
    count = len(boxes)
    head_limit = settings.edge_share * page_height
    if bottom <= head_limit or (index < settings.edge_lines and bottom <= settings.edge_lines_share * page_height):
        below = boxes[index + 1] if index + 1 < count else None
        if below is None or below[0] - bottom >= settings.gap_em * em or below[1] <= head_limit:
            return "header"
    foot_limit = (1 - settings.edge_share) * page_height
    wide_foot_limit = (1 - settings.edge_lines_share) * page_height
    if top >= foot_limit or (index >= count - settings.edge_lines and top >= wide_foot_limit):
        above = boxes[index - 1] if index > 0 else None
        if above is None or top - above[1] >= settings.gap_em * em or above[0] >= foot_limit:
            return "footer"
    return None


def pages_to_furniture_keys(pages: list[list[tuple[str, str]]], min_pages: int) -> set[tuple[str, str]]:
    """(zone, key) pairs repeated often enough to be furniture.

    `pages` holds, per page, the (zone, text) of its candidate lines.
    """
    seen: dict[tuple[str, str], set[int]] = defaultdict(set)
    for page_index, candidates in enumerate(pages):
        for zone, text in candidates:
            key = furniture_key(text)
            if key and len(key) > 1:
                seen[(zone, key)].add(page_index)
    needed = min(min_pages, len(pages)) if len(pages) >= 2 else min_pages + 1
    return {zone_key for zone_key, on_pages in seen.items() if len(on_pages) >= needed}


def layout_to_furniture_candidates(
    layout: PageLayout, em: float, settings: FurnitureSettings = DEFAULT_FURNITURE_SETTINGS
) -> list[tuple[str, str]]:
    """(zone, text) of the lines at the page's top and bottom edges."""
    boxes = [(line.top, line.bottom) for line in layout.lines]
    out = []
    for i, line in enumerate(layout.lines):
        zone = line_zone(i, boxes, layout.height, em, settings)
        if zone:
            out.append((zone, line.text))
    return out


def split_furniture(
    layout: PageLayout, keys: set[tuple[str, str]], em: float, settings: FurnitureSettings = DEFAULT_FURNITURE_SETTINGS
) -> tuple[list[tuple[str, Line]], list[Line]]:
    """(furniture as (type, line), body lines). Types: header, footer, page_number.

    Besides repeated lines (`keys`) and page numbers, a short line in small type
    (`small_header_size` x body size or less) above all other text is a header even on a
    one-page document. A line inside a ruled table's box is no furniture: the table's cells
    hold its characters (a long list set as a ruled table repeats its header row on every
    page, where it would otherwise read as a running header and be held twice).
    """
    furniture, body = [], []
    count = len(layout.lines)
    boxes = [(line.top, line.bottom) for line in layout.lines]
    tables = [table.bbox for table in layout.tables]
    for i, line in enumerate(layout.lines):
        zone = line_zone(i, boxes, layout.height, em, settings)
        if zone and tables and _inside_table(line, tables):
            zone = None
        small_top = (
            zone == "header"
            and i == 0
            and count > 1
            and line.size <= settings.small_header_size * em
            and len(line.text) <= settings.max_chars
        )
        small_top = small_top or _alone_at_edge(layout, i, em, settings)
        if zone and is_page_number(line.text):
            furniture.append(("page_number", line))
        elif zone and (
            (zone, furniture_key(line.text)) in keys
            or _carries_page_number(line.text, layout.page_no, settings)
            or small_top
        ):
            furniture.append((zone, line))
        else:
            body.append(line)
    return furniture, body


def _inside_table(line: Line, tables: list[tuple[float, float, float, float]]) -> bool:
    """The line's middle lies inside one of the table boxes (x0, top, x1, bottom; points)."""
    x, y = (line.x0 + line.x1) / 2, (line.top + line.bottom) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in tables)


#: Fewest lines a page needs before its first or last line can stand alone at an edge: with
#: two lines there is no body to be set apart from.
ALONE_MIN_LINES = 3


def _alone_at_edge(layout: PageLayout, index: int, em: float, settings: FurnitureSettings) -> bool:
    """The first or last line, short, inside the outer `alone_share` of the page and set apart
    from the body by at least `alone_gap_em`: a running header or footer even on a one-page file."""
    lines = layout.lines
    if len(lines) < ALONE_MIN_LINES or len(lines[index].text) > settings.max_chars:
        return False
    line, gap = lines[index], settings.alone_gap_em * em
    if index == 0:
        return line.bottom <= settings.alone_share * layout.height and lines[1].top - line.bottom >= gap
    if index == len(lines) - 1:
        return line.top >= (1 - settings.alone_share) * layout.height and line.top - lines[-2].bottom >= gap
    return False


def _carries_page_number(text: str, page_no: int, settings: FurnitureSettings) -> bool:
    """A short edge line that starts or ends with this page's number ("2 Z. Shen et al.")."""
    words = text.split()
    return (
        1 < len(words) <= settings.page_number_max_words
        and len(text) <= settings.max_chars
        and str(page_no) in (words[0], words[-1])
    )


def ocr_furniture_to_types(
    elements: list[Element],
    keys: set[tuple[str, str]],
    ocr_pages: set[int],
    pages: list[PageInfo],
    settings: FurnitureSettings = DEFAULT_FURNITURE_SETTINGS,
) -> list[Element]:
    """On OCR'd pages, retype edge lines that repeat the text layer's running headers or
    footers, or are page numbers, as furniture (OCR sees them as ordinary text)."""
    out = []
    for element in elements:
        if element.page in ocr_pages and not element.is_furniture and element.type is not ElementType.table:
            height = pages[element.page - 1].height or 1.0
            band = settings.ocr_edge_share * height
            zone = "header" if element.bbox[3] <= band else "footer" if element.bbox[1] >= height - band else None
            key = furniture_key(element.text)
            if zone and is_page_number(element.text):
                element = element.model_copy(update={"type": ElementType.page_number, "heading_level": None})
            elif zone and (zone, key) in keys:
                kind = ElementType.header if zone == "header" else ElementType.footer
                element = element.model_copy(update={"type": kind, "heading_level": None})
        out.append(element)
    return out
