"""Reading order and joins on corpus files (issue 12)."""

from __future__ import annotations

import pytest
from conftest import CORPUS

pytestmark = pytest.mark.slow


def _texts(name: str, page: int | None = None) -> list[str]:
    from parsers import parse_pdf

    document = parse_pdf(CORPUS / name, {"ocr": {"mode": "never"}})
    return [e.text for e in document.elements if page is None or e.page == page]


def test_an_entry_heading_below_centred_section_titles_reads_after_them():
    """DA-619p p6: "Abomination" sits below "CREATURES", left of it; it opened a column beside it."""
    texts = _texts("DA-619p.pdf", 6)
    assert texts.index("CREATURES") < texts.index("Abomination")


def test_a_justified_word_gap_on_one_line_is_no_column():
    """cupertino p1: "...meeting. discourages complaints" with "It should be noted that the
    Board" stranded after it: one wide gap on one line was read as a column gutter."""
    text = "\n".join(_texts("cupertino_usd_4-6-16.pdf", 1))
    assert "course of the meeting. It should be noted that the Board" in text
    assert text.index("It should be noted that the Board") < text.index("discourages complaints")


def test_a_paragraph_broken_by_a_page_break_is_one_element():
    """layout-parser-paper-fast: "classification [11," ends page 1, "37], layout detection" opens page 2."""
    from parsers import parse_pdf

    document = parse_pdf(CORPUS / "layout-parser-paper-fast.pdf", {"ocr": {"mode": "never"}})
    (merged,) = [e for e in document.elements if "classification [11," in e.text]
    assert "classification [11, 37], layout detection" in merged.text
    assert (merged.page, merged.page_end) == (1, 2)
