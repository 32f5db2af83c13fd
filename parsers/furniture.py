"""Running headers, footers and page numbers: found by position and repetition.

A line is a furniture candidate when it lies in the top or bottom `EDGE_SHARE` of its
page, or is among the first/last `EDGE_LINES` lines. Its key is its text lower-cased
with digits replaced by `#` and spaces collapsed, so "Page 3 of 10" and "Page 4 of 10"
share one key. A key seen in the same zone on at least `min_pages` pages (or on every
page of a document shorter than that, when it has 2+ pages) is a header or a footer.
A candidate that is only a page number ("7", "- 7 -", "Page 7", "7 of 20", "vii") is
a page number on its own, repeated or not.
"""

from __future__ import annotations

import re
from collections import defaultdict

EDGE_SHARE = 0.1
EDGE_LINES = 2
_PAGE_NUMBER = re.compile(
    r"^\s*(?:page|p\.|seite|pág\.?|पृष्ठ)?\s*[-–—(\[]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—)\]]?\s*"
    r"(?:(?:of|/|de|von)\s*\d{1,4})?\s*$",
    re.IGNORECASE,
)


def furniture_key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


def is_page_number(text: str) -> bool:
    return bool(text.strip()) and bool(_PAGE_NUMBER.match(text))


def line_zone(index: int, boxes: list[tuple[float, float]], page_height: float, em: float) -> str | None:
    """'header', 'footer' or None for line `index`; `boxes` are the page's lines as
    (top, bottom), top to bottom.

    A header line ends in the top `EDGE_SHARE` of the page (or is one of the first
    `EDGE_LINES` lines and ends in the top 1.5 x `EDGE_SHARE`), and is set apart from
    the line below it by at least 0.6 em unless that line is in the zone too; footers
    mirror this at the bottom. A paragraph's first line at the top of a page is
    therefore never a header, however often its words repeat.
    """
    top, bottom = boxes[index]
    count = len(boxes)
    head_limit = EDGE_SHARE * page_height
    if bottom <= head_limit or (index < EDGE_LINES and bottom <= 1.5 * head_limit):
        below = boxes[index + 1] if index + 1 < count else None
        if below is None or below[0] - bottom >= 0.6 * em or below[1] <= head_limit:
            return "header"
    foot_limit = (1 - EDGE_SHARE) * page_height
    if top >= foot_limit or (index >= count - EDGE_LINES and top >= page_height - 1.5 * EDGE_SHARE * page_height):
        above = boxes[index - 1] if index > 0 else None
        if above is None or top - above[1] >= 0.6 * em or above[0] >= foot_limit:
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
