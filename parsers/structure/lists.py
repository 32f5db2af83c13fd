"""List items: markers, the item text without a bullet glyph, and nesting levels.

A list item starts at a line beginning with a marker: a bullet glyph (• ● ○ ◦ ▪ ■ ► - * ...)
or an enumerator (`1.` `1)` `a)` `a.` `(i)` `(1)` `iv.`). Its wrapped lines stay in the item
(blocks.py keeps lines aligned with the item text in the same block). The nesting level
is the rank of the marker's x position among the markers of one run of consecutive
items: the leftmost marker is level 0.
"""

from __future__ import annotations

import re

#: Bullet characters. U+F000-U+F0FF is where symbol fonts (Wingdings, Symbol) land when a
#: PDF maps their glyphs to no Unicode character: Word's square, check-mark and arrow
#: bullets arrive as "\uf0a7", "\uf0fc", "\uf0d8".
_BULLETS = "•●○◦▪■□►‣⁃∙‐\\-\\*–—✓✔➢➤❖◆◇→\uf000-\uf0ff"
LIST_MARKER = re.compile(
    r"^\s*(?P<marker>[" + _BULLETS + r"]|\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcdm]{1,5}|[IVXLCDM]{1,5})[.)]|"
    r"\((?:\d{1,3}|[a-zA-Z]|[ivxlcdm]{1,5})\))(?=\s|$)"
)
#: Markers closer than this (points) are the same nesting level.
LEVEL_TOLERANCE = 3.0


def split_marker(text: str) -> tuple[str | None, str]:
    """(marker, item text without it). The marker ("•", "1.", "a)", "(ii)") is kept
    apart (the parser stores it in `Element.data["marker"]`), so the text is the item."""
    match = LIST_MARKER.match(text)
    if not match:
        return None, text
    return match.group("marker"), text[match.end() :].strip()


def marker_positions_to_levels(positions: list[float]) -> list[int]:
    """Nesting level of each item of one list run from its marker's x (points)."""
    distinct: list[float] = []
    for x in sorted(positions):
        if not distinct or x - distinct[-1] > LEVEL_TOLERANCE:
            distinct.append(x)
    levels = []
    for x in positions:
        levels.append(min(range(len(distinct)), key=lambda i: abs(distinct[i] - x)))
    return levels
