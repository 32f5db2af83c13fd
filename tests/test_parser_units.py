"""Pure pieces of the parser on hand-built inputs: no PDF needed."""

from __future__ import annotations

import importlib.util

import pytest

from ingest.contracts.elements import DropReason, Element, ElementType, table_rows_to_text
from ingest.contracts.errors import ConfigError
from parsers.pdf import parse_pdf
from parsers.pdf_info import pdf_date_to_iso, sensible_info_title
from parsers.structure.captions import caption_of
from parsers.structure.furniture import furniture_key, is_page_number, pages_to_furniture_keys
from parsers.structure.headings import numbering_depth
from parsers.structure.lists import marker_positions_to_levels, split_marker
from parsers.structure.table_continuation import merge_continued_tables, strip_repeated_header
from parsers.tables.grid import rows_to_header_count
from parsers.textlayer.blocks import Line, lines_to_text, segments_to_lines
from parsers.textlayer.chars import Segment, normalize_text
from parsers.textlayer.regions import lines_to_regions


def seg(text, x0, top, width=None, size=10.0):
    width = width if width is not None else 5.0 * len(text)
    return Segment(
        text=text, x0=x0, top=top, x1=x0 + width, bottom=top + size, size=size, bold=0.0, font="F", chars=len(text)
    )


def line(text, top=0.0):
    return Line(segments=[seg(text, 0, top)], x0=0, top=top, x1=100, bottom=top + 10, size=10, bold=0, text=text)


def test_normalize_text_ligatures_soft_hyphens_zero_width_and_devanagari_order():
    assert normalize_text("ﬁnance\u00adment\u200b") == "financement"
    assert normalize_text("िनयंत्रण") == "नियंत्रण"  # display order -> logical
    assert normalize_text("नियंत्रण") == "नियंत्रण"  # logical order left alone


def test_lines_join_with_hyphenation_undone_only_before_lower_case():
    assert lines_to_text([line("good manage-"), line("ment of pests")]) == "good management of pests"
    assert lines_to_text([line("the COVID-"), line("19 wave")]) == "the COVID-19 wave"  # kept, no space


def test_two_columns_read_left_column_then_right_column():
    segments = [seg("Title across the whole page width here", 50, 10, width=400)]
    for row in range(4):
        segments.append(seg(f"left {row} text of the left column", 50, 40 + 14 * row, width=180))
        segments.append(seg(f"right {row} text of the right column", 270, 40 + 14 * row, width=180))
    segments.append(seg("Closing line spanning both columns of the page", 50, 120, width=400))
    regions = lines_to_regions(segments_to_lines(segments), em=10.0)
    order = [
        l.text.split()[0] + (l.text.split()[1] if l.text.split()[0] in ("left", "right") else "")
        for r in regions
        for l in r
    ]
    assert order == ["Title", "left0", "left1", "left2", "left3", "right0", "right1", "right2", "right3", "Closing"]


def test_numbered_list_markers_do_not_split_into_a_column():
    segments = []
    for row in range(5):
        segments.append(seg(f"{row + 1}.", 50, 14 * row, width=8))
        segments.append(seg("item text that is long enough to matter", 70, 14 * row, width=300))
    regions = lines_to_regions(segments_to_lines(segments), em=10.0)
    assert len(regions) == 1 and regions[0][0].text.startswith("1. item")


def test_list_markers_and_levels():
    assert split_marker("• Seed rate") == ("•", "Seed rate")
    assert split_marker("(iv) Apply") == ("(iv)", "Apply")
    assert split_marker("2) Sow") == ("2)", "Sow")
    assert split_marker("1.5 kg per acre")[0] is None
    assert marker_positions_to_levels([72.0, 90.0, 90.5, 72.0, 108.0]) == [0, 1, 1, 0, 2]


def test_numbering_depth():
    assert numbering_depth("2 Methods") == 1
    assert numbering_depth("2.1 Scope") == 2
    assert numbering_depth("A.3 Annex detail") == 2
    assert numbering_depth("Chapter 3 Pests") == 1
    assert numbering_depth("Sowing window") is None


def test_table_header_detection():
    assert rows_to_header_count([["Crop", "MSP"], ["Paddy", "2300"], ["Jowar", "3371"]]) == 1
    assert rows_to_header_count([["Paddy", "2300"], ["Jowar", "3371"]]) == 0
    assert rows_to_header_count([["2023", "2024"], ["1", "2"]], first_row_bold=True) == 1
    assert rows_to_header_count([["2023", "2024"], ["1", "2"]], first_row_bold=False) == 0
    assert strip_repeated_header([["Pest", "Dose"]], [["Pest", "Dose"], ["Aphids", "3 ml"]]) == [["Aphids", "3 ml"]]
    # only exactly the header is a repeat: other rows are text that no element would hold
    assert strip_repeated_header([["Pest", "Dose"]], [["pest", "dose"], ["Aphids", "3 ml"]]) == [
        ["pest", "dose"],
        ["Aphids", "3 ml"],
    ]


def test_a_banner_row_above_column_names_makes_both_the_header():
    # chelsea_pdta.pdf's action plans: "AXE 1 – RESSOURCES" spans the table, the column names
    # follow; with only the banner as header, later row pieces would lose "ÉCHEANCIER".
    rows = [
        ["", "AXE 1 – RESSOURCES", "", ""],
        ["AXES D'EVALUATION", "", "ACTIONS", "ÉCHEANCIER"],
        ["Embaucher", "", "Créer un poste d'expert", "2022*"],
        ["Former", "", "Ateliers", "2023"],
    ]
    assert rows_to_header_count(rows) == 2
    # a one-cell first row of a two-column table is not a banner
    assert rows_to_header_count([["Note", ""], ["Pest", "Dose"], ["Whitefly", "2 ml"]]) != 2


def _table(rows, page, header_rows=1):
    return Element(
        type=ElementType.table,
        text=table_rows_to_text(rows),
        page=page,
        rows=rows,
        header_rows=header_rows,
        data={"ruled": True},
    )


def test_table_continued_on_next_page_merges_and_drops_repeated_header():
    first = _table([["Pest", "Dose"], ["Whitefly", "2 ml"]], page=2)
    footer = Element(type=ElementType.footer, text="Page 2 of 5", page=2)
    header = Element(type=ElementType.header, text="Manual", page=3)
    second = _table([["Pest", "Dose"], ["Aphids", "3 ml"]], page=3)
    after = Element(type=ElementType.paragraph, text="Never mix.", page=3)
    merged, dropped = merge_continued_tables([first, footer, header, second, after])
    assert [(d.reason, d.chars, d.sample) for d in dropped[3]] == [(DropReason.repeated_header, 8, "Pest Dose")]
    tables = [e for e in merged if e.type is ElementType.table]
    assert len(tables) == 1
    assert tables[0].rows == [["Pest", "Dose"], ["Whitefly", "2 ml"], ["Aphids", "3 ml"]]
    assert (tables[0].page, tables[0].page_end, tables[0].header_rows) == (2, 3, 1)
    assert [e.type for e in merged] == [
        ElementType.table,
        ElementType.footer,
        ElementType.header,
        ElementType.paragraph,
    ]


def test_table_after_prose_on_next_page_is_not_merged():
    first = _table([["Pest", "Dose"], ["Whitefly", "2 ml"]], page=2)
    prose = Element(type=ElementType.paragraph, text="Other text.", page=3)
    second = _table([["Crop", "MSP"], ["Paddy", "2300"]], page=3)
    merged = merge_continued_tables([first, prose, second]).elements
    assert len([e for e in merged if e.type is ElementType.table]) == 2


def test_a_table_opening_with_its_own_title_row_under_the_same_header_is_not_a_continuation():
    # GENERALMILLS_2020_10K p91-92: each table of the note opens under "In Millions | May 31,
    # 2020 | ..." with a title row; p92's "Land, buildings, and equipment:" is its own table.
    first = _table([["In Millions", "2020"], ["Prepaid expenses:", ""], ["Prepaid", "$194.5"]], page=91)
    second = _table([["In Millions", "2020"], ["Land, buildings:", ""], ["Land", "66.1"]], page=92)
    merged, dropped = merge_continued_tables([first, second])
    assert [e.rows for e in merged] == [first.rows, second.rows] and not dropped
    # a continuation going on with rows of the section it broke off in is merged
    rest = _table([["In Millions", "2020"], ["Other", "9.4"]], page=92)
    merged, dropped = merge_continued_tables([first, rest])
    assert merged[0].rows == [*first.rows, ["Other", "9.4"]] and dropped[92][0].sample == "In Millions 2020"


def test_furniture_keys_need_repetition_and_page_numbers_do_not():
    pages = [[("footer", f"Page {n} of 5"), ("header", "Cotton Manual 2024")] for n in range(1, 6)]
    pages[2].append(("header", "A one-off heading"))
    keys = pages_to_furniture_keys(pages, min_pages=3)
    assert ("footer", furniture_key("Page 9 of 5")) in keys and ("header", "cotton manual #") in keys
    assert ("header", "a one-off heading") not in keys
    assert is_page_number("- 7 -") and is_page_number("Page 3") and is_page_number("xii")
    assert not is_page_number("2024 season")


def test_pdf_dates_and_info_titles():
    assert pdf_date_to_iso("D:20200331180255+09'00'") == "2020-03-31T18:02:55+09:00"
    assert pdf_date_to_iso("D:20240601090000Z") == "2024-06-01T09:00:00+00:00"
    assert pdf_date_to_iso("yesterday") is None
    assert sensible_info_title({"Title": "Cotton Crop Manual"}) == "Cotton Crop Manual"
    assert sensible_info_title({"Title": "Microsoft Word - draft3.docx"}) is None
    assert sensible_info_title({"Title": "905_Precinct_NoOU"}) is None


def test_unknown_setting_is_rejected(tmp_path):
    with pytest.raises(Exception, match="extra"):
        parse_pdf(tmp_path / "x.pdf", {"detect_tablez": True})


def test_unstructured_backend_missing_says_how_to_install(tmp_path):
    if importlib.util.find_spec("unstructured") is not None:
        pytest.skip("unstructured is installed; this tests the missing-extra path")
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    with pytest.raises(ConfigError, match=r"pip install 'pdf-ingest\[unstructured\]'"):
        parse_pdf(pdf, {"backend": "unstructured"})


def _block(text, size=10.0, bold=0.0, top=100.0):
    from parsers.textlayer.blocks import Block

    body_line = Line(
        segments=[seg(text, 50, top, size=size)],
        x0=50,
        top=top,
        x1=400,
        bottom=top + size,
        size=size,
        bold=bold,
        text=text,
    )
    return Block([body_line])


def test_heading_levels_from_styles_numbering_and_outline():
    from parsers.structure.headings import blocks_to_headings

    blocks = [
        (1, _block("Cotton Manual", size=20, bold=1, top=40)),
        (1, _block("1 Sowing", size=14, bold=1)),
        (1, _block("Plain body text of the section that is long enough to be a paragraph.", top=150)),
        (1, _block("1.1 Seed rate", size=12, bold=1, top=200)),
        (2, _block("2 Pests", size=14, bold=1, top=60)),
        (2, _block("Whitefly", top=90)),  # body style, but the outline says it is a heading
    ]
    outline = [(0, "1 Sowing", 1), (1, "1.1 Seed rate", 1), (0, "2 Pests", 2), (1, "Whitefly", 2)]
    title = blocks_to_headings(blocks, body_size=10.0, outline=outline)
    assert title == "Cotton Manual"
    levels = {b.text: (b.kind, b.level) for _, b in blocks}
    assert levels["Cotton Manual"] == ("title", 1)
    assert levels["1 Sowing"] == ("title", 2) and levels["2 Pests"] == ("title", 2)
    assert levels["1.1 Seed rate"] == ("title", 3)
    assert levels["Whitefly"] == ("title", 3)
    assert levels["Plain body text of the section that is long enough to be a paragraph."][0] == "paragraph"


def _edge(x0, top, x1, bottom):
    horizontal = top == bottom
    return {
        "x0": x0,
        "x1": x1,
        "top": top,
        "bottom": bottom,
        "width": x1 - x0,
        "height": bottom - top,
        "orientation": "h" if horizontal else "v",
        "object_type": "curve",
    }


def test_ruled_grid_from_edges_and_cell_text_from_chars():
    from parsers.tables.cells import grid_to_rows
    from parsers.tables.rulings import edges_to_cell_grids
    from parsers.textlayer.chars import Char

    edges = [_edge(100, y, 300, y) for y in (100, 120, 140)] + [_edge(x, 100, x, 140) for x in (100, 200, 300)]
    grids = edges_to_cell_grids(edges)
    assert len(grids) == 1
    bbox, grid = grids[0]
    assert tuple(round(v) for v in bbox) == (100, 100, 300, 140) and [len(r) for r in grid] == [2, 2]

    def word(text, x, top, bold=False):
        return [
            Char(c, x + 6 * i, top, x + 6 * (i + 1), top + 10, 10.0, bold, "F", False, False)
            for i, c in enumerate(text)
        ]

    chars = (
        word("Pest", 105, 105, bold=True)
        + word("Dose", 205, 105, bold=True)
        + word("Aphids", 105, 125)
        + word("3 ml", 205, 125)
    )
    rows, bold = grid_to_rows(grid, chars)
    assert rows == [["Pest", "Dose"], ["Aphids", "3 ml"]]
    assert bold == [[True, True], [False, False]]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Table 2: Recommended insecticides", True),
        ("Fig. 3. Trap layout", True),
        ("Table 2 Recommended doses", True),
        ("TABLE IV", True),
        ("Table iv: Doses", True),
        ("तालिका 2: दवा की मात्रा", True),
        ("Table 2 brings the recommendations together stage by stage.", False),
        ("Figure 1a shows the trap.", False),
    ],
)
def test_a_caption_is_a_label_and_number_not_a_sentence_about_the_table(text, expected):
    assert caption_of(text) is expected


def test_symbol_font_bullets_from_word_are_list_markers():
    # Word's Wingdings square and check-mark bullets come out of pdfium as private-use characters
    assert split_marker("\uf0a7 Les répondants souhaiteraient se déplacer") == (
        "\uf0a7",
        "Les répondants souhaiteraient se déplacer",
    )
    assert split_marker("\uf0fc Le financement du transport actif") == ("\uf0fc", "Le financement du transport actif")
    assert split_marker("\uf0fcinside a word") == (None, "\uf0fcinside a word")


def test_pdf_date_to_iso_is_idempotent_on_iso_dates():
    # a producer that writes ISO 8601 instead of a PDF date: kept, not read as "2023, zone -07:00"
    assert pdf_date_to_iso("2023-07-21T16:22:25-07:00") == "2023-07-21T16:22:25-07:00"
    assert pdf_date_to_iso(" 2023-07-21 ") == "2023-07-21"
    assert pdf_date_to_iso("2023-07-21T16:22:25.5Z") == "2023-07-21T16:22:25.500000+00:00"
    assert pdf_date_to_iso("2023-07-21 16:22") == "2023-07-21T16:22:00"
    assert pdf_date_to_iso("2023-07-21T16:22:25-07") == "2023-07-21T16:22:25-07:00"
    # near-dates are not guessed into another date (the "-7" is not a time zone)
    assert pdf_date_to_iso("2023-7-21") is None and pdf_date_to_iso("2023/07/21") is None
    for raw in ("D:20200331180255+09'00'", "D:20240601090000Z", "D:2020"):
        once = pdf_date_to_iso(raw)
        assert once is not None and pdf_date_to_iso(once) == once
    # impossible ISO dates are rejected (the info dictionary then keeps the raw value)
    assert pdf_date_to_iso("2023-13-01") is None and pdf_date_to_iso("2023-02-30T10:00:00") is None
