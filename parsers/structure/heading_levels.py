"""Heading levels: what the document declares first, then its numbering, then its type.

Once the headings are chosen (`headings.blocks_to_headings`), each gets a level. A document
says how its sections nest in three ways, and the more explicit one leads:

1. Its outline (the PDF's bookmarks): when enough of the outline's entries are found among
   the headings (`StructureSettings.outline_lead_min_share`, `outline_lead_min_matches`), the
   outline is the heading tree: a heading named by an entry takes that entry's depth, and every
   other heading goes below the outline's deepest level, keeping its own order there. A heading
   the author did not bookmark never closes a bookmarked section.
2. Its numbering (`numbering_to_levels`): section labels ("PART II", "Item 7.", "Note 7 -",
   "Chapter 3") rank by what they name (`LABEL_TIER`), so a 10-K's PART > Item > Note nest
   whatever their type (a filing sets all three in bold at the body size); a decimal
   number ("3.1") nests under the heading numbered by its prefix ("3", "Chapter 3"), or under the
   open section label; an unnumbered heading set no larger than the section label above it is
   that section's subsection ("Goodwill impairment testing" under "Note 7 - Goodwill").
3. Its type (`_typographic_depth`): heading styles (size to 0.5 pt, bold) ranked largest first;
   a style used by decimal-numbered headings of one depth gives that depth to its unnumbered
   headings ("References" in the style of "5 Results"), larger styles go above.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from parsers.structure.settings import DEFAULT_STRUCTURE_SETTINGS, StructureSettings
from parsers.textlayer.blocks import Block

NUMBERED = re.compile(
    r"^\s*(?:(?:chapter|section|part|appendix|annex|अध्याय|भाग)\s+(?P<word>[\dIVXA-Z]+)"
    r"|(?P<num>\d{1,2}(?:\.\d{1,2}){0,4})\.?(?=\s+\S)|(?P<alpha>[A-Z](?:\.\d{1,2}){1,3})\.?(?=\s+\S)|[A-Z][.)](?=\s+\S)"
    r"|(?P<roman>[IVX]{1,5})\.(?=\s+\S))",
    re.IGNORECASE,
)
#: A section label with its number: "PART II", "Item 7.", "Item 1A.", "Note 7 - Goodwill",
#: "Chapter 3", "Article 12", "Schedule B". The label word names the level (`LABEL_TIER`).
SECTION_LABEL = re.compile(
    r"^\s*(?P<label>part|chapter|section|article|item|note|appendix|annex|schedule|exhibit|अध्याय|भाग)"
    r"\s+(?P<number>\d{1,3}(?:\.\d{1,2})*[A-Z]?|[IVXLC]{1,6}|[A-Z])(?=$|[\s.:\-–—)])",
    re.IGNORECASE,
)


#: How deep each section label sits, outermost 0: a Part holds Chapters, a Chapter Articles,
#: an Article Sections; a filing's PART holds Items and an Item (8, the statements) its Notes;
#: appendices and annexes stand beside chapters, schedules and exhibits beside the notes. The
#: labels a document uses are ranked by these tiers (a 10-K: PART 1, Item 2, Note 3), whatever
#: comes first on its pages (a cover page or a contents line may show an Item before a Part).
LABEL_TIER = {
    "part": 0,
    "भाग": 0,
    "chapter": 1,
    "अध्याय": 1,
    "appendix": 1,
    "annex": 1,
    "article": 2,
    "section": 3,
    "item": 3,
    "note": 4,
    "schedule": 4,
    "exhibit": 4,
}


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


def section_label(text: str) -> tuple[str, str] | None:
    """(label word in lower case, its number in upper case) for "Item 7. Management's ..." ->
    ("item", "7"); None when the text opens with no section label."""
    match = SECTION_LABEL.match(text)
    return (match.group("label").casefold(), match.group("number").upper()) if match else None


def _decimal_number(text: str) -> str | None:
    """The decimal number opening `text` ("3.1" for "3.1 Scope"), None for none."""
    match = NUMBERED.match(text)
    return match.group("num") if match and match.group("num") else None


def style_of(block: Block) -> tuple[float, bool]:
    """(size to 0.5 pt, bold): the style that ranks a heading by type."""
    return (round(block.size * 2) / 2, block.bold >= 0.5)


def outline_key(text: str) -> str:
    """A heading's or bookmark's text reduced for matching: letters and digits, case-folded,
    first 80 characters."""
    return re.sub(r"\W+", "", text.casefold())[:80]


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


def _typographic_depth(headings: list[Block]) -> dict[int, int]:
    """Depth by type and decimal numbering, per block id (see the module docstring, 3.)."""
    styles = sorted({style_of(b) for b in headings}, key=lambda s: (-s[0], not s[1]))
    depth_of_style: dict[tuple[float, bool], Counter] = defaultdict(Counter)
    for block in headings:
        depth = numbering_depth(block.text)
        if depth:
            depth_of_style[style_of(block)][depth] += 1
    depths = {}
    for block in headings:
        depth = numbering_depth(block.text)
        if depth is None and depth_of_style.get(style_of(block)):
            depth = depth_of_style[style_of(block)].most_common(1)[0][0]
        if depth is None:
            depth = _unnumbered_depth(style_of(block), styles, depth_of_style)
        depths[id(block)] = depth
    return depths


def numbering_to_levels(headings: list[Block], typographic: dict[int, int]) -> dict[int, int]:
    """Levels (from 1) per block id, by the numbering the headings declare (module docstring,
    2.), falling back to `typographic` depths where a heading declares nothing. Documents
    without section labels keep their typographic depths."""
    used = {label[0] for block in headings if (label := section_label(block.text)) is not None}
    if not used:
        return dict(typographic)
    tiers = sorted({LABEL_TIER[label] for label in used})
    ranks = {label: tiers.index(LABEL_TIER[label]) + 1 for label in used}
    levels: dict[int, int] = {}
    # open headings, outermost first: (level, number or None, block, labelled)
    stack: list[tuple[int, str | None, Block, bool]] = []
    for block in headings:
        label = section_label(block.text)
        decimal = _decimal_number(block.text)
        open_label = next((entry for entry in reversed(stack) if entry[3]), None)
        if label is not None:
            level = ranks[label[0]]
        elif decimal is not None:
            prefix = decimal.rpartition(".")[0] if "." in decimal else None
            parent = next((entry for entry in reversed(stack) if prefix and entry[1] == prefix), None)
            if parent is not None:
                level = parent[0] + 1
            elif open_label is not None:
                level = open_label[0] + decimal.count(".") + 1
            else:
                level = decimal.count(".") + 1
        elif open_label is not None and style_of(block)[0] <= style_of(open_label[2])[0]:
            level = open_label[0] + 1
        else:
            level = typographic[id(block)]
        levels[id(block)] = level
        stack = [entry for entry in stack if entry[0] < level]
        number = label[1] if label is not None else decimal
        stack.append((level, number, block, label is not None))
    return levels


def outline_leads(
    headings: list[tuple[int, Block]], outline: list[tuple[int, str, int]], settings: StructureSettings
) -> dict[str, int] | None:
    """Outline key -> depth (from 0) when the outline leads the heading tree: at least
    `settings.outline_lead_min_matches` headings are named by its entries, and at least
    `settings.outline_lead_min_share` of its entries name a heading. None otherwise (no
    outline, or one that names pages rather than the headings on them)."""
    keys = {}
    for depth, title, _ in outline:
        key = outline_key(title)
        if key and key not in keys:
            keys[key] = depth
    if not keys:
        return None
    matched = {key for page, b in headings if (key := _entry_of(b, page, outline, keys, settings)) is not None}
    if len(matched) < settings.outline_lead_min_matches or len(matched) < settings.outline_lead_min_share * len(keys):
        return None
    return keys


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _entry_of(
    block: Block, page: int, entries: list[tuple[int, str, int]], keys: dict[str, int], settings: StructureSettings
) -> str | None:
    """The key of the outline entry naming `block` (on `page`): the entry of that very text, or
    the longest entry on the same page (within `settings.outline_page_slack` pages) whose
    words the heading's text starts with. A heading joined with a tag or the line under it
    ("Dragon Dragonlings" for the bookmark "Dragon", "Item 8. Financial Statements and
    Supplementary Data Report of Independent ...") is still that entry's heading."""
    key = outline_key(block.text)
    if key in keys:
        return key
    words = _words(block.text)
    found = [
        title
        for _, title, entry_page in entries
        if entry_page
        and abs(entry_page - page) <= settings.outline_page_slack
        and (title_words := _words(title))
        and words[: len(title_words)] == title_words
    ]
    return outline_key(max(found, key=len)) if found else None


def headings_to_levels(
    headings: list[tuple[int, Block]],
    title_block: Block | None,
    outline: list[tuple[int, str, int]],
    settings: StructureSettings = DEFAULT_STRUCTURE_SETTINGS,
) -> dict[int, int]:
    """Level per block id for `headings` ((page, block) in reading order): the document title 1, the others
    from 2 when there is a title, from 1 when not, by outline, numbering and type (module
    docstring). `outline` is (depth from 0, title, page or 0) from the PDF's bookmarks."""
    paged = [(page, b) for page, b in headings if b is not title_block]
    body = [b for _, b in paged]
    offset = 1 if title_block is not None else 0
    levels = numbering_to_levels(body, _typographic_depth(body))
    levels = {key: level + offset for key, level in levels.items()}
    keys = outline_leads(paged, outline, settings)
    if keys is not None:
        title_in_outline = title_block is not None and outline_key(title_block.text) in keys
        shift = 1 + (0 if title_in_outline else offset)
        deepest = max(keys.values()) + shift
        for page, block in paged:
            entry = _entry_of(block, page, outline, keys, settings)
            depth = keys[entry] if entry is not None else None
            levels[id(block)] = depth + shift if depth is not None else deepest + levels[id(block)] - offset
    elif len({k for _, t, _ in outline if (k := outline_key(t))}) >= 2:
        _confirm_by_outline(body, outline, title_block, offset, levels)
    if title_block is not None:
        levels[id(title_block)] = 1
    return levels


def _confirm_by_outline(body, outline, title_block, offset, levels) -> None:
    """An outline that does not lead (too few of its entries are headings here) still gives
    its depth to the headings it names."""
    keys = {outline_key(t): depth for depth, t, _ in outline if outline_key(t)}
    title_in_outline = title_block is not None and outline_key(title_block.text) in keys
    for block in body:
        depth = keys.get(outline_key(block.text))
        if depth is not None:
            levels[id(block)] = depth + 1 + (0 if title_in_outline else offset)
