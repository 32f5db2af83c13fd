"""Headings on case PDFs of one kind of document each (tests/pdfs/make_<case>.py), against
the truth written beside them: the headings a reader sees, and where each sits in the tree.

Heading paths are built as the chunker builds them: a level -> heading map, deeper levels
dropped at each heading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.contracts.elements import ElementType
from parsers.pdf import parse_pdf

PDFS = Path(__file__).resolve().parent / "pdfs"


def _case(name: str):
    return parse_pdf(PDFS / f"{name}.pdf"), json.loads((PDFS / f"{name}.truth.json").read_text())


def _headings(document) -> list[tuple[int | None, str]]:
    return [(e.heading_level, e.text) for e in document.elements if e.type == ElementType.title]


def _paths(document) -> dict[str, list[str]]:
    """Each heading's text -> its heading path (its ancestors, then itself)."""
    open_levels: dict[int, str] = {}
    paths = {}
    for level, text in _headings(document):
        level = level or 1
        open_levels = {k: v for k, v in open_levels.items() if k < level}
        open_levels[level] = text
        paths[text] = [open_levels[k] for k in sorted(open_levels)]
    return paths


@pytest.fixture(scope="module")
def paper():
    return _case("two_column_numbered_paper")


def test_paper_bold_numbered_headings_in_tex_fonts_are_found(paper):
    document, truth = paper
    assert [text for _, text in _headings(document)] == [h["text"] for h in truth["headings"]]


def test_paper_subsections_nest_under_their_section(paper):
    document, _ = paper
    paths = _paths(document)
    assert paths["5.2 Training Details"][-2:] == ["5 Experiments", "5.2 Training Details"]
    assert paths["6.1 Layout Detection"][-2:] == ["6 Results", "6.1 Layout Detection"]


@pytest.fixture(scope="module")
def manual():
    return _case("manual_code_listing")


def test_manual_code_listing_lines_are_not_headings(manual):
    document, truth = manual
    headings = [text for _, text in _headings(document)]
    assert headings == [h["text"] for h in truth["headings"]]
    body = "\n".join(e.text for e in document.elements if e.type == ElementType.paragraph)
    for line in truth["code_lines"]:
        assert line in body


def test_scanned_handbook_bold_part_names_are_headings():
    document, truth = _case("scanned_handbook")
    found = [(e.page, e.text) for e in document.elements if e.type == ElementType.title]
    assert found == [(h["page"], h["text"]) for h in truth["headings"]]


def test_filing_headings_nest_by_their_numbering():
    """PART > Item > Note, and the bold subsection under its Note, all set in one bold type."""
    document, truth = _case("filing_numbered_parts")
    paths = _paths(document)
    assert [text for _, text in _headings(document)] == [h["text"] for h in truth["headings"]]
    for heading in truth["headings"]:
        assert paths[heading["text"]] == heading["path"], heading["text"]


def test_outline_leads_and_type_fills_in_below_it():
    """Bookmarked sections nest as the outline says; larger unbookmarked box titles stay inside them."""
    document, truth = _case("outlined_report")
    paths = _paths(document)
    for heading in truth["headings"]:
        assert paths[heading["text"]] == heading["path"], heading["text"]


def _bold_block(text: str, top: float, size: float = 10.0):
    from parsers.textlayer.blocks import Block, segments_to_line
    from parsers.textlayer.chars import Segment

    segment = Segment(text, 72.0, top, 72.0 + 5 * len(text), top + size, size, 1.0, "Bold", chars=len(text))
    return Block([segments_to_line([segment])], kind="title")


def test_section_labels_nest_by_what_they_name_not_by_which_comes_first():
    """A cover or contents line may show an Item before the first PART: the PART still holds the Items."""
    from parsers.structure.heading_levels import headings_to_levels, section_label

    assert section_label("Item 1A. Risk Factors") == ("item", "1A")
    assert section_label("NOTE 10 - Income Taxes") == ("note", "10")
    assert section_label("Section 12(b) of the Act") is None  # a citation, not a section label
    texts = ["Item 1. Business", "PART II", "Item 8. Financial Statements", "Note 7 - Goodwill", "Impairment"]
    blocks = [_bold_block(text, 100.0 + 20 * i) for i, text in enumerate(texts)]
    levels = headings_to_levels([(1, b) for b in blocks], None, [])
    assert [levels[id(b)] for b in blocks] == [2, 1, 2, 3, 4]
