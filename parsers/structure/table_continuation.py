"""Tables continued across a page break, merged into one table element.

A header the continuation repeats is kept once; what it held is returned as a reasoned drop
(`DropReason.repeated_header`) on the continuation's page, so conservation still accounts for
every character of that page (`conservation.pages_with_drops`).
"""

from __future__ import annotations

from typing import NamedTuple

from ingest.contracts.elements import DroppedText, DropReason, Element, ElementType, table_rows_to_text
from parsers.textlayer.conservation import SAMPLE_CHARS, text_to_char_count


class MergedTables(NamedTuple):
    """The elements with continued tables merged, and per page number the repeated headers
    dropped there."""

    elements: list[Element]
    dropped: dict[int, list[DroppedText]]


def same_table_shape(first: list[list[str]], second: list[list[str]]) -> bool:
    """Could `second` continue `first` (same number of columns)?"""
    return bool(first and second) and max(map(len, first)) == max(map(len, second))


def strip_repeated_header(header: list[list[str]], rows: list[list[str]]) -> list[list[str]]:
    """Rows of a continuation without the header it repeats: dropped only when its first rows
    are exactly `header` (cell for cell, as printed); any other rows are kept, since a dropped
    row is text no element holds."""
    count = len(header)
    if count and len(rows) > count and rows[:count] == header:
        return rows[count:]
    return rows


def is_title_row(row: list[str]) -> bool:
    """A row that names what follows: its first cell alone holds text ("Land, buildings, and
    equipment:")."""
    return bool(row and row[0].strip()) and not any(cell.strip() for cell in row[1:])


def opens_own_table(previous: Element, rows: list[list[str]], header_count: int) -> bool:
    """A piece that repeats the previous table's header (`header_count` rows) and then opens
    with a title row, as the previous table opened under that header, is a table of its own
    set under the same column heads, not the previous one going on: a filing's notes end a
    "Prepaid expenses and other current assets:" table at a page's foot and open "Land,
    buildings, and equipment:" on the next page under the same "In Millions | <date> | <date>"."""
    return (
        header_count > 0
        and len(rows) > header_count
        and len(previous.rows) > header_count
        and is_title_row(rows[header_count])
        and is_title_row(previous.rows[header_count])
    )


def rows_to_dropped(rows: list[list[str]]) -> list[DroppedText]:
    """One `repeated_header` record for header rows kept out of the merged table; none when
    they hold no counted character."""
    text = " ".join(cell for row in rows for cell in row if cell.strip())
    chars = sum(text_to_char_count(cell) for row in rows for cell in row)
    return [DroppedText(reason=DropReason.repeated_header, chars=chars, sample=text[:SAMPLE_CHARS])] if chars else []


def merge_continued_tables(elements: list[Element]) -> MergedTables:
    """A table that is the first body element of a page and continues the table that
    ended the previous page (same column count, no other caption, not a table of its own by
    `opens_own_table`) is merged into it: rows appended, a header repeated exactly dropped
    (and returned as dropped text of its page), `page_end` and `data.parts` (page, bbox)
    recorded."""
    merged: list[Element] = []
    dropped: dict[int, list[DroppedText]] = {}
    last_body: Element | None = None
    last_index = -1
    for element in elements:
        if element.is_furniture or element.data.get("role") == "margin":
            merged.append(element)
            continue
        previous = last_body
        repeated = 0  # rows of a header the piece repeats
        continues = (
            element.type is ElementType.table
            and previous is not None
            and previous.type is ElementType.table
            and element.page == previous.last_page + 1
            and same_table_shape(previous.rows, element.rows)
            and not (element.caption and previous.caption and element.caption != previous.caption)
        )
        if continues:
            header = previous.rows[: previous.header_rows]
            rows = strip_repeated_header(header, element.rows) if header else element.rows
            if (
                previous.header_rows == 0
                and element.header_rows
                and element.rows[: element.header_rows] == previous.rows[: element.header_rows]
            ):
                rows = element.rows[element.header_rows :]
            repeated = len(element.rows) - len(rows)
            continues = not opens_own_table(previous, element.rows, repeated)
        if continues:
            if repeated:
                dropped.setdefault(element.page, []).extend(rows_to_dropped(element.rows[:repeated]))
            parts = [
                *(previous.data.get("parts") or [{"page": previous.page, "bbox": list(previous.bbox)}]),
                {"page": element.page, "bbox": list(element.bbox)},
            ]
            all_rows = previous.rows + rows
            updated = previous.model_copy(
                update={
                    "rows": all_rows,
                    "text": table_rows_to_text(all_rows),
                    "page_end": element.page,
                    "data": {**previous.data, "parts": parts, "continued": True},
                }
            )
            merged[last_index] = updated
            last_body = updated
            continue
        merged.append(element)
        last_body, last_index = element, len(merged) - 1
    return MergedTables(merged, dropped)
