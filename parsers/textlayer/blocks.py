"""Segments -> lines -> reading-order regions -> blocks (paragraph candidates).

Reading order is a recursive XY-cut adapted to columns:

1. `segments_to_lines`: segments whose vertical extents overlap form one line
   (page-wide, so a line of a two-column page holds a segment of each column).
2. `regions.lines_to_regions`: consecutive lines grouped while their combined horizontal
   projection keeps a gutter, split at it, each column read top to bottom, left column
   first, recursively (its own module).
3. `region_to_blocks`: within a region, lines are cut into blocks at vertical gaps
   larger than the region's usual leading, at font changes, and before list markers.
"""

from __future__ import annotations

import operator
import re
import statistics
import unicodedata
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from parsers.structure.lists import LIST_MARKER
from parsers.textlayer.chars import Segment, normalize_text
from parsers.textlayer.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings
from parsers.textlayer.text_joins import FOOTNOTE_MARKS, WrappedLine, join_wrapped_lines, line_goes_on

if TYPE_CHECKING:
    from parsers.tables.grid import TableFound
    from parsers.textlayer.figures import FigureFound


@dataclass(slots=True)
class Placeholder(Segment):
    """An empty segment holding the place of a table or a figure in its line, so that the
    reading-order pass puts the table or figure among the text around it
    (`layout.layout_to_blocks`, which turns it back into a block of its own)."""

    stands_for: TableFound | FigureFound | None = None


@dataclass(slots=True)
class Line:
    segments: list[Segment]
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: float
    text: str = ""
    #: A space drawn after the line's last glyph (see `Segment.space_after`; None: unknown).
    space_after: bool | None = None

    @property
    def height(self) -> float:
        return self.bottom - self.top


@dataclass(slots=True)
class Block:
    """A paragraph candidate: its lines in reading order.

    `bbox`, `size`, `bold` and `text` are derived from the lines and read many times by the
    document-wide passes (headings alone read a block's text ~5 times); each is computed once
    and kept until the lines change. Lines are only ever appended to a block while
    `region_to_blocks` builds it, and a `Line` is not changed once made, so the key is the
    list's identity and length (`_derived`)."""

    lines: list[Line]
    kind: str = "paragraph"  # paragraph | list_item | title | caption | table | figure
    figure: FigureFound | None = None  # kind "figure": its box and labels
    table: TableFound | None = None  # kind "table": its cells
    #: kind "title": its heading level (1 = top), set by `structure.headings`; None until then.
    level: int | None = None
    #: kind "list_item": its nesting depth (0 = outermost), set by `structure.elements`.
    list_level: int | None = None
    #: kind "table": the caption found above or below it (`structure.elements`).
    caption: str | None = None
    #: kind "list_item": where the item's text starts after its marker (points), so a line
    #: left of it ends the item (`region_to_blocks`).
    item_x: float | None = None
    #: ((id of `lines`, its length), {property name: value}): see the class docstring.
    _cache: tuple[tuple[int, int], dict] | None = field(default=None, init=False, repr=False, compare=False)

    def _derived(self) -> dict:
        """The derived values computed so far for the lines as they are now."""
        key = (id(self.lines), len(self.lines))
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, {})
        return self._cache[1]

    @property
    def bbox(self) -> tuple[float, float, float, float]:
        derived = self._derived()
        if "bbox" not in derived:
            derived["bbox"] = (
                min(l.x0 for l in self.lines),
                min(l.top for l in self.lines),
                max(l.x1 for l in self.lines),
                max(l.bottom for l in self.lines),
            )
        return derived["bbox"]

    @property
    def size(self) -> float:
        derived = self._derived()
        if "size" not in derived:
            weights = [(l.size, len(l.text)) for l in self.lines]
            total = sum(w for _, w in weights) or 1
            derived["size"] = sum(s * w for s, w in weights) / total
        return derived["size"]

    @property
    def bold(self) -> float:
        derived = self._derived()
        if "bold" not in derived:
            total = sum(len(l.text) for l in self.lines) or 1
            derived["bold"] = sum(l.bold * len(l.text) for l in self.lines) / total
        return derived["bold"]

    @property
    def text(self) -> str:
        derived = self._derived()
        if "text" not in derived:
            if all(is_monospace(l) for l in self.lines):
                derived["text"] = "\n".join(normalize_text(l.text) for l in self.lines)  # code: lines are meaningful
            else:
                derived["text"] = lines_to_text(self.lines)
        return derived["text"]


_MONOSPACE = re.compile(r"mono|courier|consol|menlo|inconsolata|fixed|code|cmtt|typewriter", re.IGNORECASE)


def is_monospace(line: "Line") -> bool:
    """Set in a fixed-pitch font (code listings keep their line breaks)."""
    return bool(line.segments) and all(_MONOSPACE.search(s.font) for s in line.segments if s.text)


def segments_to_line(segments: list[Segment]) -> Line:
    """One line from segments on the same baseline, joined by a space: left to right, or
    right to left when most of its letters are right-to-left script (`is_mostly_rtl`).
    The line ends with a drawn space when its last segment in reading order does."""
    segments = sorted(segments, key=_left)
    # ~80 lines a page, each grouped two or three times: builtins over the segments, not
    # generator expressions (the sums add the same products in the same order)
    weights = [max(s.chars, 1) for s in segments]
    chars = sum(weights)
    ordered = segments[::-1] if is_mostly_rtl(segments) else segments
    text = " ".join([s.text for s in ordered if s.text])
    return Line(
        segments=segments,
        x0=min(map(_left, segments)),
        top=min(map(_top, segments)),
        x1=max(map(_right, segments)),
        bottom=max(map(_bottom, segments)),
        size=sum([s.size * w for s, w in zip(segments, weights)]) / chars,
        bold=sum([s.bold * w for s, w in zip(segments, weights)]) / chars,
        text=text,
        space_after=ordered[-1].space_after,
    )


_left = operator.attrgetter("x0")
_top = operator.attrgetter("top")
_right = operator.attrgetter("x1")
_bottom = operator.attrgetter("bottom")


def is_mostly_rtl(segments: list[Segment]) -> bool:
    """More than half of the segments' letters are right-to-left (Unicode bidi R or AL)."""
    if not any(segment.text and max(segment.text) >= "\u0590" for segment in segments):
        return False  # the common case, decided without counting letters
    letters = rtl = 0
    for segment in segments:
        if segment.text and max(segment.text) >= "\u0590":
            for char in segment.text:
                if char.isalpha():
                    letters += 1
                    rtl += unicodedata.bidirectional(char) in ("R", "AL")
        else:
            letters += sum(c.isalpha() for c in segment.text)
    return rtl > letters / 2


def segments_to_lines(segments: list[Segment], settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS) -> list[Line]:
    """Group segments into lines by vertical overlap, top to bottom.

    A segment joins the current line when more than `line_overlap_share` (half) of the
    smaller height overlaps the line's extent; superscripts and subscripts therefore stay in
    their line. A segment's height counts as at least `min_line_height_pt`.
    """
    share, min_height = settings.line_overlap_share, settings.min_line_height_pt
    groups: list[list[Segment]] = []
    extents: list[list[float]] = []
    for segment in sorted(segments, key=lambda s: (s.top, s.x0)):
        height = max(segment.bottom - segment.top, min_height)
        if groups:
            top, bottom = extents[-1]
            overlap = min(bottom, segment.bottom) - max(top, segment.top)
            if overlap > share * min(height, bottom - top):
                groups[-1].append(segment)
                extents[-1] = [min(top, segment.top), max(bottom, segment.bottom)]
                continue
        groups.append([segment])
        extents.append([segment.top, segment.bottom])
    return [segments_to_line(group) for group in groups]


def region_to_blocks(
    lines: list[Line], em: float, settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
) -> list[Block]:
    """Cut a region's lines into blocks (paragraph candidates) in reading order; `em` is the
    body font size (points), the tolerances are `settings`' (named below).

    A new block starts at: a vertical gap over max(`block_gap_min_em`, `block_gap_leading_ratio`
    x the region's median gap + `block_gap_slack_em`), lines overlapping by more than
    `overlap_gap_em` left out of that median; a font-size change over `size_change_pt` or a
    bold/regular switch (`bold_line_share`); a line starting with a list marker; a line
    `item_indent_em` left of the current list item's text (the list has ended); and after a
    line ending a sentence `short_line_share` of the region's width short of its right edge.
    Neither a marker nor a weight switch starts one after a line that goes on
    (`text_joins.line_goes_on`: a broken word or an open bracket), and no weight switch inside
    a sentence set justified (`_sentence_runs_into`: court filings set case names in bold
    inside a sentence, "... breached their fiduciary" / "duties. Wedekind v. Hamilton James,
    ..." with the next line 0.94 bold).
    """
    if not lines:
        return []
    gaps = [b.top - a.bottom for a, b in zip(lines, lines[1:])]
    positive = [g for g in gaps if g > -settings.overlap_gap_em * em]
    usual = statistics.median(positive) if positive else 0.0
    limit = max(
        settings.block_gap_min_em * em, settings.block_gap_leading_ratio * usual + settings.block_gap_slack_em * em
    )
    size_change, bold_share = settings.size_change_pt, settings.bold_line_share
    right_edge = max(l.x1 for l in lines)
    blocks: list[Block] = [Block([lines[0]])]
    for previous, line, gap in zip(lines, lines[1:], gaps):
        block = blocks[-1]
        goes_on = line_goes_on(previous.text)
        starts_item = bool(LIST_MARKER.match(line.text)) and not goes_on
        style_change = (
            abs(line.size - previous.size) > size_change
            or (
                (line.bold >= bold_share) != (previous.bold >= bold_share)
                and not goes_on
                and not _sentence_runs_into(
                    previous, line, right_edge - settings.full_line_slack_em * em, block.lines[0] is previous, settings
                )
            )
            or is_monospace(line) != is_monospace(previous)
        )
        left_of_item = block.item_x is not None and line.x0 < block.item_x - settings.item_indent_em * em
        short_end = previous.x1 < right_edge - settings.short_line_share * (
            right_edge - lines[0].x0
        ) and _ends_sentence(previous)
        if gap > limit or starts_item or style_change or left_of_item or short_end:
            blocks.append(Block([line]))
        else:
            block.lines.append(line)
        if starts_item and len(blocks[-1].lines) == 1:
            match = LIST_MARKER.match(line.text)
            blocks[-1].item_x = _item_text_x(line, match.end())
    return [block_with_hanging_label_first(block, em, settings) for block in blocks]


#: A line or run of prose holds at least this many words (a table's labels and figures hold
#: fewer): `_sentence_runs_into`, and the table passes (`tables.unruled`, `tables.gutters`).
PROSE_WORDS = 8


def _sentence_runs_into(
    previous: Line, line: Line, full_x: float, previous_opens_block: bool, settings: TextLayerSettings
) -> bool:
    """The sentence of `previous` goes on into `line` across a weight switch: both are one
    segment of prose (`PROSE_WORDS` words or more) that reaches `full_x` (the region's right
    edge, less `full_line_slack_em`), `previous` ends no sentence, and a bold `previous`
    (`bold_line_share`) is not the first line of its block. A bold heading is short, or set
    apart from a tag flush right (a rulebook's entry name beside its category), or follows a
    sentence's end, or opens its block and runs on into its regular text (a rulebook's run-in
    heading "The History of the Chantry: Chapter 3 - ...")."""
    return (
        not (previous_opens_block and previous.bold >= settings.bold_line_share)
        and not _ends_sentence(previous)
        and all(
            len(l.segments) == 1 and l.x1 >= full_x and len(l.text.split()) >= PROSE_WORDS for l in (previous, line)
        )
    )


def _ends_sentence(line: Line) -> bool:
    return line.text.rstrip().endswith((".", "!", "?", ":", "।", "॥"))


#: A line that ends an entry: the next line may begin the next entry, with its own label.
_ENTRY_END = (".", ")", ";", ":")


def block_with_hanging_label_first(
    block: Block, em: float, settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
) -> Block:
    """The block with each label that hangs beside a later line of its entry moved to the start
    of the entry's first line; the block itself when it has none (the common case).

    A hanging label is the first segment of a line: one word of at most `label_max_chars`
    characters with a letter or digit, ending at least `label_gap_em` left of where the rest of
    its line starts. Its entry is the lines around it that start where that rest starts (within
    `label_align_pt`): back to the block start or to a line ending an entry (`_ENTRY_END`, footnote marks
    set aside: `_ends_entry`), which must be where the run stops, and on to the block end or to
    a line that starts with its own label. The label is moved only when it is beside a line
    after the entry's first, the line before it goes on (`_ends_entry` false: else the
    label may open the next entry) and the entry's first line is text (`entry_min_words` or more
    words with letters; a label beside figures stays where it is). Exhibit indexes of filings
    set an entry's number centred beside its description ("10a(iii)" beside the second of
    three lines), so it was read into the middle of the text, and a word broken at the first
    line's end was not rejoined ("... Inc. Long-10a(iii) Term Incentive Plan"). A block may
    hold several entries in other columns ("10a(vii)" beside its second line, then
    "10b ...", "10c ..." with labels at the margin): each entry is judged alone. The label
    names the entry: it reads first."""
    align, min_words = settings.label_align_pt, settings.entry_min_words
    lines = list(block.lines)
    done = 0  # lines before this belong to an entry already judged
    moved = False
    for k in range(1, len(lines)):
        line = lines[k]
        if k <= done or not _starts_with_label(line, em, settings):
            continue
        label, rest = line.segments[0], line.segments[1:]
        x = rest[0].x0
        if abs(lines[k - 1].x0 - x) > align or _ends_entry(lines[k - 1]):
            continue
        s = k - 1
        while s > done and abs(lines[s - 1].x0 - x) <= align and not _ends_entry(lines[s - 1]):
            s -= 1
        if s > 0 and not _ends_entry(lines[s - 1]):
            continue
        e = k + 1
        while e < len(lines) and abs(lines[e].x0 - x) <= align:
            e += 1
        if e < len(lines) and not _starts_with_label(lines[e], em, settings):
            continue
        if sum(1 for word in lines[s].text.split() if any(c.isalpha() for c in word)) < min_words:
            continue
        lines[s] = segments_to_line([label, *lines[s].segments])
        lines[k] = segments_to_line(rest)
        done, moved = k, True
    if not moved:
        return block
    return replace(block, lines=lines)


def _is_label(segment: Segment, max_chars: int) -> bool:
    """One word of at most `max_chars` characters with a letter or digit."""
    text = segment.text
    return len(text) <= max_chars and len(text.split()) == 1 and any(c.isalnum() for c in text)


def _ends_entry(line: Line) -> bool:
    """The line ends an entry: `_ENTRY_END` at its end, footnote marks set aside."""
    return line.text.rstrip().rstrip(FOOTNOTE_MARKS).rstrip().endswith(_ENTRY_END)


def _starts_with_label(line: Line, em: float, settings: TextLayerSettings) -> bool:
    """The line starts with its own label: a `_is_label` segment `label_gap_em` or more left of the rest."""
    return (
        len(line.segments) > 1
        and _is_label(line.segments[0], settings.label_max_chars)
        and line.segments[0].x1 <= line.segments[1].x0 - settings.label_gap_em * em
    )


def _item_text_x(line: Line, marker_end: int) -> float:
    """x where a list item's text starts (after its marker): wrapped lines align there."""
    first = line.segments[0]
    if len(first.text) <= marker_end + 1 and len(line.segments) > 1:
        return line.segments[1].x0
    share = marker_end / max(len(first.text), 1)
    return first.x0 + share * first.width


def lines_to_text(lines: list[Line]) -> str:
    """Lines joined into one paragraph (hyphenated line ends rejoined, see
    `text_joins.join_wrapped_lines`), NFKC-normalized."""
    return normalize_text(join_wrapped_lines(map(_line_to_wrapped, lines)))


def _line_to_wrapped(line: Line) -> WrappedLine:
    """The line's text, its drawn space after, and its edge glyphs' sizes (`Segment.edge_sizes`)."""
    first, last = line.segments[0].edge_sizes, line.segments[-1].edge_sizes
    return WrappedLine(line.text, line.space_after, first[0] if first else None, last[1] if last else None)
