"""A stored document as Markdown, from its elements: good enough to read and to feed a Markdown
splitter (headings keep their levels, tables keep their header row, lists their markers).

Pure: `document_to_markdown(document)` reads only the `Document`. Page furniture (headers,
footers, page numbers) is left out, as it is from the chunks. A table's `caption` field is
written above it unless the same text is already a caption element of the document.
"""

from __future__ import annotations

import re

from ingest.contracts.elements import Document, Element, ElementType

#: A list item's own marker at the start of its text: bullets, "1.", "1)", "(a)", "a.".
_MARKER = re.compile(r"^\s*(?:[•●○◦▪■□‣⁃∙·\-–—*+]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxIVX]+\))\s+")
_ORDERED = re.compile(r"^\s*(\d{1,3})[.)]\s+")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def table_to_markdown(rows: list[list[str]], header_rows: int) -> str:
    """A pipe table. Several header rows are joined per column with " / "; a table without a
    header row gets an empty one (Markdown requires a header line)."""
    width = max((len(row) for row in rows), default=0)
    if width == 0:
        return ""
    padded = [[_cell(cell) for cell in row] + [""] * (width - len(row)) for row in rows]
    head, body = padded[:header_rows], padded[header_rows:]
    header = [" / ".join(part for part in column if part) for column in zip(*head)] if head else [""] * width
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def list_item_to_markdown(element: Element) -> str:
    """`- text` (or `N. text` for a numbered item), indented two spaces per nesting level."""
    text = " ".join(element.text.split())
    ordered = _ORDERED.match(text)
    marker = f"{ordered.group(1)}." if ordered else "-"
    return "  " * (element.list_level or 0) + f"{marker} {_MARKER.sub('', text, count=1)}"


def element_to_markdown(element: Element, caption_texts: set[str]) -> str | None:
    """One element's block, or None for furniture and empty elements."""
    if element.is_furniture:
        return None
    if element.type == ElementType.title:
        return "#" * min(element.heading_level or 1, 6) + " " + " ".join(element.text.split())
    if element.type == ElementType.table and element.rows:
        table = table_to_markdown(element.rows, element.header_rows)
        caption = (element.caption or "").strip()
        return f"*{caption}*\n\n{table}" if caption and caption not in caption_texts else table
    if element.type == ElementType.list_item:
        return list_item_to_markdown(element)
    if element.type == ElementType.caption:
        return f"*{element.text.strip()}*" if element.text.strip() else None
    return element.text.strip() or None


def document_to_markdown(document: Document) -> str:
    """The document's body elements in reading order; consecutive list items form one list."""
    captions = {e.text.strip() for e in document.elements if e.type == ElementType.caption}
    parts: list[str] = []
    previous_list = False
    for element in document.elements:
        block = element_to_markdown(element, captions)
        if block is None:
            continue
        is_list = element.type == ElementType.list_item
        if is_list and previous_list:
            parts[-1] += "\n" + block
        else:
            parts.append(block)
        previous_list = is_list
    return "\n\n".join(parts) + "\n"
