"""Tables continued across a page break, merged into one table element."""

from __future__ import annotations

from ingest.contracts.elements import Element, ElementType, table_rows_to_text


def same_table_shape(first: list[list[str]], second: list[list[str]]) -> bool:
    """Could `second` continue `first` (same number of columns)?"""
    return bool(first and second) and max(map(len, first)) == max(map(len, second))


def strip_repeated_header(header: list[list[str]], rows: list[list[str]]) -> list[list[str]]:
    """Rows of a continuation without the header it repeats (compared case-insensitively)."""
    count = len(header)
    if (
        count
        and len(rows) > count
        and all([c.casefold() for c in a] == [c.casefold() for c in b] for a, b in zip(header, rows[:count]))
    ):
        return rows[count:]
    return rows


def merge_continued_tables(elements: list[Element]) -> list[Element]:
    """A table that is the first body element of a page and continues the table that
    ended the previous page (same column count) is merged into it: rows appended, a
    repeated header dropped, `page_end` and `data.parts` (page, bbox) recorded."""
    merged: list[Element] = []
    last_body: Element | None = None
    last_index = -1
    for element in elements:
        if element.is_furniture or element.data.get("role") == "margin":
            merged.append(element)
            continue
        previous = last_body
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
            parts = previous.data.get("parts") or [{"page": previous.page, "bbox": list(previous.bbox)}]
            parts.append({"page": element.page, "bbox": list(element.bbox)})
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
    return merged
