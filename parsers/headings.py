"""Headings with levels, decided over the whole document so levels agree across pages.

1. `body_size` is the font size carrying the most characters (the body text).
2. `block_is_heading`: a short block (<= 3 lines, <= 200 characters, not a sentence
   ending in "." or ",") that is larger than the body, or bold at body size, or starts
   with section numbering ("2", "2.1", "A.", "Chapter 3") in bold or larger type.
3. The document title: on page 1, the largest heading in the upper half, when its type
   is at least `TITLE_RATIO` x the body size and no later heading uses that style.
   It gets level 1 and every other heading starts at level 2.
4. Levels: heading styles (size rounded to 0.5 pt, bold) ranked largest first; a
   numbered heading takes its numbering depth ("2.1" -> 2) instead, and a style used by
   numbered headings of one depth gives that depth to its unnumbered headings too.
5. PDF outline (bookmarks), when present, confirms or corrects: a heading whose text
   matches an outline entry takes that entry's depth (shifted by the title), and a
   block that matches an entry on the same page becomes a heading.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from parsers.blocks import Block
from parsers.tables import caption_of

TITLE_RATIO = 1.3
NUMBERED = re.compile(
    r"^\s*(?:(?:chapter|section|part|appendix|annex|अध्याय|भाग)\s+(?P<word>[\dIVXA-Z]+)"
    r"|(?P<num>\d{1,2}(?:\.\d{1,2}){0,4})\.?(?=\s+\S)|(?P<alpha>[A-Z](?:\.\d{1,2}){1,3})\.?(?=\s+\S)|[A-Z][.)](?=\s+\S)"
    r"|(?P<roman>[IVX]{1,5})\.(?=\s+\S))",
    re.IGNORECASE,
)


def numbering_depth(text: str) -> int | None:
    """1 for "2 Intro", "A. Intro", "Chapter 3"; 2 for "2.1 Scope"; None when unnumbered."""
    match = NUMBERED.match(text)
    if not match:
        return None
    if match.group("num"):
        return match.group("num").count(".") + 1
    if match.group("alpha"):
        return match.group("alpha").count(".") + 1
    return 1


def _style(block: Block) -> tuple[float, bool]:
    return (round(block.size * 2) / 2, block.bold >= 0.5)


def block_is_heading(block: Block, body_size: float) -> bool:
    text = block.text.strip()
    if not text or len(text) > 200 or len(block.lines) > 3 or not any(c.isalpha() for c in text):
        return False
    if caption_of(text) or text.endswith((",", ";")):
        return False
    visible = [c for c in text if not c.isspace()]
    if sum(c.isalpha() for c in visible) < 0.5 * len(visible):
        return False  # "`17,81,841 crore", "2.5 %": figures, not headings
    words = len(text.split())
    sentence = text.endswith(".") and words > 6
    larger = block.size >= body_size + 1.0 and block.size >= 1.08 * body_size
    bold = block.bold >= 0.8 and block.size >= body_size - 0.6
    numbered = numbering_depth(text) is not None and (block.bold >= 0.5 or block.size > body_size + 0.5)
    if larger:
        return words <= 25 and not sentence
    if numbered:
        return len(text) <= 120 and not sentence
    if bold:
        return len(text) <= 120 and len(block.lines) <= 2 and not sentence and block.kind != "list_item"
    return False


def blocks_to_headings(blocks: list[tuple[int, Block]], body_size: float, outline: list[tuple[int, str, int]]) -> str | None:
    """Mark heading blocks (`kind = "title"`, `tag["level"]`) and return the document title.

    `blocks` are (page number, block) in reading order; `outline` is (level from 0,
    title, page number or 0) from the PDF bookmarks.
    """
    headings = [(page, b) for page, b in blocks if b.kind in ("paragraph", "list_item") and block_is_heading(b, body_size)]
    outline_keys = {_key(title): (level, page) for level, title, page in outline if _key(title)}
    for page, block in blocks:
        if block.kind == "paragraph" and len(block.text) <= 200 and (page, block) not in headings:
            hit = outline_keys.get(_key(block.text))
            if hit and hit[1] in (0, page):
                headings.append((page, block))
    for _, block in headings:
        block.kind = "title"
    title_block = _document_title(headings, body_size)
    offset = 1 if title_block is not None else 0
    styles = sorted({_style(b) for _, b in headings if b is not title_block}, key=lambda s: (-s[0], not s[1]))
    depth_of_style: dict[tuple[float, bool], Counter] = defaultdict(Counter)
    for _, block in headings:
        depth = numbering_depth(block.text)
        if depth and block is not title_block:
            depth_of_style[_style(block)][depth] += 1
    for _, block in headings:
        if block is title_block:
            block.tag["level"] = 1
            continue
        depth = numbering_depth(block.text)
        if depth is None and depth_of_style.get(_style(block)):
            depth = depth_of_style[_style(block)].most_common(1)[0][0]
        if depth is None:
            depth = _unnumbered_depth(_style(block), styles, depth_of_style)
        block.tag["level"] = depth + offset
    _apply_outline(headings, outline_keys, title_block, offset)
    return title_block.text if title_block is not None else None


def _unnumbered_depth(style, styles, depth_of_style) -> int:
    """Rank among styles; placed above the numbered levels when larger than all of them."""
    numbered_styles = [s for s in styles if depth_of_style.get(s)]
    if not numbered_styles:
        return styles.index(style) + 1
    larger = [s for s in numbered_styles if (s[0], s[1]) > (style[0], style[1])]
    if not larger:
        return 1
    nearest = min(larger, key=lambda s: (s[0], s[1]))
    return depth_of_style[nearest].most_common(1)[0][0] + 1


def _document_title(headings: list[tuple[int, Block]], body_size: float) -> Block | None:
    first_page = [(b.size, -b.bbox[1], b) for page, b in headings if page == 1 and b.bbox[1] < 500]
    if not first_page:
        return None
    size, _, block = max(first_page, key=lambda t: (t[0], t[1]))
    if size < TITLE_RATIO * body_size or numbering_depth(block.text):
        return None
    others = [b for _, b in headings if b is not block and abs(b.size - size) < 0.5 and _style(b) == _style(block)]
    return block if not others else None


def _key(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())[:80]


def _apply_outline(headings, outline_keys, title_block, offset) -> None:
    if len(outline_keys) < 2:
        return
    title_in_outline = title_block is not None and _key(title_block.text) in outline_keys
    for _, block in headings:
        if block is title_block:
            continue
        hit = outline_keys.get(_key(block.text))
        if hit:
            block.tag["level"] = hit[0] + 1 + (0 if title_in_outline else offset)
