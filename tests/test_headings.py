"""Heading rules that keep chunks' heading paths right (parsers/structure/headings.py, parsers/structure/toc.py).

Each rule is checked on a hand-built block (pure function) and, where the layout matters,
on a small PDF generated with fpdf2 and parsed end to end; heading paths are built the way
the chunker builds them (a level -> heading map, deeper levels dropped at each heading).
"""

from __future__ import annotations

import pytest

from ingest.contracts.elements import ElementType
from parsers.pdf import parse_pdf
from parsers.structure.headings import block_is_heading, blocks_to_headings, heading_shape_ok
from parsers.structure.toc import is_toc_entry_line, is_toc_heading, toc_level
from parsers.textlayer.blocks import Block, Line
from parsers.textlayer.chars import Segment


def _segment(text, x0, top, size, bold):
    return Segment(
        text=text,
        x0=x0,
        top=top,
        x1=x0 + 0.5 * size * len(text),
        bottom=top + size,
        size=size,
        bold=bold,
        font="F",
        chars=len(text),
    )


def _block(*runs, top=100.0):
    """One line of `(text, size, bold)` runs laid out left to right."""
    segments, x = [], 50.0
    for text, size, bold in runs:
        segments.append(_segment(text, x, top, size, bold))
        x = segments[-1].x1 + 3
    size = max(s.size for s in segments)
    chars = sum(s.chars for s in segments)
    line = Line(
        segments=segments,
        x0=50.0,
        top=top,
        x1=x,
        bottom=top + size,
        size=sum(s.size * s.chars for s in segments) / chars,
        bold=sum(s.bold * s.chars for s in segments) / chars,
        text=" ".join(s.text for s in segments),
    )
    return Block([line])


def _heading_paths(elements):
    """(element text, heading path) for body elements, as DESIGN.md's chunker builds paths."""
    open_headings: dict[int, str] = {}
    paths = []
    for element in elements:
        if element.is_furniture:
            continue
        if element.type is ElementType.title:
            open_headings = {lvl: t for lvl, t in open_headings.items() if lvl < element.heading_level}
            open_headings[element.heading_level] = element.text
        else:
            paths.append((element.text, [open_headings[lvl] for lvl in sorted(open_headings)]))
    return paths


# --- key figures are not headings -------------------------------------------------------


def test_key_figure_printed_big_beside_its_label_is_not_a_heading():
    figure = _block(("New jobs created", 9.0, 0.0), ("2,32,822", 25.0, 0.0))
    assert not block_is_heading(figure, body_size=8.5)
    bold_figure = _block(("New jobs created 2,32,822", 16.0, 1.0))  # one size, bold, large
    assert not block_is_heading(bold_figure, body_size=8.5)
    assert not block_is_heading(_block(("CSR contribution", 9.0, 0.0), ("`1,186 crore", 18.0, 0.5)), 8.5)


def test_headings_with_years_numbering_and_counts_stay_headings():
    for text in (
        "Plan d’action du transport actif 2021-2026",
        "4.2. Plan d’action",
        "Route 105",
        "Attending the 45th AGM Online",
        "History of Kirkwall: Chapter 1",
    ):
        assert block_is_heading(_block((text, 16.0, 1.0)), body_size=10.0), text
    # a chapter opener with its number in huge type is numbering, not a key figure
    assert block_is_heading(_block(("Chapter", 14.0, 1.0), ("3", 40.0, 1.0)), body_size=10.0)


def test_heading_shape_rejects_sentences_figures_and_clauses():
    assert heading_shape_ok("Réduction de la vitesse")
    assert heading_shape_ok("1.1. Pourquoi avons-nous besoin d’une révision?")
    assert not heading_shape_ok(
        "La Municipalité doit faire plus pour réduire la vitesse sur la route, en particulier à proximité des écoles."
    )
    assert not heading_shape_ok("Total revenue 7,92,756")
    assert not heading_shape_ok("2.5 %")
    assert not heading_shape_ok("and the seed rate,")


# --- a bookmark does not make a sentence a heading --------------------------------------


def test_outline_entry_that_is_a_sentence_stays_a_paragraph():
    sentence = (
        "La Municipalité doit travailler avec le ministère des transports du Québec pour s'assurer "
        "que les sentiers et les routes sont balayés régulièrement."
    )
    blocks = [
        (1, _block(("Balayage des pistes cyclables", 10.0, 0.0), top=70)),
        (1, _block((sentence, 10.0, 0.0), top=110)),
        (1, _block(("Totalement en accord 135", 10.0, 0.0), top=300)),
    ]
    outline = [(0, "Annexe A", 0), (1, "Balayage des pistes cyclables", 1), (1, sentence, 1)]
    blocks_to_headings(blocks, body_size=10.0, outline=outline)
    kinds = {b.text: b.kind for _, b in blocks}
    assert kinds["Balayage des pistes cyclables"] == "title"  # a real bookmarked heading still counts
    assert kinds[sentence] == "paragraph"


# --- tables of contents ----------------------------------------------------------------


def test_toc_entry_lines_and_labels():
    assert is_toc_entry_line("MAIN GAME ......................................................6")
    assert is_toc_entry_line("3.3. Rencontres avec les groupes du milieu . . . . . . 22")
    assert is_toc_entry_line("Preface … xi")
    assert not is_toc_entry_line("The soldier handed the woodcutter his last scrap of bread.")
    assert not is_toc_entry_line("Route 105")
    for label in ("Table of Contents", "CONTENTS", "Table des matières", "Sommaire", "विषय सूची", "목차"):
        assert is_toc_heading(label, []), label
    assert not is_toc_heading("Contents of the seed kit", ["Two packets of seed and a leaflet."])


def test_unlabelled_contents_page_is_recognised_by_its_entries():
    entries = [f"Chapter {n} ........ {n * 7}" for n in range(1, 6)]
    assert is_toc_heading("What is inside", entries)
    assert not is_toc_heading("Sowing", entries[:2] + ["Sow after the first good rain."] * 4)


def test_toc_level_lets_the_next_heading_close_the_contents():
    assert toc_level(4) == 4
    assert toc_level(1) == 2  # never level 1: that is the document title's level
    assert toc_level(None) == 2


def test_toc_heading_is_not_the_title_and_not_the_parent_of_later_sections():
    blocks = [
        (1, _block(("Table of Contents", 16.0, 1.0), top=70)),
        (1, _block(("CREATURES ........................ 2", 12.0, 0.0), top=100)),
        (1, _block(("Abomination ...................... 2", 12.0, 0.0), top=115)),
        (1, _block(("Arcane Horror .................... 2", 12.0, 0.0), top=130)),
        (2, _block(("CREATURES", 14.0, 1.0), top=60)),
        (2, _block(("Abomination", 12.0, 1.0), top=90)),
        (2, _block(("It is known that mages are able to walk the Fade while aware.", 12.0, 0.0), top=110)),
    ]
    title = blocks_to_headings(blocks, body_size=12.0, outline=[])
    assert title != "Table of Contents"
    levels = {b.text: b.level for _, b in blocks if b.kind == "title"}
    assert levels["Table of Contents"] >= levels["CREATURES"]  # CREATURES closes the contents section
    assert levels["Abomination"] > levels["CREATURES"]


def _one_page_pdf():
    """An A4 fpdf2 document with one page and no automatic page breaks (text placed by hand)."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    return pdf


def _toc_book(path):
    pdf = _one_page_pdf()
    pdf.set_font("Helvetica", "B", 16)
    pdf.set_xy(20, 20)
    pdf.cell(0, 10, "Table of Contents")
    pdf.set_font("Helvetica", "", 11)
    for row, (entry, page) in enumerate(
        [("CREATURES", 2), ("Abomination", 2), ("Arcane Horror", 2), ("ITEMS", 3), ("The Summer Sword", 3)]
    ):
        pdf.set_xy(20, 40 + 7 * row)
        pdf.cell(0, 6, f"{entry} {'.' * 60} {page}")
    body = (
        "It is known that mages are able to walk the Fade while completely aware of their "
        "surroundings, and demons are drawn to them for that reason."
    )
    for chapter, sections in (("CREATURES", ("Abomination", "Arcane Horror")), ("ITEMS", ("The Summer Sword",))):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 14)
        pdf.set_xy(20, 20)
        pdf.cell(0, 10, chapter)
        y = 40
        for section in sections:
            pdf.set_font("Helvetica", "B", 12)
            pdf.set_xy(20, y)
            pdf.cell(0, 8, section)
            pdf.set_font("Helvetica", "", 11)
            pdf.set_xy(20, y + 10)
            pdf.multi_cell(170, 6, body)
            y += 45
    pdf.output(str(path))
    return path


def test_parsed_book_heading_paths_never_start_with_table_of_contents(tmp_path):
    doc = parse_pdf(_toc_book(tmp_path / "book.pdf"), {"ocr": {"mode": "never"}})
    assert doc.title != "Table of Contents"
    paths = _heading_paths(doc.elements)
    body_paths = [path for text, path in paths if text.startswith("It is known")]
    assert body_paths == [["CREATURES", "Abomination"], ["CREATURES", "Arcane Horror"], ["ITEMS", "The Summer Sword"]]
    toc_paths = [path for text, path in paths if text.startswith("CREATURES ...")]
    assert toc_paths == [["Table of Contents"]]  # the entries still sit under their own heading


def _report_page(path):
    pdf = _one_page_pdf()
    pdf.set_font("Helvetica", "", 15)
    pdf.set_xy(20, 20)
    pdf.cell(0, 10, "India's largest company")
    pdf.set_font("Helvetica", "B", 9)
    pdf.set_xy(20, 40)
    pdf.cell(0, 6, "EMPLOYMENT CREATION")
    pdf.set_xy(20, 52)
    pdf.set_font("Helvetica", "", 9)
    pdf.cell(30, 10, "New jobs created")
    pdf.set_font("Helvetica", "B", 25)
    pdf.cell(60, 10, "2,32,822")
    pdf.set_font("Helvetica", "B", 11)
    pdf.set_xy(20, 80)
    pdf.cell(0, 8, "About this Report")
    pdf.set_font("Helvetica", "", 8.5)
    for row in range(4):
        pdf.set_xy(20, 92 + 5 * row)
        pdf.cell(0, 5, "The Integrated Annual Report has been prepared in alignment with the framework.")
    pdf.output(str(path))
    return path


def test_parsed_key_figure_is_body_text_under_its_label(tmp_path):
    doc = parse_pdf(_report_page(tmp_path / "report.pdf"), {"ocr": {"mode": "never"}})
    titles = [e.text for e in doc.elements if e.type is ElementType.title]
    assert "EMPLOYMENT CREATION" in titles and "About this Report" in titles
    assert not any("2,32,822" in t for t in titles)
    paths = dict(_heading_paths(doc.elements))
    figure = next(text for text in paths if "2,32,822" in text)
    assert paths[figure][-1] == "EMPLOYMENT CREATION"
    about = next(text for text in paths if text.startswith("The Integrated"))
    assert "New jobs created 2,32,822" not in " / ".join(paths[about])
