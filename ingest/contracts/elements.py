"""Typed elements and documents: the contract between the parser and every later stage.

A `Document` is what `parse_pdf` returns: per-page facts plus one ordered stream of
`Element`s in reading order. Coordinates are PDF points with the origin at the top-left
of the page (pdfplumber's convention): `bbox = (x0, top, x1, bottom)`.

The canonical document text is the body elements' texts joined with `ELEMENT_SEPARATOR`
in reading order. Chunk offsets (`char_start`, `char_end`) index this text, so its
definition lives here, once.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

ELEMENT_SEPARATOR = "\n\n"


class ElementType(str, Enum):
    # the member `title` shadows `str.title`: the stored value is the contract, so it stays
    title = "title"  # type: ignore[assignment]
    paragraph = "paragraph"
    list_item = "list_item"
    table = "table"
    caption = "caption"
    header = "header"
    footer = "footer"
    page_number = "page_number"
    figure = "figure"


#: Page furniture: kept as elements (for `ingest show` and SQL) but never in chunk text
#: nor in the canonical text.
FURNITURE_TYPES = frozenset({ElementType.header, ElementType.footer, ElementType.page_number})


class TextSource(str, Enum):
    """Where a page's or an element's text came from."""

    text_layer = "text_layer"
    ocr = "ocr"
    empty = "empty"


BBox = tuple[float, float, float, float]


class Element(BaseModel):
    """One typed piece of a page: a heading, a paragraph, a list item, a table, ...

    Invariants: `page` is 1-based; `bbox` is in PDF points, top-left origin;
    `heading_level` is set (1 = top) exactly when `type` is `title`; `rows` is set
    exactly when `type` is `table`, and its first `header_rows` rows are the header.
    For a table, `text` is the rows serialized one per line with cells joined by
    `" | "`, so plain-text consumers still see every cell next to its neighbours.
    """

    model_config = ConfigDict(extra="forbid")

    type: ElementType
    text: str
    page: int = Field(ge=1)
    bbox: BBox = (0.0, 0.0, 0.0, 0.0)
    heading_level: int | None = Field(default=None, ge=1)
    list_level: int | None = Field(default=None, ge=0, description="nesting depth of a list item, 0 = outermost")
    source: TextSource = TextSource.text_layer
    confidence: float | None = Field(default=None, ge=0, le=100, description="OCR confidence, 0-100")
    rows: list[list[str]] | None = None
    header_rows: int = Field(default=0, ge=0)
    page_end: int | None = Field(default=None, description="last page, for a table or paragraph continued across pages")
    caption: str | None = None
    data: dict[str, Any] = Field(default_factory=dict, description="parser extras, stored as JSON")

    @property
    def is_furniture(self) -> bool:
        return self.type in FURNITURE_TYPES

    @property
    def last_page(self) -> int:
        return self.page_end or self.page


def table_rows_to_text(rows: list[list[str]]) -> str:
    """The plain-text form of a table used for `Element.text`: one line a row, cells joined by ' | '."""
    return "\n".join(" | ".join(cell.strip() for cell in row) for row in rows)


class DropReason(str, Enum):
    """Why text of a page's text layer was left out of every element on purpose."""

    off_page = "off_page"  # drawn wholly outside the visible page box (e.g. the facing page of a spread)
    line_number = "line_number"  # margin line numbers of a transcript or legal draft
    overdrawn = "overdrawn"  # the same run drawn again at the same place (fake bold)
    garbage = "garbage"  # an unmapped-glyph text layer (OCR off): nothing readable to keep
    ocr = "ocr"  # the page went to OCR: its elements come from the picture, not the text layer
    repeated_header = "repeated_header"  # a continued table's header printed again atop the next page, kept once


class DroppedText(BaseModel):
    """Text of one page deliberately kept out of the elements. `chars` counts characters as
    `PageInfo.text_chars` does; `sample` is the start of that text, for a reader to judge."""

    model_config = ConfigDict(extra="forbid")

    reason: DropReason
    chars: int = Field(ge=0)
    sample: str = ""


class PageInfo(BaseModel):
    """Facts about one page. `text_source` says whether its elements came from the text
    layer, from OCR, or whether it yielded nothing; `error` is set when the page could not
    be read and was skipped.

    Conservation (`parsers.textlayer.conservation`): `text_chars` counts the characters of
    the page's text layer, `element_chars` those its elements hold, `dropped` what was left
    out on purpose and why; `lost_chars = text_chars - element_chars - sum(dropped.chars)`
    is what went missing without a reason (0 on a sound page; below 0 when an element holds
    text twice). All are None when the page was not counted (another backend, a database
    written before the count existed)."""

    model_config = ConfigDict(extra="forbid")

    page_no: int = Field(ge=1)
    width: float
    height: float
    text_source: TextSource = TextSource.text_layer
    ocr_confidence: float | None = None
    ocr_reason: str | None = Field(default=None, description="why the page went to OCR, e.g. 'no text layer'")
    error: str | None = None
    text_chars: int | None = Field(default=None, ge=0, description="characters in the page's text layer")
    element_chars: int | None = Field(default=None, ge=0, description="characters its elements hold")
    dropped: list[DroppedText] = Field(default_factory=list, description="text left out on purpose, and why")
    lost_chars: int | None = Field(default=None, description="text layer - elements - dropped")


class Document(BaseModel):
    """A parsed PDF: per-page facts and the ordered element stream."""

    model_config = ConfigDict(extra="forbid")

    source_path: str
    content_sha256: str
    size_bytes: int
    page_count: int
    title: str | None = None
    pages: list[PageInfo] = Field(default_factory=list)
    elements: list[Element] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict, description="PDF info dictionary and user rules")
    warnings: list[str] = Field(default_factory=list)

    def body_spans(self) -> list[tuple[int, int] | None]:
        """For each element, its (start, end) in `canonical_text()`, or None for furniture."""
        spans: list[tuple[int, int] | None] = []
        position = 0
        first = True
        for element in self.elements:
            if element.is_furniture:
                spans.append(None)
                continue
            if not first:
                position += len(ELEMENT_SEPARATOR)
            first = False
            spans.append((position, position + len(element.text)))
            position += len(element.text)
        return spans

    def canonical_text(self) -> str:
        """Body element texts joined in reading order; chunk offsets index this string."""
        return ELEMENT_SEPARATOR.join(e.text for e in self.elements if not e.is_furniture)
