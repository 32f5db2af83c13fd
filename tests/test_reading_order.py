"""Reading order and joins on corpus files."""

from __future__ import annotations

import pytest
from conftest import CORPUS

pytestmark = pytest.mark.slow


def _texts(name: str, page: int | None = None) -> list[str]:
    from parsers import parse_pdf

    document = parse_pdf(CORPUS / name, {"ocr": {"mode": "never"}})
    return [e.text for e in document.elements if page is None or e.page == page]


@pytest.mark.shared
def test_an_entry_heading_below_centred_section_titles_reads_after_them():
    """DA-619p p6: "Abomination" sits below "CREATURES", left of it; it opened a column beside it."""
    texts = _texts("DA-619p.pdf", 6)
    assert texts.index("CREATURES") < texts.index("Abomination")


@pytest.mark.shared
def test_a_justified_word_gap_on_one_line_is_no_column():
    """cupertino p1: "...meeting. discourages complaints" with "It should be noted that the
    Board" stranded after it: one wide gap on one line was read as a column gutter."""
    texts = _texts("cupertino_usd_4-6-16.pdf", 1)
    text = "\n".join(texts)
    assert "course of the meeting. It should be noted that the Board" in text
    assert text.index("It should be noted that the Board") < text.index("discourages complaints")
    # one paragraph, not three: two of its lines hold a wide justified gap, at different places
    (paragraph,) = [t for t in texts if "Welcome to the meeting" in t]
    assert "reserve their responses for discussion" in paragraph
    assert paragraph.endswith("employees of the District during open session.")


@pytest.mark.shared
def test_a_paragraph_broken_by_a_page_break_is_one_element():
    """layout-parser-paper-fast: "classification [11," ends page 1, "37], layout detection" opens page 2."""
    from parsers import parse_pdf

    document = parse_pdf(CORPUS / "layout-parser-paper-fast.pdf", {"ocr": {"mode": "never"}})
    (merged,) = [e for e in document.elements if "classification [11," in e.text]
    assert "classification [11, 37], layout detection" in merged.text
    assert (merged.page, merged.page_end) == (1, 2)


@pytest.mark.shared
def test_korean_lines_broken_inside_a_word_join_without_a_space():
    """normal_4pages p1: the producer draws a space at the end of a line that breaks between
    words and none where the break falls inside one ("국내 확" / "진자는 9,661명")."""
    text = "\n".join(_texts("normal_4pages.pdf", 1))
    assert "확진자는 9,661명" in text and "확 진자" not in text
    assert "질병으로 보아야" in text and "질 병으로" not in text


@pytest.mark.shared
def test_korean_header_lines_of_two_sizes_and_table_cells_join_as_printed():
    """normal_4pages: p1's header lines "발행처 국회입법조사처" (10 pt) / "발행인 ..." (9 pt) were
    joined without a space; p2's ruled-table cell lines "파라" / "티푸스" with one (the paragraph
    below prints "파라티푸스"): a cell alone draws no line-end space, the page does."""
    from parsers import parse_pdf

    document = parse_pdf(CORPUS / "normal_4pages.pdf", {"ocr": {"mode": "never"}})
    text = "\n".join(e.text for e in document.elements if e.page == 1)
    assert "국회입법조사처 발행인" in text
    (table,) = [e for e in document.elements if e.page == 2 and e.rows and "대상질병" in e.text]
    cells = [cell for row in table.rows for cell in row]
    assert any("장티푸스, 파라티푸스, 세균성이질, 장출혈성대장균감염증, A형간염" in cell for cell in cells)
    assert "분류 6) (이하 ‘KCD’라 함)" in "\n".join(e.text for e in document.elements if e.page == 2)


@pytest.mark.shared
def test_list_enumerators_reach_the_chunk_text():
    """layout-parser-paper-fast p1-2: the contributions "1." to "4." are in what a chunk
    embeds, not only in the list item's data."""
    from ingest.chunker import chunk_document
    from parsers import parse_pdf

    document = parse_pdf(CORPUS / "layout-parser-paper-fast.pdf", {"ocr": {"mode": "never"}})
    text = "\n".join(chunk.text for chunk in chunk_document(document))
    starts = [text.find(f"\n{n}. ") for n in range(1, 5)]
    assert all(i >= 0 for i in starts) and starts == sorted(starts), starts
    assert "1. An off-the-shelf toolkit" in text
