"""The unconverted pdfium bindings of `parsers.textlayer.pdfium_chars` read exactly what
pypdfium2's declared functions read, for every character of the fixtures' text pages."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from parsers.textlayer import pdfium_chars

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize("name", ["two_column.pdf", "unruled_table.pdf", "scheme_notice_hi.pdf", "mixed.pdf"])
def test_bindings_read_what_pypdfium2_reads(name: str) -> None:
    document = pdfium.PdfDocument(FIXTURES / name)
    try:
        checked = 0
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            raw = textpage.raw
            rect, typed_rect = pdfium_c.FS_RECTF(), pdfium_c.FS_RECTF()
            for char in range(pdfium_c.FPDFText_CountChars(raw)):
                assert pdfium_chars._get_unicode(raw, char) == pdfium_c.FPDFText_GetUnicode(raw, char)
                assert pdfium_chars._has_map_error(raw, char) == pdfium_c.FPDFText_HasUnicodeMapError(raw, char)
                typed_object = pdfium_c.FPDFText_GetTextObject(raw, char)
                expected = ctypes.cast(typed_object, ctypes.c_void_p).value if typed_object else None
                assert pdfium_chars._text_object_address(raw, char) == expected
                pdfium_chars._get_loose_box(raw, char, ctypes.byref(rect))
                pdfium_c.FPDFText_GetLooseCharBox(raw, char, typed_rect)
                assert pdfium_chars._unpack_rect(rect) == (
                    typed_rect.left,
                    typed_rect.top,
                    typed_rect.right,
                    typed_rect.bottom,
                )
                checked += 1
            textpage.close()
            page.close()
        assert checked > 100
    finally:
        document.close()


def test_a_page_reads_into_chars_in_the_displayed_frame() -> None:
    document = pdfium.PdfDocument(FIXTURES / "two_column.pdf")
    try:
        page = document[0]
        textpage = page.get_textpage()
        chars, frame = pdfium_chars.page_to_chars(page, textpage)
        textpage.close()
        page.close()
    finally:
        document.close()
    visible = [c for c in chars if not c.is_space]
    assert frame.rotation == 0 and len(visible) > 100
    assert all(0 <= c.x0 <= c.x1 <= frame.width and 0 <= c.top <= c.bottom <= frame.height for c in visible)
    assert all(c.size > 0 and c.font for c in visible)
