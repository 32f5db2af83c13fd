"""Headings with levels, decided over the whole document so levels agree across pages.

1. `body_size` is the font size carrying the most characters of running text
   (`prose_body_type`: paragraphs of two lines or more; table cells and one-line labels
   are not counted, since a filing's tables set in 8 pt outweigh its 10 pt prose).
2. `block_is_heading`: a short block (<= `heading_max_lines` lines, heading-shaped as
   `heading_shape.heading_shape_ok` says) that is larger than the body, or bold at body size,
   or starts with section numbering ("2", "2.1", "A.", "Chapter 3") in bold or larger type,
   and that its neighbours do not reject (`heading_context.context_rejects_heading`).
3. The document title: on page 1, the largest heading in the upper half, when its type
   is at least `TITLE_RATIO` x the body size and no later heading uses that style.
   It gets level 1 and every other heading starts at level 2. A contents heading
   ("Table of Contents") is never the title (`parsers.toc`).
4. A heading-shaped block that a PDF outline entry names on its page becomes a heading (a
   bookmark does not make a sentence or a key figure a heading: Word bookmarks every
   paragraph given a heading style, mis-styled sentences included); a heading whose entry
   sits on another page is a contents line or a mention, no heading.
5. Levels (`heading_levels.headings_to_levels`): the outline leads when it names the
   headings, then section labels and numbering (PART > Item > Note; 1 > 1.1), then type.
6. Contents headings take the level of the heading after their entries, so the contents
   section closes there and never becomes the parent of the body (`parsers.toc`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from parsers.structure.captions import names_statement, table_title_of
from parsers.structure.heading_context import SENTENCE_END, context_rejects_heading
from parsers.structure.heading_levels import headings_to_levels, numbering_depth, outline_key, style_of
from parsers.structure.heading_shape import display_is_figure, heading_shape_ok, is_prose
from parsers.structure.lists import LIST_MARKER, split_marker
from parsers.structure.settings import DEFAULT_STRUCTURE_SETTINGS, StructureSettings
from parsers.structure.toc import is_toc_heading, toc_level
from parsers.textlayer.blocks import Block

TITLE_RATIO = 1.3
#: A document title starts above this (points from the top of page 1, ~60 % of A4 or Letter):
#: display type lower on a cover is a slogan (an annual report's 110 pt motto near the foot).
TITLE_MAX_TOP = 500.0


@dataclass(frozen=True)
class BodyType:
    """The type of the running text, which a heading must stand apart from.

    `size`: points, in 0.5 pt steps. `bold_font`: the running text's font name when that
    font itself reads as bold (pdfium's weight or flags say bold for most of its characters):
    a block in that font at body size is body text, not emphasis (some filings set every
    paragraph in a font flagged bold; each bold line then was a heading, lead-in sentences and
    table column labels included). None when the body is regular."""

    size: float
    bold_font: str | None = None


#: A block counts as running text for `prose_body_type` from this many lines: a one-line block
#: is as often a label, a table row read as text or a footnote as a line of prose.
PROSE_MIN_LINES = 2


def prose_body_type(blocks: list[tuple[int, Block]], fallback_size: float) -> BodyType:
    """The body type measured over running text only: the size (0.5 pt steps) carrying the most
    characters in paragraph and list blocks of at least `PROSE_MIN_LINES` lines, and the font
    carrying the most characters at that size (`BodyType.bold_font` when it reads as bold).

    Tables are blocks of their own and never counted: counted over every character, a 10-K's
    8 pt tables outweighed its 10 pt prose (an earnings release: 6 pt table text against
    10.6 pt prose), so every prose line was "larger than the body" and the levels
    shifted. `fallback_size` (the size over all characters) is kept when there is no such prose."""
    sizes: Counter = Counter()
    fonts: dict[float, Counter] = defaultdict(Counter)
    bold_chars: Counter = Counter()
    for _, block in blocks:
        if block.kind not in ("paragraph", "list_item") or len(block.lines) < PROSE_MIN_LINES:
            continue
        for line in block.lines:
            for segment in line.segments:
                if not segment.text.strip():
                    continue
                size, chars = round(segment.size * 2) / 2, max(segment.chars, 1)
                sizes[size] += chars
                fonts[size][segment.font] += chars
                bold_chars[(size, segment.font)] += chars * segment.bold
    if not sizes:
        return BodyType(fallback_size)
    size = sizes.most_common(1)[0][0]
    font, chars = fonts[size].most_common(1)[0]
    bold = bold_chars[(size, font)] >= 0.5 * chars
    return BodyType(max(size, 1.0), font if bold and font else None)


def _main_font(block: Block) -> str:
    """The font carrying most of the block's characters."""
    fonts: Counter = Counter()
    for line in block.lines:
        for segment in line.segments:
            fonts[segment.font] += max(segment.chars, len(segment.text))
    return fonts.most_common(1)[0][0] if fonts else ""


def emphasised(block: Block, bold_body_font: str | None = None) -> float:
    """The block's bold share (0-1), 0 when it is set in the body's own bold font
    (`BodyType.bold_font`): a weight the whole text has is no emphasis."""
    if bold_body_font is not None and _main_font(block) == bold_body_font:
        return 0.0
    return block.bold


def set_apart_by_type(
    size: float, bold: float, body_size: float, settings: StructureSettings = DEFAULT_STRUCTURE_SETTINGS
) -> bool:
    """Larger than the body (`_larger`) or bold (`heading_bold_min_share` of its characters) at
    about body size (`heading_bold_size_slack`): the type evidence every text-layer heading
    rule starts from. Sizes in points."""
    bold_at_body_size = bold >= settings.heading_bold_min_share and size >= body_size - settings.heading_bold_size_slack
    return _larger(size, body_size, settings) or bold_at_body_size


def _larger(size: float, body_size: float, settings: StructureSettings) -> bool:
    """Set larger than the body by `heading_larger_min_points` and `heading_larger_min_ratio`."""
    return (
        size >= body_size + settings.heading_larger_min_points and size >= settings.heading_larger_min_ratio * body_size
    )


def block_is_heading(
    block: Block,
    body_size: float,
    bold_body_font: str | None = None,
    text_right: float | None = None,
    settings: StructureSettings = DEFAULT_STRUCTURE_SETTINGS,
) -> bool:
    """Heading-shaped (`heading_shape_ok`), at most 3 lines, its display type not a figure
    (`display_is_figure`), not several sentences (`is_prose`), no line spread as columns
    (`_spread_as_columns`), not a bulleted item of more than `LIST_HEADING_WORDS` words, and
    set apart by type (limits in `settings`): larger than the body (<= `heading_large_max_words`
    words), or numbered in bold or larger type (<= `heading_emphasised_max_chars` characters),
    or bold at body size (as many characters, <= `heading_bold_max_lines` lines). Bold in the
    body's own bold font (`bold_body_font`, see `BodyType`) is no emphasis. `text_right`: where
    the page's text ends on the right (points), for `_spread_as_columns`."""
    text = block.text.strip()
    if (
        len(block.lines) > settings.heading_max_lines
        or not heading_shape_ok(text)
        or display_is_figure(block)
        or is_prose(text)
    ):
        return False
    if any(_spread_as_columns(line, text_right) for line in block.lines):
        return False
    words = len(text.split())
    if words > LIST_HEADING_WORDS and (block.kind == "list_item" or _bulleted(text)):
        return False
    weight = emphasised(block, bold_body_font)
    larger = _larger(block.size, body_size, settings)
    bold = weight >= settings.heading_bold_min_share and block.size >= body_size - settings.heading_bold_size_slack
    numbered = numbering_depth(text) is not None and (
        weight >= settings.numbered_heading_min_bold_share
        or block.size > body_size + settings.numbered_heading_larger_points
    )
    if larger:
        return words <= settings.heading_large_max_words
    if numbered:
        return len(text) <= settings.heading_emphasised_max_chars
    if bold:
        short = len(text) <= settings.heading_emphasised_max_chars
        return short and len(block.lines) <= settings.heading_bold_max_lines and block.kind != "list_item"
    return False


#: A bulleted heading names its topic in at most this many words; a longer bulleted item in
#: bold or large type is a highlight ("• Company is increasing 2023 full-year guidance
#: midpoints for adjusted operational sales ..." on an earnings release's first page).
LIST_HEADING_WORDS = 12


def _bulleted(text: str) -> bool:
    """Opens with a bullet glyph ("•", "-", "▪"), not with numbering ("1.", "(a)"): numbered
    headings are common, bulleted statements are list items."""
    marker, _ = split_marker(text)
    return marker is not None and not marker[0].isalnum() and not marker.startswith("(")


#: Words of one line further apart than this many font sizes stand in separate columns.
COLUMN_GAP_EM = 3.0


def _spread_as_columns(line, text_right: float | None = None) -> bool:
    """Holds three or more runs of text, each further than `COLUMN_GAP_EM` font sizes from the
    next: a row of column labels ("Consumer Health   Pharmaceutical   MedTech   Total" over a
    table), not one heading. A heading's words are set together; two runs are allowed when the
    second is a tag set flush right, ending within 1 em of `text_right` (the page's text edge):
    a game manual's "Armored Ogre ... Creatures". Two labels side by side that end short of
    it are columns ("Cash Flows from   Capital Expenditures" over a filing's infographic: as one
    heading it headed the next two pages)."""
    segments = sorted((s for s in line.segments if s.text.strip()), key=lambda s: s.x0)
    gaps = sum(b.x0 - a.x1 > COLUMN_GAP_EM * max(a.size, 1.0) for a, b in zip(segments, segments[1:]))
    if gaps >= 2:
        return True
    return gaps == 1 and text_right is not None and segments[-1].x1 < text_right - max(segments[-1].size, 1.0)


def numbered_line_is_heading(
    block: Block, following: Block | None, body_size: float, bold_body_font: str | None = None
) -> bool:
    """A line opening with an enumerator ("(1)", "2)", "a.") that is styled like a heading
    (>= 0.8 pt larger than the body, or bold and followed by a longer paragraph) and followed
    by a body paragraph is a numbered heading ("(1) 「감염병의 예방 및 관리에 관한 법률」 개정" in
    12.5 pt over 11.5 pt text), not a list item: items run on in body type. One line, <= 80
    characters, no sentence end."""
    text = block.text.strip()
    marker, rest = split_marker(text)
    if marker is None or not marker[0].isalnum() and not marker.startswith("(") or not rest:
        return False
    if len(block.lines) != 1 or len(text) > 80 or text.endswith(SENTENCE_END) or not heading_shape_ok(rest):
        return False
    larger = block.size >= body_size + 0.8
    if not (larger or emphasised(block, bold_body_font) >= 0.8) or following is None or following.kind != "paragraph":
        return False
    follows_as_body = abs(following.size - body_size) <= 0.6 and not LIST_MARKER.match(following.lines[0].text)
    # Larger type is evidence enough; a bold line at body size needs a longer paragraph under
    # it. The body under "(3) 「약관의 규제에 관한 법률」상 약관해석의 원칙" in a Korean legal
    # notice is one short line before a quoted box, as long as the heading.
    return follows_as_body and (larger or len(following.text.split()) > len(text.split()))


def blocks_to_headings(
    blocks: list[tuple[int, Block]],
    body_size: float,
    outline: list[tuple[int, str, int]],
    bold_body_font: str | None = None,
    settings: StructureSettings = DEFAULT_STRUCTURE_SETTINGS,
) -> str | None:
    """Mark heading blocks (`kind = "title"`, `level`) and return the document title.

    `blocks` are (page number, block) in reading order; `outline` is (level from 0,
    title, page number or 0) from the PDF bookmarks. Blocks already of kind "title" (run-in
    leads, `heading_blocks.blocks_to_run_in_split`) are headings; others are judged here.
    `body_size` and `bold_body_font` are the running text's type (`prose_body_type`). Levels:
    `heading_levels.headings_to_levels` (outline, then numbering, then type).
    """
    blocks_order = {id(b): i for i, (_, b) in enumerate(blocks)}
    text_right: dict[int, float] = {}
    for page, block in blocks:
        text_right[page] = max(text_right.get(page, 0.0), block.bbox[2])
    headings = [(page, b) for page, b in blocks if b.kind == "title"]  # run-in leads, decided when split
    for index, (page, block) in enumerate(blocks):
        if block.kind not in ("paragraph", "list_item"):
            continue
        previous = blocks[index - 1][1] if index and blocks[index - 1][0] == page else None
        following = blocks[index + 1][1] if index + 1 < len(blocks) and blocks[index + 1][0] == page else None
        if block_is_heading(block, body_size, bold_body_font, text_right[page], settings):
            if context_rejects_heading(previous, block, following) is None:
                headings.append((page, block))
        elif numbered_line_is_heading(block, following, body_size, bold_body_font):
            headings.append((page, block))
    headings.sort(key=lambda item: blocks_order[id(item[1])])
    outline_keys = {outline_key(title): (level, page) for level, title, page in outline if outline_key(title)}
    chosen = {id(b) for _, b in headings}
    for page, block in blocks:
        if block.kind == "paragraph" and id(block) not in chosen and heading_shape_ok(block.text):
            hit = outline_keys.get(outline_key(block.text))
            if hit and hit[1] in (0, page):
                headings.append((page, block))
    outline_pages: dict[str, set[int]] = defaultdict(set)
    for _, title, page in outline:
        outline_pages[outline_key(title)].add(page)
    elsewhere = {
        id(b) for page, b in headings if _outline_elsewhere(b, page, outline_pages, settings.outline_page_slack)
    }
    for _, block in headings:
        if id(block) in elsewhere:
            block.kind = "paragraph"
    headings = [(page, b) for page, b in headings if id(b) not in elsewhere]
    for _, block in headings:
        block.kind = "title"
    contents = _contents_headings(blocks)
    headings = [(page, b) for page, b in headings if id(b) not in contents]  # ranked; contents placed last
    title_block = _document_title(headings, body_size)
    levels = headings_to_levels(headings, title_block, outline, settings)
    for _, block in headings:
        block.level = levels[id(block)]
    _add_table_page_titles(blocks, bold_body_font)
    _place_contents_headings(blocks, contents)
    return title_block.text if title_block is not None else None


#: A table page's title starts this close to the top of the page (points: two inches).
PAGE_TITLE_MAX_TOP = 144.0
#: ... has at most this many words ...
PAGE_TITLE_MAX_WORDS = 10
#: ... and at most this many label blocks (a unit line, column labels) stand between it and
#: the page's first table.
PAGE_TITLE_MAX_LABELS = 10
#: A label block has at most 3 lines and this many words ("2022 Sales to customers by segment
#: of business" set on three lines over a column); more is running text.
LABEL_MAX_WORDS = 12


def _is_running_text(block: Block) -> bool:
    return len(block.lines) > 3 or len(block.text.split()) > LABEL_MAX_WORDS


#: A period over a table's columns ("SECOND QUARTER", "Six Months"), not the table's title.
_PERIOD_LABEL = re.compile(r"(?i)\b(?:first|second|third|fourth)\s+quarter\b|\b(?:three|six|nine|twelve)\s+months\b")


def _add_table_page_titles(blocks: list[tuple[int, Block]], bold_body_font: str | None) -> None:
    """A page of tables opens with its title: the page's first block, near the top
    (`PAGE_TITLE_MAX_TOP`), one line in bold of at most `PAGE_TITLE_MAX_WORDS` words,
    heading-shaped, not a unit or period line (`captions.table_title_of` without a statement
    name, `_PERIOD_LABEL`), with only label blocks (unit line, column labels: `_is_running_text`
    false) between it and the page's first table. It becomes a heading at the level of the heading before it, so it
    closes that heading (a new page-level structure starts) whatever its type size.

    The schedules of an earnings release are tables under titles set smaller than the prose
    ("Supplementary Sales Data" at 6.7 pt over 10.5 pt prose); not headings by type, they left
    the release's last prose heading ("NOTE TO INVESTORS CONCERNING FORWARD-LOOKING
    STATEMENTS:") or its income statement open over the 15 pages of schedules."""
    level = 1
    first_of_page: dict[int, int] = {}
    for index, (page, _) in enumerate(blocks):
        first_of_page.setdefault(page, index)
    candidates: set[int] = set()
    for page, start in first_of_page.items():
        block = blocks[start][1]
        text = block.text.strip()
        if (
            block.kind != "paragraph"
            or len(block.lines) != 1
            or block.bbox[1] > PAGE_TITLE_MAX_TOP
            or emphasised(block, bold_body_font) < 0.8
            or len(text.split()) > PAGE_TITLE_MAX_WORDS
            or not heading_shape_ok(text)
            or (table_title_of(text) and not names_statement(text))
            or _PERIOD_LABEL.search(text)
        ):
            continue
        labels = 0
        for next_page, following in blocks[start + 1 :]:
            if next_page != page or following.kind == "table":
                break
            labels += 1
            if following.kind == "title" or _is_running_text(following) or labels > PAGE_TITLE_MAX_LABELS:
                break
        else:
            continue
        if next_page == page and following.kind == "table":
            candidates.add(id(block))
    for _, block in blocks:
        if id(block) in candidates:
            block.kind = "title"
            block.level = level
        elif block.kind == "title" and block.level is not None:
            level = block.level


def _contents_headings(blocks: list[tuple[int, Block]]) -> set[int]:
    """Ids of the title blocks that head a table of contents (`toc.is_toc_heading`),
    judged on their text and the lines of the body blocks up to the next title."""
    found: set[int] = set()
    current: Block | None = None
    lines: list[str] = []
    for _, block in [*blocks, (0, None)]:
        if block is None or block.kind == "title":
            if current is not None and is_toc_heading(current.text, lines):
                found.add(id(current))
            current, lines = block, []
        elif current is not None:
            lines.extend(line.text for line in block.lines)
    return found


def _place_contents_headings(blocks: list[tuple[int, Block]], contents: set[int]) -> None:
    """Give each contents heading the level of the next non-contents heading (`toc.toc_level`)."""
    titles = [b for _, b in blocks if b.kind == "title"]
    for index, block in enumerate(titles):
        if id(block) in contents:
            following = next((b for b in titles[index + 1 :] if id(b) not in contents), None)
            block.level = toc_level(following.level if following is not None else None)


def _document_title(headings: list[tuple[int, Block]], body_size: float) -> Block | None:
    first_page = [(b.size, -b.bbox[1], b) for page, b in headings if page == 1 and b.bbox[1] < TITLE_MAX_TOP]
    if not first_page:
        return None
    size, _, block = max(first_page, key=lambda t: (t[0], t[1]))
    if size < TITLE_RATIO * body_size or numbering_depth(block.text):
        return None
    others = [b for _, b in headings if b is not block and abs(b.size - size) < 0.5 and style_of(b) == style_of(block)]
    return block if not others else None


def _outline_elsewhere(block: Block, page: int, outline_pages: dict[str, set[int]], slack: int) -> bool:
    """The PDF's bookmarks place the section this text names on another page: here it is a
    contents line or a mention, not the section's heading. A 10-K's contents page may end with
    a bold "Certifications"; taken as the heading of that name, it would get the bookmark's
    level and stay open, as the parent of every Item, until the real one 120 pages later.
    `slack`: pages a bookmark and its heading may lie apart (`outline_page_slack`)."""
    pages = outline_pages.get(outline_key(block.text)) if outline_key(block.text) else None
    return bool(pages) and 0 not in pages and all(abs(p - page) > slack for p in pages)


# One decider for OCR'd lines too: parsers/ocr/layout.py measures the evidence (a line's size
# relative to the page's body text from pixel boxes, bold from stroke width, words, Tesseract's
# confidence) and asks here. Sizes measured from pixels are coarser than a font size, hence
# the wider ratios. Measured on the scanned fixtures (body 10.5 pt): title 20 pt -> 2.0,
# 16 pt bold -> 1.67, 13 pt bold -> 1.58, body lines 0.9-1.13 (a line of descenders or digits).
MEASURED_TITLE_RATIOS = ((1, 1.85), (2, 1.62), (3, 1.22))
#: A bold line at body size is a heading of the lowest level (the text-layer parser numbers
#: the fixtures' 11 pt bold headings 4: title 1, then 16 pt 2, 13 pt 3).
MEASURED_BOLD_LEVEL = 4
MEASURED_MAX_WORDS = 15
MEASURED_BOLD_MAX_WORDS = 10
MEASURED_MIN_CONFIDENCE = 50  # a low-confidence "heading" is mostly a stamp, a signature or specks


def measured_heading_level(
    size_ratio: float, bold: bool, words: int, confidence: float, letter_share: float, horizontal: bool
) -> int | None:
    """Heading level (1-4) of a line whose type was measured, not read (OCR), None for body text.

    `size_ratio`: the line's size / the page's body text size; `confidence`: 0-100;
    `letter_share`: letters among its visible characters. Short, confidently read, mostly
    letters and horizontal (not a stamp, a big number or a sideways margin note), and set
    apart by size (levels 1-3 by `MEASURED_TITLE_RATIOS`) or bold at about body size (level 4)."""
    if words > MEASURED_MAX_WORDS or confidence < MEASURED_MIN_CONFIDENCE or letter_share < 0.5 or not horizontal:
        return None
    for level, ratio in MEASURED_TITLE_RATIOS:
        if size_ratio >= ratio:
            return level
    if bold and words <= MEASURED_BOLD_MAX_WORDS and size_ratio >= 0.9:
        return MEASURED_BOLD_LEVEL
    return None
