"""pdfminer (via pdfplumber) as a per-page fallback when pdfium loses a page's text.

pdfium cannot map some fonts to Unicode (e.g. a non-embedded CJK font such as SimSun
with a predefined CMap): it then reports no characters for their glyphs at all, while
pdfminer decodes them. The page then looks empty or sparse to `assess_text_layer` and
would be OCR'd (in the wrong language) although its text layer is fine.

The fallback is gated so normal pages never pay for it (pdfminer costs ~200 ms a page):

1. cheap: the pdfium text is sparse for the page's area (< `sparse_chars_per_kpt2`
   characters per 1000 pt^2, ~730 on an A4 page); every unusable-text verdict except
   glyph garbage implies this;
2. then: the page holds clearly more text objects than pdfium read glyphs (each text
   object draws at least one glyph): more than `lost_text_object_ratio` x glyphs +
   `lost_text_object_slack` (`TextLayerSettings`). Only then is pdfplumber opened (once per document) and the
   page parsed; the pdfplumber page is closed right after.

The pdfminer characters become the parser's `Char`s and the page is rebuilt by the same
`layout.chars_to_layout` the pdfium pass uses (same segments, lines; ruled tables refilled).
Coordinates: pdfplumber's are already PDF points with a top-left origin, and pdfminer
applies the page's /Rotate itself (its characters are in the displayed frame, its
`upright` flag too), as the pdfium pass does (`frames.PageFrame`). When the pdfium pass read
the page turned from that (text mostly sideways, `pdfium_chars.page_to_chars`), the characters are
turned the same way (`plumber_chars_to_chars(..., turn)`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2.raw as pdfium_c

from parsers.tables.ruled import page_to_drawing_facts, pdfium_page_to_tables
from parsers.tables.settings import DEFAULT_TABLE_SETTINGS, TableSettings
from parsers.textlayer.chars import _BOLD_NAME, Char
from parsers.textlayer.frames import PageFrame
from parsers.textlayer.layout import PageLayout, chars_to_layout
from parsers.textlayer.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings

#: The first code point that is no control character.
_FIRST_PRINTABLE = 0x20
#: Tab, line feed, vertical tab, form feed, carriage return: a glyph a font maps to one of these
#: is its space glyph (`pdfium_chars._drawn`); pdfminer reports only drawn glyphs.
_BREAK_CONTROLS = "\t\n\v\f\r"

_CID = re.compile(r"^\(cid:\d+\)$")


def is_sparse(layout: PageLayout, settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS) -> bool:
    """Step 1 of the gate: pure arithmetic on what the pdfium pass already has."""
    area_kpt2 = max(layout.width * layout.height, 1.0) / 1000.0
    return layout.error is None and len(layout.text) < settings.sparse_chars_per_kpt2 * area_kpt2


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
                if (
                    pdfium_c.FPDFPageObj_GetType(pdfium_c.FPDFFormObj_GetObject(obj, child))
                    == pdfium_c.FPDF_PAGEOBJ_TEXT
                ):
                    count += 1
    return count


def lost_text(text_objects: int, text: str, settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS) -> bool:
    """Step 2 of the gate: many more text objects than glyphs pdfium read."""
    glyphs = sum(1 for c in text if not c.isspace())
    return text_objects > settings.lost_text_object_ratio * glyphs + settings.lost_text_object_slack


def plumber_chars_to_chars(
    raw_chars: list[dict],
    turn: int = 0,
    width: float = 0.0,
    height: float = 0.0,
    origin: tuple[float, float] = (0.0, 0.0),
    settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS,
) -> list[Char]:
    """pdfplumber char dicts -> `Char`s in drawing order.

    A `(cid:N)` placeholder (a glyph without a Unicode mapping) is dropped and, as in
    `pdfium_chars.page_to_chars`, the previous character is stretched over its width so no
    space is guessed in the gap. `turn` (degrees clockwise, 0/90/180/270): move the boxes
    from pdfplumber's frame (`width` x `height`) into that frame turned, and decide
    `rotated` from each character's text matrix there (turn 0: pdfminer's `upright`).
    `origin`: the top-left corner of the visible (crop) box in pdfplumber's coordinates,
    which are measured from the media box; boxes are moved to start there, as pdfium's are.
    A baseline is rotated beyond `settings.upright_slope`.
    """
    frame = PageFrame(turn % 360, 0.0, 0.0, 0.0, 0.0)
    chars: list[Char] = []
    styles: dict[str, tuple[bool, str]] = {}
    for raw in raw_chars:
        text = raw.get("text") or ""
        if len(text) == 1 and text in _BREAK_CONTROLS:
            text = " "
        if not text or any(ord(c) < _FIRST_PRINTABLE for c in text):
            continue
        left, up = origin
        x0, top, x1, bottom = _turn_box(
            frame.rotation,
            float(raw["x0"]) - left,
            float(raw["top"]) - up,
            float(raw["x1"]) - left,
            float(raw["bottom"]) - up,
            width,
            height,
        )
        if _CID.match(text):
            if chars and not chars[-1].rotated:
                chars[-1].x1 = max(chars[-1].x1, x1)
            continue
        fontname = raw.get("fontname") or ""
        style = styles.get(fontname)
        if style is None:
            name = fontname.split("+")[-1]
            style = styles[fontname] = (bool(_BOLD_NAME.search(name)), name)
        rotated = not raw.get("upright", True)
        if frame.rotation and raw.get("matrix"):
            rotated = frame.is_rotated(raw["matrix"][0], raw["matrix"][1], settings.upright_slope)
        chars.append(
            Char(text, x0, top, x1, bottom, float(raw.get("size") or 0.0), style[0], style[1], rotated, text.isspace())
        )
    return chars


def _turn_box(
    turn: int, x0: float, top: float, x1: float, bottom: float, width: float, height: float
) -> tuple[float, float, float, float]:
    """A box (top-left origin) of a `width` x `height` frame, in that frame turned clockwise by `turn` degrees."""
    if turn == 90:
        return height - bottom, x0, height - top, x1
    if turn == 180:
        return width - x1, height - bottom, width - x0, height - top
    if turn == 270:
        return top, width - x1, bottom, width - x0
    return x0, top, x1, bottom


def visible_box(page) -> tuple[float, float, float, float]:
    """A pdfplumber page's visible box (crop box clipped to the media box) as (x0, top, x1,
    bottom) in the frame its characters are in: the media box turned by /Rotate, top-left
    origin. (pdfplumber's own `page.cropbox` is turned the other way on rotated pages, so
    it is rebuilt here from pdfminer's unrotated boxes.)"""
    media = [float(v) for v in page.page_obj.mediabox]
    crop = [float(v) for v in page.page_obj.cropbox or media]
    clipped = (max(crop[0], media[0]), max(crop[1], media[1]), min(crop[2], media[2]), min(crop[3], media[3]))
    return PageFrame(int(page.rotation or 0) % 360, *media).box(*clipped)


class PdfminerFallback:
    """Opens the PDF with pdfplumber on first use only; `close()` it when the document is done."""

    def __init__(self, path: Path):
        self.path = path
        self._pdf = None

    def page_chars(
        self, index: int, turn: int = 0, settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
    ) -> list[Char]:
        """Page `index` (0-based) through pdfminer, in its displayed frame turned clockwise by
        `turn` degrees, measured from the visible (crop) box as pdfium's are (pdfplumber
        measures from the media box); the pdfplumber page is closed before returning."""
        if self._pdf is None:
            import pdfplumber

            self._pdf = pdfplumber.open(self.path)
        page = self._pdf.pages[index]
        try:
            left, top, right, bottom = visible_box(page)
            return plumber_chars_to_chars(
                page.chars, turn % 360, right - left, bottom - top, origin=(left, top), settings=settings
            )
        finally:
            page.close()

    def relayout(
        self,
        document,
        index: int,
        base: PageLayout,
        detect_tables: bool,
        settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS,
        table_settings: TableSettings = DEFAULT_TABLE_SETTINGS,
    ) -> PageLayout:
        """Page `index` rebuilt from pdfminer's characters (ruled tables refilled from them,
        found with `table_settings`), in the frame the pdfium pass read it in (`base.rotation`)."""
        page = document[index]
        try:
            chars = self.page_chars(index, base.turned, settings)
            layout = chars_to_layout(
                chars,
                index + 1,
                base.width,
                base.height,
                image_area_ratio=base.image_area_ratio,
                tables=base.tables,
                warnings=base.warnings,
                settings=settings,
            )  # drawings: from the pdfium pass
            layout.rotation, layout.turned = base.rotation, base.turned
            layout.invisible_text_share = base.invisible_text_share
            if detect_tables and chars:
                frame = PageFrame.of_page(page).turned(base.rotation)
                facts = page_to_drawing_facts(page, base.width, base.height, table_settings)
                if frame.is_quarter_turned:
                    facts.horizontal, facts.vertical = facts.vertical, facts.horizontal
                if facts.may_hold_ruled_table:
                    layout.tables = pdfium_page_to_tables(page, chars, frame, table_settings)
        finally:
            page.close()
        return layout

    def close(self) -> None:
        if self._pdf is not None:
            self._pdf.close()
            self._pdf = None
