"""The row labels of an unruled table: a label wrapped over two lines joined into one row, and
each row's indent level. Pure functions over the grid of cell strings and the labels' x
positions (`unruled.run_to_table`); points, top-left origin."""

from __future__ import annotations

import statistics

from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.textlayer.text_joins import ends_in_broken_word, join_wrapped_lines


def rows_with_wrapped_labels_joined(
    grid: list[list[str]],
    stubs: list[float | None],
    tops: list[float],
    settings: TableSettings = DEFAULT_TABLE_SETTINGS,
) -> tuple[list[list[str]], list[float | None]]:
    """A row label wrapped over two lines stays one row: a line holding only a label, set
    closer to the next line than rows are to each other (line pitch under
    `wrapped_label_pitch` x the median pitch) and not further left, is joined to the next line's label ("Net income
    attributable to" / "noncontrolling interests  (72)  (57)"). A label ending in a line-end
    hyphen after a letter is joined whatever the pitch: a word is never broken across two rows
    ("Q4 2017 Adjusted Non-" / "GAAP Measure  $7,990 ...", evenly pitched rows). The labels are
    joined as wrapped lines are (`join_wrapped_lines`: "Non-" + "GAAP" -> "Non-GAAP"). Returns
    the rows and the x0 of each row's label (points; None for a row without one)."""
    if len(grid) < settings.unruled_min_rows:
        return grid, stubs
    pitches = [b - a for a, b in zip(tops, tops[1:])]
    usual = statistics.median(pitches)
    rows, xs = [list(grid[0])], [stubs[0]]
    pending = False
    for k in range(1, len(grid)):
        label_only = bool(rows[-1][0]) and not any(rows[-1][1:])
        tight = pitches[k - 1] < settings.wrapped_label_pitch * usual and (stubs[k] or 0) >= (xs[-1] or 0) - 1
        if label_only and grid[k][0] and (tight and not pending or ends_in_broken_word(rows[-1][0])):
            rows[-1] = [join_wrapped_lines([rows[-1][0], grid[k][0]]), *grid[k][1:]]
            pending = not any(grid[k][1:])
            continue
        pending = False
        rows.append(list(grid[k]))
        xs.append(stubs[k])
    return rows, xs


def stubs_to_indent_levels(
    stubs: list[float | None], em: float, settings: TableSettings = DEFAULT_TABLE_SETTINGS
) -> list[int]:
    """Indent level of each row's label: 0 for the leftmost label position, then one level
    per distinct x0 further right (positions within `indent_level_em` are one level); 0 for a row
    without a label (header rows). "Total revenue" indented under "Net sales" reads as a
    total only with its level."""
    if all(x is None for x in stubs):
        return [0] * len(stubs)
    step = settings.indent_level_em * em
    levels: list[float] = []
    for x in sorted({x for x in stubs if x is not None}):
        if not levels or x - levels[-1] > step:
            levels.append(x)
    return [0 if x is None else max(k for k, level in enumerate(levels) if level <= x + step) for x in stubs]
