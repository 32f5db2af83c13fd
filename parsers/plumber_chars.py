"""pdfminer (via pdfplumber) as a per-page fallback when pdfium loses a page's text.

pdfium cannot map some fonts to Unicode (e.g. a non-embedded CJK font such as SimSun
with a predefined CMap): it then reports no characters for their glyphs at all, while
pdfminer decodes them. The page then looks empty or sparse to `assess_text_layer` and
would be OCR'd (in the wrong language) although its text layer is fine.

The fallback is gated so normal pages never pay for it (pdfminer costs ~200 ms a page):

1. cheap: the pdfium text is sparse for the page's area (< `SPARSE_CHARS_PER_KPT2`
   characters per 1000 pt^2, ~730 on an A4 page); every unusable-text verdict except
   glyph garbage implies this;
2. then: the page holds clearly more text objects than pdfium read glyphs (each text
   object draws at least one glyph): more than `LOST_TEXT_OBJECT_RATIO` x glyphs +
   `LOST_TEXT_OBJECT_SLACK`. Only then is pdfplumber opened (once per document) and the
   page parsed; the pdfplumber page is closed right after.

The pdfminer characters become the parser's `Char`s and the page is rebuilt by the same
`layout.chars_to_layout` the pdfium pass uses (same segments, lines; ruled tables refilled).
Coordinates: pdfplumber's are already PDF points with a top-left origin.
"""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2.raw as pdfium_c

from parsers.chars import _BOLD_NAME, Char
from parsers.layout import PageLayout, chars_to_layout
from parsers.tables import page_to_drawing_facts, pdfium_page_to_tables

#: Below this many pdfium characters (spaces and line breaks included) per 1000 pt^2 a page is worth a closer look.
SPARSE_CHARS_PER_KPT2 = 1.5
#: The page draws more than this many text objects per glyph pdfium read (plus the slack): text was lost.
LOST_TEXT_OBJECT_RATIO = 2.0
LOST_TEXT_OBJECT_SLACK = 5

_CID = re.compile(r"^\(cid:\d+\)$")


def is_sparse(layout: PageLayout) -> bool:
    """Step 1 of the gate: pure arithmetic on what the pdfium pass already has."""
    area_kpt2 = max(layout.width * layout.height, 1.0) / 1000.0
    return layout.error is None and len(layout.text) < SPARSE_CHARS_PER_KPT2 * area_kpt2


def count_text_objects(page) -> int:
    """Text objects of a pypdfium2 page, Form XObjects entered one level deep."""
    raw = page.raw
    count = 0
    for index in range(pdfium_c.FPDFPage_CountObjects(raw)):
        obj = pdfium_c.FPDFPage_GetObject(raw, index)
        kind = pdfium_c.FPDFPageObj_GetType(obj)
        if kind == pdfium_c.FPDF_PAGEOBJ_TEXT:
            count += 1
        elif kind == pdfium_c.FPDF_PAGEOBJ_FORM:
            for child in range(pdfium_c.FPDFFormObj_CountObjects(obj)):
                if pdfium_c.FPDFPageObj_GetType(pdfium_c.FPDFFormObj_GetObject(obj, child)) == pdfium_c.FPDF_PAGEOBJ_TEXT:
                    count += 1
    return count


def lost_text(text_objects: int, text: str) -> bool:
    """Step 2 of the gate: many more text objects than glyphs pdfium read."""
    glyphs = sum(1 for c in text if not c.isspace())
    return text_objects > LOST_TEXT_OBJECT_RATIO * glyphs + LOST_TEXT_OBJECT_SLACK


def plumber_chars_to_chars(raw_chars: list[dict]) -> list[Char]:
    """pdfplumber char dicts -> `Char`s in drawing order.

    A `(cid:N)` placeholder (a glyph without a Unicode mapping) is dropped and, as in
    `chars.textpage_to_chars`, the previous character is stretched over its width so no
    space is guessed in the gap.
    """
    chars: list[Char] = []
    styles: dict[str, tuple[bool, str]] = {}
    for raw in raw_chars:
        text = raw.get("text") or ""
        if not text or any(ord(c) < 32 for c in text):
            continue
        if _CID.match(text):
            if chars and not chars[-1].rotated:
                chars[-1].x1 = max(chars[-1].x1, float(raw["x1"]))
            continue
        fontname = raw.get("fontname") or ""
        style = styles.get(fontname)
        if style is None:
            name = fontname.split("+")[-1]
            style = styles[fontname] = (bool(_BOLD_NAME.search(name)), name)
        chars.append(Char(text, float(raw["x0"]), float(raw["top"]), float(raw["x1"]), float(raw["bottom"]),
                          float(raw.get("size") or 0.0), style[0], style[1], not raw.get("upright", True),
                          text.isspace()))
    return chars


class PdfminerFallback:
    """Opens the PDF with pdfplumber on first use only; `close()` it when the document is done."""

    def __init__(self, path: Path):
        self.path = path
        self._pdf = None

    def page_chars(self, index: int) -> list[Char]:
        """Page `index` (0-based) through pdfminer; the pdfplumber page is closed before returning."""
        if self._pdf is None:
            import pdfplumber

            self._pdf = pdfplumber.open(self.path)
        page = self._pdf.pages[index]
        try:
            return plumber_chars_to_chars(page.chars)
        finally:
            page.close()

    def relayout(self, document, index: int, base: PageLayout, detect_tables: bool) -> PageLayout:
        """Page `index` rebuilt from pdfminer's characters (ruled tables refilled from them)."""
        chars = self.page_chars(index)
        layout = chars_to_layout(chars, index + 1, base.width, base.height, image_area_ratio=base.image_area_ratio,
                                 tables=base.tables, warnings=base.warnings)  # drawings: from the pdfium pass
        if detect_tables and chars:
            page = document[index]
            try:
                if page_to_drawing_facts(page, base.width, base.height).may_hold_ruled_table:
                    layout.tables = pdfium_page_to_tables(page, chars, base.height)
            finally:
                page.close()
        return layout

    def close(self) -> None:
        if self._pdf is not None:
            self._pdf.close()
            self._pdf = None
