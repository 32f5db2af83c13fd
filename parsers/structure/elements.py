"""Blocks -> typed `Element`s: paragraphs, titles, list items with levels, tables with
captions, page furniture; and tables continued across a page break merged into one.
"""

from __future__ import annotations

from ingest.contracts.elements import Element, ElementType, table_rows_to_text
from parsers.structure.captions import caption_of, names_statement, table_title_of
from parsers.structure.lists import LIST_MARKER, marker_positions_to_levels, split_marker
from parsers.tables.grid import TableFound
from parsers.textlayer.blocks import Block, Line
from parsers.textlayer.layout import PageLayout

_FURNITURE_TYPES = {"header": ElementType.header, "footer": ElementType.footer, "page_number": ElementType.page_number}


#: Longest text (characters) read as a caption: "Table 3: ..." and statement titles are a line or
#: two; a paragraph that merely opens with "Table 3 shows ..." runs on for sentences.
CAPTION_MAX_CHARS = 400


def _bbox(box) -> tuple[float, float, float, float]:
    return tuple(round(float(v), 2) for v in box)


def blocks_to_elements(
    page_blocks: list[tuple[int, Block]], furniture: dict[int, list[tuple[str, Line]]], layouts: list[PageLayout]
) -> list[Element]:
    """Elements in reading order, page by page: header furniture, body, footer furniture,
    then rotated text: margin furniture when there is little of it (an arXiv stamp, typed
    `header` with `data.role = "margin"` so it never enters the body), body paragraphs
    otherwise (`MARGIN_TEXT_MAX_CHARS`), so no text read at an angle is lost."""
    mark_list_items(page_blocks)
    attach_captions(page_blocks)
    by_page: dict[int, list[Block]] = {}
    for page, block in page_blocks:
        by_page.setdefault(page, []).append(block)
    elements: list[Element] = []
    for layout in layouts:
        page = layout.page_no
        found = furniture.get(page, [])
        elements.extend(_furniture(kind, line, page) for kind, line in found if kind == "header")
        elements.extend(e for block in by_page.get(page, []) if (e := block_to_element(block, page)) is not None)
        elements.extend(_furniture(kind, line, page) for kind, line in found if kind != "header")
        elements.extend(_rotated_elements(layout.rotated, page, read_turned=bool(layout.turned)))
    return elements


#: Rotated text on a page up to this many characters is margin furniture (an arXiv stamp, a
#: sideways label); more is content printed at an angle (a table printed sideways) and
#: stays in the body, after the page's other text.
MARGIN_TEXT_MAX_CHARS = 200


def _rotated_elements(segments, page: int, read_turned: bool) -> list[Element]:
    """On a page read turned (its text mostly sideways in the viewer), the "rotated" text is
    what a viewer shows upright: content, never margin furniture."""
    texts = [(segment, segment.text.strip()) for segment in segments if segment.text.strip()]
    is_margin = not read_turned and sum(len(text) for _, text in texts) <= MARGIN_TEXT_MAX_CHARS
    kind, data = (
        (ElementType.header, {"role": "margin", "rotated": True})
        if is_margin
        else (ElementType.paragraph, {"rotated": True})
    )
    return [
        Element(type=kind, text=text, page=page, bbox=_bbox((s.x0, s.top, s.x1, s.bottom)), data=dict(data))
        for s, text in texts
    ]


def _furniture(kind: str, line: Line, page: int) -> Element:
    return Element(
        type=_FURNITURE_TYPES[kind],
        text=line.text.strip(),
        page=page,
        bbox=_bbox((line.x0, line.top, line.x1, line.bottom)),
    )


def _level_or_top(block: Block) -> int:
    """A title block's heading level; 1 when no pass has set one."""
    return 1 if block.level is None else block.level


def block_to_element(block: Block, page: int) -> Element | None:
    if block.kind == "table":
        table: TableFound = block.table
        return Element(
            type=ElementType.table,
            text=table_rows_to_text(table.rows),
            page=page,
            bbox=_bbox(table.bbox),
            rows=table.rows,
            header_rows=table.header_rows,
            caption=block.caption,
            data=table_to_data(table),
        )
    if block.kind == "figure":
        return figure_to_element(block, page)
    text = block.text.strip()
    if not text:
        return None
    bbox = _bbox(block.bbox)
    if block.kind == "title":
        marker, rest = split_marker(text)
        if marker and not marker[0].isalnum() and not marker.startswith("(") and rest:
            # a bulleted heading ("✓ Le financement ...") reads in heading paths without its glyph
            return Element(
                type=ElementType.title,
                text=rest,
                page=page,
                bbox=bbox,
                heading_level=_level_or_top(block),
                data={"marker": marker},
            )
        return Element(type=ElementType.title, text=text, page=page, bbox=bbox, heading_level=_level_or_top(block))
    if block.kind == "caption":
        return Element(type=ElementType.caption, text=text, page=page, bbox=bbox)
    if block.kind == "list_item":
        # An enumerator ("1.", "a)", "(iv)") is part of what the item says (a numbered step
        # list must read as numbered): it stays in the text as printed; only a bullet glyph
        # is stripped. Both are also in `data["marker"]`.
        marker, rest = split_marker(text)
        is_bullet = marker is not None and not any(c.isalnum() for c in marker)
        return Element(
            type=ElementType.list_item,
            text=(rest or text) if is_bullet else text,
            page=page,
            bbox=bbox,
            list_level=block.list_level or 0,
            data={"marker": marker} if marker else {},
        )
    return Element(type=ElementType.paragraph, text=text, page=page, bbox=bbox)


def table_to_data(table: TableFound) -> dict:
    """A table element's `data`: `ruled`, `columns`, and for tables without rulings
    `row_indents` (per row, its label's indent level, 0 = leftmost) when any row is indented."""
    data = {"ruled": table.ruled, "columns": len(table.rows[0]) if table.rows else 0}
    if any(table.row_indents):
        data["row_indents"] = list(table.row_indents)
    return data


def figure_to_element(block: Block, page: int) -> Element | None:
    """A `figure` element: the figure's box, its labels as `text` (one per line; empty when
    the text over the image is body text) and its caption. A figure with neither labels nor
    a caption (a logo, a photo standing alone) gives no element: it holds nothing to read."""
    figure = block.figure
    caption = block.caption
    if figure is None or not figure.text and not caption:
        return None
    return Element(type=ElementType.figure, text=figure.text, page=page, bbox=_bbox(figure.bbox), caption=caption)


def mark_list_items(page_blocks: list[tuple[int, Block]]) -> None:
    """Blocks starting with a list marker become list items; nesting levels per run of
    consecutive items on a page, from the markers' x positions."""
    run: list[Block] = []
    run_page = None

    def close() -> None:
        if run:
            for block, level in zip(run, marker_positions_to_levels([b.lines[0].x0 for b in run])):
                block.list_level = level
        run.clear()

    for page, block in page_blocks:
        is_item = block.kind == "paragraph" and bool(LIST_MARKER.match(block.lines[0].text))
        if is_item:
            block.kind = "list_item"
            if page != run_page:
                close()
            run.append(block)
            run_page = page
        elif block.kind != "title" or run:
            close()
    close()


def _previous_level(page_blocks: list[tuple[int, Block]], index: int) -> int:
    """The level of the last heading before `page_blocks[index]` (1 when there is none)."""
    for _, block in reversed(page_blocks[:index]):
        if block.kind == "title" and block.level is not None:
            return block.level
    return 1


def attach_captions(page_blocks: list[tuple[int, Block]]) -> None:
    """ "Table 3: ..." / "Figure 2. ..." paragraphs become captions; a caption directly above or
    below a table or a figure on the same page is also stored on it.

    A statement title or unit line (`table_title_of`: "Consolidated Statements of Cash Flows (In
    thousands)", "(Unaudited; Dollars in Millions)") directly above a table becomes a caption
    too: up to two such blocks, joined top-down, are the table's caption. A title that names a
    statement ("Consolidated Balance Sheets", `names_statement`) is a heading as well: the
    statement is a section of its own, and as a caption only it left the heading before it open
    over the statement (in an annual report, the auditor's last critical-audit-matter heading
    would head the balance sheet and the cash flow statement). A heading keeps its level; a
    statement title set in body type gets the level of the heading before it
    (`_previous_level`), so it closes that heading as its sibling. Unit and period lines ("(In
    millions)") are captions only, and so is a sentence that introduces the table ("Certain
    Consolidated Statements of Cash Flows amounts are as follows:"): as a heading it would head
    every chunk after it, pages on."""
    for i, (page, block) in enumerate(page_blocks):
        too_long = len(block.text) > CAPTION_MAX_CHARS
        if block.kind not in ("paragraph", "title") or not caption_of(block.text) or too_long:
            continue
        block.kind = "caption"
        for j in (i + 1, i - 1):
            if (
                0 <= j < len(page_blocks)
                and page_blocks[j][0] == page
                and page_blocks[j][1].kind in ("table", "figure")
            ):
                if page_blocks[j][1].caption is None:  # the first caption found keeps it
                    page_blocks[j][1].caption = block.text
                break
    for i, (page, table) in enumerate(page_blocks):
        if table.kind != "table" or table.caption is not None:
            continue
        titles = []
        for j in (i - 1, i - 2):
            above = page_blocks[j][1] if j >= 0 and page_blocks[j][0] == page else None
            if above is None or above.kind not in ("paragraph", "title") or not table_title_of(above.text.strip()):
                break
            titles.insert(0, above)
        for above in titles:
            if (
                above.kind == "paragraph"
                and names_statement(above.text)
                and above is titles[0]
                and not above.text.rstrip().endswith(":")
            ):
                above.kind = "title"  # a statement opens a section of its own (docstring)
                above.level = _previous_level(page_blocks, i)
            elif not (above.kind == "title" and names_statement(above.text)):
                above.kind = "caption"
        if titles:
            table.caption = " ".join(b.text.strip() for b in titles)
