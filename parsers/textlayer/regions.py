"""Lines -> reading-order regions: the recursive XY-cut adapted to columns (step 2 of
`blocks`' module docstring).

Consecutive lines are grouped while their combined horizontal projection keeps a gutter (an
empty vertical band at least `gutter_em` wide, with columns at least `min_column_em` wide on
both sides; `TextLayerSettings`). Such a group is split at its gutters and each column is read top to bottom,
left column first, recursively; a group without a gutter is a leaf region read line by line.
A full-width heading between two-column parts ends one group and starts the next, so the
page reads title, left column, right column, next part.
"""

from __future__ import annotations

from dataclasses import dataclass

from parsers.textlayer.blocks import Line, segments_to_lines
from parsers.textlayer.chars import Segment
from parsers.textlayer.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings


@dataclass(frozen=True, slots=True)
class _Projection:
    """The horizontal projection of a group of lines' segments: the x-extents (points) merged
    wherever the next one starts less than `min_gap` after the ones before it end, left to
    right, so every gap between two neighbouring `spans` is an empty vertical band at least
    `min_gap` wide, and these are all such bands. Kept per group of lines in `lines_to_regions`
    and extended line by line (`with_line`): the group's segments are not gathered and sorted
    again for every line added (that was quadratic in a region's lines, ~10% of a long
    rulebook's parse). Merging already merged spans with new extents gives the spans that merging every
    extent at once gives: a band at least `min_gap` wide is never inside a merged span."""

    spans: tuple[tuple[float, float], ...]
    min_gap: float
    segments: int  # how many segments were projected

    @classmethod
    def of(cls, lines: list[Line], min_gap: float) -> _Projection:
        return cls((), min_gap, 0).with_lines(lines)

    def with_lines(self, lines: list[Line]) -> _Projection:
        """This projection with the segments of `lines` added."""
        extents = [(s.x0, s.x1) for line in lines for s in line.segments]
        if not extents:
            return self
        merged: list[tuple[float, float]] = []
        for x0, x1 in sorted([*self.spans, *extents]):
            if merged and x0 - merged[-1][1] < self.min_gap:
                if x1 > merged[-1][1]:
                    merged[-1] = (merged[-1][0], x1)
            else:
                merged.append((x0, x1))
        return _Projection(tuple(merged), self.min_gap, self.segments + len(extents))

    def with_line(self, line: Line) -> _Projection:
        return self.with_lines([line])

    def gaps(self) -> list[tuple[float, float]]:
        """The empty bands (start, end) at least `min_gap` wide, left to right."""
        return [(a[1], b[0]) for a, b in zip(self.spans, self.spans[1:])]


def _gutters(
    lines: list[Line], em: float, settings: TextLayerSettings, projection: _Projection | None = None
) -> list[float]:
    """x positions at which a group of lines splits into columns (may be empty). `projection`:
    the lines' `_Projection` with `min_gap` `gutter_em * em` when the caller keeps it.

    A gutter is an empty vertical band (`gutter_em` wide, columns of `min_column_em` on both
    sides) that the text shows as a column gap: on a single line, a gap between its segments;
    in a group, text on both sides of it on at least `column_gap_min_lines` lines, or two lines
    standing beside each other across it. One line broken by a wide justified word gap, above
    a line that merely ends before it, is no column (a paragraph's halves read apart)."""
    if projection is None:
        projection = _Projection.of(lines, settings.gutter_em * em)
    if projection.segments < 2:  # a gap needs two segments
        return []
    left, right = projection.spans[0][0], projection.spans[-1][1]
    cuts: list[float] = []
    start = left
    for gap_start, gap_end in projection.gaps():
        if gap_start - start >= settings.min_column_em * em and right - gap_end >= settings.min_column_em * em:
            cut = (gap_start + gap_end) / 2
            if len(lines) == 1 or _shows_column_gap(lines, cut, settings):
                cuts.append(cut)
                start = gap_end
    return cuts


def _shows_column_gap(lines: list[Line], cut: float, settings: TextLayerSettings) -> bool:
    """At least `column_gap_min_lines` lines hold text on both sides of `cut`, or one line does
    in two font sizes (a heading beside a paragraph's first line in an annual report's side
    column: a justified word gap keeps the paragraph's size on both sides), or a line left of
    it and a line right of it overlap vertically (columns whose lines do not share a baseline)."""
    both = 0
    left_only: list[tuple[float, float]] = []
    right_only: list[tuple[float, float]] = []
    for line in lines:
        if line.x1 <= cut:
            left_only.append((line.top, line.bottom))
        elif line.x0 >= cut:
            right_only.append((line.top, line.bottom))
        else:
            both += 1
            if both >= settings.column_gap_min_lines or _sizes_differ_across(line, cut, settings.size_change_pt):
                return True
    if not left_only or not right_only:
        return False
    left_only.sort()
    right_only.sort()
    i = j = 0
    while i < len(left_only) and j < len(right_only):
        (a_top, a_bottom), (b_top, b_bottom) = left_only[i], right_only[j]
        if min(a_bottom, b_bottom) - max(a_top, b_top) > 0:
            return True
        if a_bottom < b_bottom:
            i += 1
        else:
            j += 1
    return False


def _sizes_differ_across(line: Line, cut: float, size_change: float) -> bool:
    """The line's text left of `cut` and right of it differ in font size by over `size_change`
    (points: the size change that also cuts blocks, `region_to_blocks`)."""

    def size(segments: list[Segment]) -> float:
        chars = sum(max(s.chars, 1) for s in segments)
        return sum(s.size * max(s.chars, 1) for s in segments) / chars

    left = [s for s in line.segments if s.x1 <= cut]
    right = [s for s in line.segments if s.x0 >= cut]
    return bool(left and right) and abs(size(left) - size(right)) > size_change


def lines_to_regions(
    lines: list[Line], em: float, settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
) -> list[list[Line]]:
    """Reading-order leaf regions of a set of lines (see the module docstring); `em` is the
    body font size (points)."""
    regions: list[list[Line]] = []
    group: list[Line] = []
    group_has_gutter = False
    gutter_alone: dict[int, bool] = {}  # id(line) -> the line alone has a gutter (asked up to 3 times a line)

    def splits_alone(line: Line) -> bool:
        if id(line) not in gutter_alone:
            gutter_alone[id(line)] = bool(_gutters([line], em, settings))
        return gutter_alone[id(line)]

    empty = _Projection((), settings.gutter_em * em, 0)
    projection = empty  # of `group`, kept as lines join it
    for index, line in enumerate(lines):
        if not group:
            group, group_has_gutter, projection = [line], splits_alone(line), empty.with_line(line)
            continue
        joined = projection.with_line(line)
        has_gutter = bool(_gutters([*group, line], em, settings, joined))
        following = lines[index + 1] if index + 1 < len(lines) else None
        if group_has_gutter and has_gutter:
            group.append(line)
        elif not group_has_gutter and has_gutter and not splits_alone(line) and _beside(line, group):
            # the line sits beside the group's lines, not below them: columns begin. A line
            # below every line of the group (an entry heading under centred section titles in
            # a rulebook) is cut off horizontally instead, so it reads after them.
            group.append(line)
            group_has_gutter = True
        elif (
            not group_has_gutter
            and not has_gutter
            and (not splits_alone(line) or _continues_justified(line, group, following, em, settings))
            and not _starts_right_of(line, group, settings.right_column_share)
        ):
            group.append(line)
        else:
            regions.extend(_group_to_regions(group, em, settings))
            group, group_has_gutter, projection = [line], splits_alone(line), empty.with_line(line)
            continue
        projection = joined
    if group:
        regions.extend(_group_to_regions(group, em, settings))
    return regions


def _continues_justified(
    line: Line, group: list[Line], following: Line | None, em: float, settings: TextLayerSettings
) -> bool:
    """A paragraph line whose one wide word gap (justification, two spaces after a full stop:
    over `gutter_em`) looks like a gutter on its own: the line spans a group of at least two
    lines (both edges within `justified_edge_em` of the group's), and the next line shows no
    column gap with it (`_gutters` of the two is empty; columns that begin on a shared baseline
    show theirs on the next line too). A board notice set in small justified type read one
    paragraph as three (gaps of 8-9 pt at 7.9 pt type). `em` in points."""
    if len(group) < 2:  # one line above is no span to compare with
        return False
    left = min(l.x0 for l in group)
    right = max(l.x1 for l in group)
    edge = settings.justified_edge_em * em
    if abs(line.x0 - left) > edge or abs(line.x1 - right) > edge:
        return False
    return following is None or not _gutters([line, following], em, settings)


def _beside(line: Line, group: list[Line]) -> bool:
    """The line overlaps the group vertically (starts above the group's bottom)."""
    return line.top < max(l.bottom for l in group)


def _starts_right_of(line: Line, group: list[Line], share: float) -> bool:
    """A line starting in the right part (past `share` of the width) of a wider group above it
    (the first line of a right column beside a heading, under a full-width block) opens a new
    group."""
    left = min(l.x0 for l in group)
    width = max(l.x1 for l in group) - left
    return line.x0 > left + share * width and line.x0 > group[-1].x0 + share * width


def _group_to_regions(group: list[Line], em: float, settings: TextLayerSettings) -> list[list[Line]]:
    segments = [s for l in group for s in l.segments]
    cuts = _gutters(group, em, settings) if len(group) > 1 else []
    if not cuts:
        return [group]
    bounds = [float("-inf"), *cuts, float("inf")]
    regions: list[list[Line]] = []
    for low, high in zip(bounds, bounds[1:]):
        column = [s for s in segments if low <= (s.x0 + s.x1) / 2 < high]
        if column:
            regions.extend(lines_to_regions(segments_to_lines(column, settings), em, settings))
    return regions
