"""Block shapes fixed before headings are decided: run-in heading leads split off, and a
heading set on consecutive lines of one style joined into one block.

Both are pure: they return a new list of (page, block) and leave the input blocks alone.

- `blocks_to_run_in_split`: a paragraph whose first line starts with a short lead in
  another, heavier or larger font ("**Abstract.** Recent advances ...", "**5.1 Hyper
  Parameter Optimization** We have chosen ...") becomes a title block (the lead) and a
  paragraph (the rest). Conservative on purpose (`run_in_lead`): the lead is at most
  `RUN_IN_MAX_WORDS` words, ends with "." or ":" or is a numbered heading, is not a caption,
  and the rest of the paragraph is prose (>= `RUN_IN_MIN_REST_WORDS` words) in another font;
  a lead that recurs `RUN_IN_MAX_REPEATS` times in the document is a field label, not split.
- ... and a bold block that stacks section labels ("PART II" over "Item 7. Management's
  Discussion ...") is cut before each label (`_split_at_section_labels`).
- `blocks_to_joined_headings`: consecutive blocks in one heading style (size, bold, font)
  set directly below each other ("Row and Column Access Control" / "Support in IBM DB2
  for i") are one block; the heading rules then judge the whole (so a three-line cover
  slogan is judged as one text, not as a title plus a level-3 title).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from parsers.structure.captions import caption_of
from parsers.structure.heading_levels import section_label
from parsers.structure.lists import LIST_MARKER
from parsers.textlayer.blocks import Block, Line, segments_to_line
from parsers.textlayer.chars import Segment
from parsers.textlayer.text_joins import ends_in_broken_word

#: A run-in lead has at most this many words ("5.1 Hyper Parameter Optimization" has 4).
RUN_IN_MAX_WORDS = 8
#: ... and the paragraph it leads has at least this many words after it (prose, not a form's "Dose: 2 g").
RUN_IN_MIN_REST_WORDS = 6
#: A lead repeated this often in the document is a field label of a form or a repeated record
#: ("Proposition : ...", "Synthèse du résultat : ..." on every page of a public consultation's
#: report), not a section heading: its paragraphs stay whole.
RUN_IN_MAX_REPEATS = 3
#: Font names that are bold although pdfium's weight and flags say regular (TeX's CMBX).
_HEAVY_FONT = re.compile(r"bold|black|heavy|semibold|demi|cmbx|cmb\d|-bd|,b$", re.IGNORECASE)
_NUMBERED_LEAD = re.compile(r"^\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+\S")
#: A heading line that ends in a word broken by a hyphen goes on in the next line set up to
#: this many line heights below (the usual limit is 0.8: two headings stacked stay apart).
BROKEN_WORD_GAP = 1.5
#: A heading line that ends like this is complete: the next line starts something else.
_ENDS_COMPLETE = (".", ":", "?", "!", "।", "॥")
#: A line led by a short field label ("Unrepresented Employee: Superintendent ..."): at most
#: four words before the colon, text after it.
_LABEL_LEAD = re.compile(r"^[^\s:]+(?:\s[^\s:]+){0,3}:\s+\S")
#: The last line of a numbered heading that ends in a number ("Section 54957", "Article 12"):
#: a citation closing the title, not a line broken mid-phrase.
_ENDS_NUMBER = re.compile(r"\d[\d.)]*$")


def _heavy(font: str, bold: bool) -> bool:
    return bold or bool(_HEAVY_FONT.search(font))


def run_in_lead(lead: str, lead_font: str, lead_bold: bool, lead_size: float, rest: Segment, rest_words: int) -> bool:
    """Is `lead` (the first style run of a paragraph's first line) a run-in heading?

    Styled apart from the rest (heavier, or >= 0.5 pt larger, in another font), short, ending
    like a heading label ("." or ":") or numbered ("5.1 ..."), not a caption or list marker,
    and followed by prose."""
    words = lead.split()
    if not words or len(words) > RUN_IN_MAX_WORDS or not any(c.isalpha() for c in lead) or lead[0].islower():
        return False
    if caption_of(lead) or LIST_MARKER.match(lead) and not _NUMBERED_LEAD.match(lead):
        return False
    if lead_font == rest.font or rest_words < RUN_IN_MIN_REST_WORDS:
        return False
    styled = (_heavy(lead_font, lead_bold) and not _heavy(rest.font, rest.bold >= 0.5)) or lead_size >= rest.size + 0.5
    shaped = lead.endswith((".", ":")) or bool(_NUMBERED_LEAD.match(lead))
    return styled and shaped


def _split_first_line(block: Block) -> tuple[Line, Line] | None:
    """(lead line, rest line) when the block's first line opens with a run-in heading."""
    line = block.lines[0]
    first = line.segments[0]
    rest_words = sum(len(l.text.split()) for l in block.lines)
    if first.lead is not None:
        run = first.lead
        lead_text, rest_text = first.text[: run.end].strip(), first.text[run.end :].strip()
        if not rest_text:
            return None
        share = run.end / max(len(first.text), 1)
        cut = first.x0 + share * first.width
        rest_segment = replace(first, text=rest_text, x0=cut, lead=None)
        if not run_in_lead(lead_text, run.font, run.bold, run.size, rest_segment, rest_words - len(lead_text.split())):
            return None
        lead_segment = replace(
            first,
            text=lead_text,
            x1=cut,
            size=run.size,
            bold=1.0 if _heavy(run.font, run.bold) else 0.0,
            font=run.font,
            lead=None,
        )
        return segments_to_line([lead_segment]), segments_to_line([rest_segment, *line.segments[1:]])
    if len(line.segments) < 2:
        return None
    second = line.segments[1]
    if not run_in_lead(
        first.text.strip(), first.font, first.bold >= 0.5, first.size, second, rest_words - len(first.text.split())
    ):
        return None
    lead_segment = replace(first, bold=1.0 if _heavy(first.font, first.bold >= 0.5) else first.bold)
    return segments_to_line([lead_segment]), segments_to_line(line.segments[1:])


def _label_key(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def blocks_to_run_in_split(blocks: list[tuple[int, Block]]) -> list[tuple[int, Block]]:
    """The blocks with each run-in heading lead split off as its own `title` block (see
    the module docstring); other blocks are passed through as they are."""
    splits = [
        _split_first_line(block) if block.kind == "paragraph" and block.lines[0].segments else None
        for _, block in blocks
    ]
    leads = Counter(_label_key(split[0].text) for split in splits if split is not None)
    out: list[tuple[int, Block]] = []
    for (page, block), split in zip(blocks, splits):
        labelled = _split_at_section_labels(block)
        if len(labelled) > 1:
            out.extend((page, part) for part in labelled)
            continue
        if split is not None and leads[_label_key(split[0].text)] >= RUN_IN_MAX_REPEATS:
            split = None  # a form's field label ("Proposition :", "Question :"), not a section
        if split is None:
            out.append((page, block))
            continue
        lead, rest = split
        out.append((page, Block([lead], kind="title")))
        out.append((page, Block([rest, *block.lines[1:]], kind="paragraph")))
    return out


def _split_at_section_labels(block: Block) -> list[Block]:
    """A paragraph of bold lines (at most `LABEL_SPLIT_MAX_LINES`) opening with a section label,
    cut before each later line that opens with one too (`heading_levels.section_label`): a filing sets
    "PART II" and "Item 5. Market for Registrant's Common Equity" one above the other as
    tightly as the lines of one heading, but each opens its own section, the Item inside the
    Part. Other blocks come back whole (a one-element list)."""
    if block.kind != "paragraph" or not 1 < len(block.lines) <= LABEL_SPLIT_MAX_LINES:
        return [block]
    if not all(_segments_style([s for s in line.segments if s.text.strip()])[1] for line in block.lines):
        return [block]
    if section_label(block.lines[0].text.strip()) is None:
        return [block]
    parts: list[list[Line]] = [[block.lines[0]]]
    for line in block.lines[1:]:
        if section_label(line.text.strip()) is not None:
            parts.append([line])
        else:
            parts[-1].append(line)
    return [Block(lines, kind="paragraph") for lines in parts] if len(parts) > 1 else [block]


#: A heading block cut at its section labels has at most this many lines ("PART II" over a
#: two-line "Item 7." title); a longer bold block is running text, left whole.
LABEL_SPLIT_MAX_LINES = 4


def _bottom_style(block: Block) -> tuple[float, bool, str, float]:
    """(size, bold, font, bottom) of the segments starting lowest in the block (top within
    2 pt of the lowest top): the type a next line of the same heading continues, even when a
    display word beside it is larger ("We Care" at 110 pt beside "For a greener planet" at 11 pt)."""
    lowest = max(s.top for line in block.lines for s in line.segments)
    low = [s for line in block.lines for s in line.segments if s.top >= lowest - 2.0 and s.text.strip()]
    size, bold, font = _segments_style(low)
    return size, bold, font, max((s.bottom for s in low), default=block.bbox[3])


def _top_style(block: Block) -> tuple[float, bool, str]:
    """(size, bold, font) of the block's first line: the line that would continue a heading
    above. A block is not one style throughout when a line that goes on joined lines of two
    weights (`text_joins.line_goes_on`: a 10-K's legal proceedings with "(Case No. 19-" in
    bold, "2-15514-1)" regular)."""
    return _segments_style([s for s in block.lines[0].segments if s.text.strip()])


def _segments_style(segments: list[Segment]) -> tuple[float, bool, str]:
    """(size in points, bold, font) of `segments`, each weighted by its characters: the mean
    size, bold when half the characters are, the font with the most characters."""
    chars = sum(max(s.chars, 1) for s in segments) or 1
    size = sum(s.size * max(s.chars, 1) for s in segments) / chars
    bold = sum(s.bold * max(s.chars, 1) for s in segments) / chars
    fonts: dict[str, int] = {}
    for segment in segments:
        fonts[segment.font] = fonts.get(segment.font, 0) + max(segment.chars, 1)
    return size, bold >= 0.5, max(fonts, key=fonts.get) if fonts else ""


def continues_heading(upper: Block, lower: Block) -> bool:
    """`lower` is the next line(s) of the heading `upper`: its first line in the same size
    (0.5 pt), weight and font as `upper`'s lowest line (`_bottom_style`, `_top_style`), set
    directly below (gap under 0.8 of a line's height, and no larger than the spacing between
    `upper`'s own lines), aligned with it (`lines_aligned`), and `upper` does not end like a
    finished label or sentence. When `upper` ends in a word broken by a line-end hyphen and `lower` starts in lower case
    ("Stock Mar-" / "ket Participation" in a statistical report's display heading), the word goes on below: a gap up to
    `BROKEN_WORD_GAP` line heights is allowed (display type set with wide leading).

    The alignment and spacing tests keep two complete headings apart: "4. Demande de
    démolition pour le 1069, boulevard ..." (left, x0 71 pt) over a centred "Résolution
    DM-2023-001" (x0 242 pt) in the same bold type are two headings (council minutes)."""
    if upper.kind != "paragraph" or lower.kind != "paragraph":
        return False
    if upper.text.rstrip().endswith(_ENDS_COMPLETE) or LIST_MARKER.match(lower.lines[0].text):
        return False
    if _starts_something_else(upper, lower):
        return False
    size, bold, font, bottom = _bottom_style(upper)
    lower_size, lower_bold, lower_font = _top_style(lower)
    if abs(size - lower_size) > 0.5 or bold != lower_bold or font != lower_font:
        return False
    height = lower.lines[0].height
    gap = lower.bbox[1] - bottom
    if _breaks_word(upper.text, lower.text):
        if not -0.2 * height <= gap <= BROKEN_WORD_GAP * height:
            return False
    elif not -0.2 * height <= gap <= 0.8 * height or gap > _line_gap(upper) + 0.15 * height:
        return False
    return lines_aligned(upper, lower, height)


def _breaks_word(upper: str, lower: str) -> bool:
    """`upper` ends in a line-end hyphen after a letter and `lower` goes on in lower case: one
    word broken across the two lines."""
    return ends_in_broken_word(upper.rstrip()) and lower.lstrip()[:1].islower()


def _starts_something_else(upper: Block, lower: Block) -> bool:
    """`lower` is not the rest of `upper` although set in its type and place: it ends with ":"
    or starts with a number or a field label (a label or heading of its own), both open with a
    section label ("PART II" over "Item 7.", `heading_levels.section_label`: two sections, the
    second inside the first), or `upper` is a numbered heading already on two or more lines
    whose last line ends in a number (complete).

    A school board agenda's "2.1 Public Employee Performance Evaluation – Pursuant to
    Government Code" / "Section 54957" is one heading; the label "District Representatives:"
    set below it at the same indent is not part of it."""
    first = lower.lines[0].text.strip()
    if lower.text.rstrip().endswith(":") or _NUMBERED_LEAD.match(first) or _LABEL_LEAD.match(first):
        return True
    if section_label(first) is not None and section_label(upper.lines[0].text.strip()) is not None:
        return True
    numbered = bool(_NUMBERED_LEAD.match(upper.text.strip()))
    return numbered and len(upper.lines) >= 2 and bool(_ENDS_NUMBER.search(upper.lines[-1].text.strip()))


def _line_gap(block: Block) -> float:
    """The largest gap (points) between consecutive lines of `block`; +inf for one line
    (nothing to compare with)."""
    gaps = [b.top - a.bottom for a, b in zip(block.lines, block.lines[1:])]
    return max(gaps) if gaps else float("inf")


def _bottom_extent(block: Block) -> tuple[float, float]:
    """(x0, x1) of the segments starting lowest in the block (as `_bottom_style`): the line a
    next heading line continues, without a display word that spans several lines beside it."""
    lowest = max(s.top for line in block.lines for s in line.segments)
    low = [s for line in block.lines for s in line.segments if s.top >= lowest - 2.0 and s.text.strip()]
    low = low or block.lines[-1].segments
    return min(s.x0 for s in low), max(s.x1 for s in low)


def lines_aligned(upper: Block, lower: Block, height: float) -> bool:
    """Are `lower`'s lines set as a continuation of `upper`'s? Lines of one heading share
    their left edge, their centre or their right edge (within half a line height, >= 3 pt),
    or `lower` starts at the text after a numbered heading's number (hanging indent, within
    4 line heights of `upper`'s left edge)."""
    tolerance = max(0.5 * height, 3.0)
    ux0, ux1 = _bottom_extent(upper)
    lx0, lx1 = lower.lines[0].x0, lower.lines[0].x1
    if lx1 <= ux0 or ux1 <= lx0:
        return False
    left = abs(lx0 - ux0) <= tolerance
    centre = abs((lx0 + lx1) / 2 - (ux0 + ux1) / 2) <= tolerance
    right = abs(lx1 - ux1) <= tolerance
    hanging = bool(_NUMBERED_LEAD.match(upper.text.strip())) and ux0 < lx0 <= ux0 + 4 * height
    return left or centre or right or hanging


def blocks_to_joined_headings(blocks: list[tuple[int, Block]], is_heading_style) -> list[tuple[int, Block]]:
    """Consecutive blocks of one heading style joined (`continues_heading`). `is_heading_style`
    (block -> bool) says whether the upper block's type sets it apart as a heading; the
    joined block is judged again by the heading rules afterwards."""
    out: list[tuple[int, Block]] = []
    for page, block in blocks:
        if out:
            last_page, last = out[-1]
            if last_page == page and is_heading_style(last) and continues_heading(last, block):
                out[-1] = (page, Block([*last.lines, *block.lines], kind="paragraph"))
                continue
        out.append((page, block))
    return out
