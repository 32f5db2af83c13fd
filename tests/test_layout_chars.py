"""`layout.chars_to_layout`: the one place characters become a page layout, for the
pdfium pass and the pdfminer fallback alike."""

from __future__ import annotations

from parsers.tables.grid import TableFound
from parsers.textlayer.chars import Char
from parsers.textlayer.layout import chars_to_layout

WIDTH, HEIGHT = 600.0, 800.0


def word(text: str, x0: float, top: float, rotated: bool = False) -> list[Char]:
    return [
        Char(c, x0 + 5 * i, top, x0 + 5 * i + 5, top + 10, 10.0, False, "Helvetica", rotated, c.isspace())
        for i, c in enumerate(text)
    ]


def test_off_page_text_is_dropped_and_rotated_text_set_apart():
    chars = word("Body text here", 100, 100) + word("hidden", 100, -50) + word("stamp", 10, 400, rotated=True)
    layout = chars_to_layout(chars, 3, WIDTH, HEIGHT)
    assert layout.page_no == 3 and (layout.width, layout.height) == (WIDTH, HEIGHT)
    assert [line.text for line in layout.lines] == ["Body text here"]
    assert [s.text for s in layout.rotated] == ["stamp"]
    assert "hidden" not in layout.text and "stamp" in layout.text  # the verdict sees rotated text too


def test_margin_line_numbers_are_stripped():
    chars = []
    for n in range(1, 7):
        chars += word(str(n), 40, 100 + 20 * n) + word(f"line {n} of the transcript", 100, 100 + 20 * n)
    layout = chars_to_layout(chars, 1, WIDTH, HEIGHT)
    assert [line.text for line in layout.lines] == [f"line {n} of the transcript" for n in range(1, 7)]


def test_facts_from_another_pass_are_copied_not_shared():
    """The pdfminer fallback passes the pdfium layout's tables and warnings; changing the
    new layout must not change the pdfium one."""
    tables = [TableFound(rows=[["a", "b"], ["1", "2"]], bbox=(0, 0, 10, 10))]
    warnings = ["page 1: something"]
    layout = chars_to_layout(
        word("x", 100, 100), 1, WIDTH, HEIGHT, image_area_ratio=0.4, tables=tables, warnings=warnings
    )
    layout.tables.clear()
    layout.warnings.append("more")
    assert len(tables) == 1 and warnings == ["page 1: something"] and layout.image_area_ratio == 0.4
