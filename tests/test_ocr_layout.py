"""Tesseract word tables (hand-built, no Tesseract needed) -> typed elements."""

from ingest.contracts.elements import ElementType, TextSource
from parsers.ocr.layout import join_lines, tesseract_data_to_elements

BODY_H = 24  # pixels: body word height at 200 dpi
ADVANCE = 15  # pixels per character of body text


class Page:
    """Builds pytesseract's DICT output one line at a time."""

    def __init__(self):
        self.data = {
            k: []
            for k in (
                "level",
                "page_num",
                "block_num",
                "par_num",
                "line_num",
                "word_num",
                "left",
                "top",
                "width",
                "height",
                "conf",
                "text",
                "ink",
            )
        }

    def _row(self, level, block, par, line, word, left, top, width, height, conf, text, ink=0.0):
        for key, value in zip(self.data, (level, 1, block, par, line, word, left, top, width, height, conf, text, ink)):
            self.data[key].append(value)

    def line(
        self, block, par, line, top, words, left=100, height=BODY_H, advance=ADVANCE, space=None, conf=95, ink=0.20
    ):
        """`words`: a string (split on spaces) or a list of (text, left[, height]) for exact placement."""
        self._row(4, block, par, line, 0, left, top, 0, height, -1, "")
        if isinstance(words, str):
            placed, x = [], left
            for text in words.split():
                placed.append((text, x))
                x += len(text) * advance + (space or advance)
        else:
            placed = words
        for number, (text, x, *word_height) in enumerate(placed, start=1):
            h = word_height[0] if word_height else height
            self._row(5, block, par, line, number, x, top + height - h, len(text) * advance, h, conf, text, ink)
        return self


def elements_of(page, dpi=200):
    elements, confidence = tesseract_data_to_elements(page.data, page_no=3, scale=72 / dpi)
    return elements, confidence


def prose(page, block, top, lines):
    for number, text in enumerate(lines, start=1):
        page.line(block, 1, number, top + (number - 1) * 36, text)
    return page


def test_headings_by_size_lists_and_paragraphs_in_reading_order():
    page = Page()
    page.line(1, 1, 1, 100, "Pink Bollworm Alert", height=48, advance=32)
    page.line(2, 1, 1, 200, "Recommended Spray", height=40, advance=26)
    prose(
        page,
        3,
        260,
        [
            "Pheromone trap catches in Yavatmal crossed the economic threshold of eight",
            "moths per trap per night in the first week of August this year.",
        ],
    )
    page.line(4, 1, 1, 360, [("¢", 100, 10), ("Install", 130), ("traps", 250)])
    page.line(4, 1, 2, 400, "2. Remove rosette flowers by hand.")
    elements, confidence = elements_of(page)
    kinds = [(e.type, e.heading_level) for e in elements]
    assert kinds == [
        (ElementType.title, 1),
        (ElementType.title, 2),
        (ElementType.paragraph, None),
        (ElementType.list_item, None),
        (ElementType.list_item, None),
    ]
    assert elements[0].text == "Pink Bollworm Alert"
    assert elements[2].text.startswith("Pheromone") and elements[2].text.endswith("this year.")
    assert elements[3].text == "Install traps"  # the misread bullet is dropped
    assert elements[4].text == "2. Remove rosette flowers by hand."  # a number is kept
    assert all(e.source is TextSource.ocr and e.page == 3 for e in elements)
    assert confidence == 95


def test_small_bullet_mark_is_required_for_lookalike_glyphs():
    page = Page()
    prose(page, 1, 100, ["The first line of a long body paragraph that fills the page width nicely."] * 3)
    page.line(2, 1, 1, 300, "e Install traps")  # a full-height 'e' word: text, not a bullet
    elements, _ = elements_of(page)
    assert elements[-1].type is ElementType.paragraph


def test_hyphenated_line_end_is_rejoined():
    assert join_lines(["apply the fertil-", "iser after rain"]) == "apply the fertiliser after rain"
    assert join_lines(["call 1800-", "233-4000"]) == "call 1800-233-4000"  # a number keeps its hyphen, no space
    assert join_lines(["Yavatmal-", "Ralegaon road"]) == "Yavatmal-Ralegaon road"  # a compound of names


def test_bbox_is_in_pdf_points_with_top_left_origin():
    page = Page().line(1, 1, 1, 400, [("Dose", 200)], height=50)
    (element,), _ = elements_of(page, dpi=200)
    # pixels * 72 / 200
    assert element.bbox == (72.0, 144.0, 72.0 + 4 * ADVANCE * 0.36, 162.0)


def test_aligned_rows_with_wide_gaps_become_one_table():
    page = Page()
    prose(page, 1, 100, ["Spray one of these insecticides when the pest crosses the threshold level."] * 2)
    # header in one block, rows in another: Tesseract does this with ruled tables
    page.line(2, 1, 1, 300, [("Insecticide", 100), ("Dose", 600), ("per", 675), ("acre", 735)])
    page.line(3, 1, 1, 350, [("Profenofos", 100), ("50", 260), ("EC", 300), ("400", 600), ("ml", 655)])
    page.line(3, 1, 2, 400, [("Indoxacarb", 100), ("200", 600), ("ml", 655)])
    prose(page, 4, 500, ["Do not spray synthetic pyrethroids before ninety days after sowing the crop."])
    elements, _ = elements_of(page)
    assert [e.type for e in elements] == [ElementType.paragraph, ElementType.table, ElementType.paragraph]
    table = elements[1]
    assert table.rows == [["Insecticide", "Dose per acre"], ["Profenofos 50 EC", "400 ml"], ["Indoxacarb", "200 ml"]]
    assert table.header_rows == 1
    assert table.text.splitlines()[1] == "Profenofos 50 EC | 400 ml"


def test_columns_split_into_blocks_are_joined_back_into_rows():
    page = Page()
    # Tesseract made one block per column; rows must be rebuilt by position
    for block, x, cells in ((1, 100, ["Pest", "Whitefly", "Aphid"]), (2, 500, ["Dose", "100 ml", "40 g"])):
        for number, cell in enumerate(cells):
            page.line(block, 1, number + 1, 300 + number * 40, cell, left=x)
    elements, _ = elements_of(page)
    assert len(elements) == 1 and elements[0].type is ElementType.table
    assert elements[0].rows == [["Pest", "Dose"], ["Whitefly", "100 ml"], ["Aphid", "40 g"]]


def test_two_columns_of_prose_are_not_a_table():
    page = Page()
    left = [
        "Farmers should inspect twenty flowers per acre every week in",
        "August and look for rosette flowers that stay closed at noon.",
    ]
    right = [
        "Pheromone traps at five per acre show when the moths are flying",
        "and when the spray should be given to the crop in the field.",
    ]
    for number, (a, b) in enumerate(zip(left, right), start=1):
        page.line(1, 1, number, 100 + number * 36, a, left=100, advance=8)
        page.line(2, 1, number, 100 + number * 36, b, left=700, advance=8)
    elements, _ = elements_of(page)
    assert [e.type for e in elements] == [ElementType.paragraph, ElementType.paragraph]
    assert elements[0].text.startswith("Farmers") and elements[1].text.startswith("Pheromone")


def test_vertical_rules_read_as_bars_separate_cells():
    page = Page()
    page.line(1, 1, 1, 300, [("Crop", 100), ("|", 240), ("Cotton", 260)])
    page.line(1, 1, 2, 340, [("Dose", 100), ("|", 240), ("0.4", 260), ("g", 320)])
    elements, _ = elements_of(page)
    assert elements[0].type is ElementType.table
    assert elements[0].rows == [["Crop", "Cotton"], ["Dose", "0.4 g"]]
    assert "|" not in "".join(cell for row in elements[0].rows for cell in row)


def test_label_lines_after_a_short_line_are_separate_paragraphs():
    page = Page()
    prose(page, 1, 100, ["Pheromone trap catches in Yavatmal crossed the economic threshold of eight"])
    page.line(2, 1, 1, 200, "Dose: 0.4 g per litre of water")
    page.line(2, 1, 2, 236, "Waiting period: 15 days")
    elements, _ = elements_of(page)
    assert [e.text for e in elements[1:]] == ["Dose: 0.4 g per litre of water", "Waiting period: 15 days"]


def test_devanagari_words_keep_single_spaces_and_dandas():
    page = Page()
    page.line(1, 1, 1, 100, "पंजीकरण की अंतिम तिथि 31 जुलाई 2024 है।")
    page.line(1, 1, 2, 136, "सूचना फसल बीमा ऐप पर दें।")
    (element,), _ = elements_of(page)
    assert element.text == "पंजीकरण की अंतिम तिथि 31 जुलाई 2024 है। सूचना फसल बीमा ऐप पर दें।"


def test_no_words_means_no_elements_and_no_confidence():
    page = Page()
    page._row(4, 1, 1, 1, 0, 10, 10, 100, 2, -1, "")
    assert elements_of(page) == ([], None)


def test_small_text_in_the_margins_is_furniture_and_page_numbers_are_typed():
    page = Page()
    page._row(1, 0, 0, 0, 0, 0, 0, 1654, 2339, -1, "")  # the page row: image size
    page.line(1, 1, 1, 60, "Soil Health Card Scheme", height=19, advance=12, left=1100)
    prose(page, 2, 300, ["The card reports twelve parameters and rates each value low, medium or high."] * 3)
    page.line(3, 1, 1, 2240, "Page 2 of 3", height=19, advance=12, left=760)
    page.line(4, 1, 1, 2260, "पृष्ठ १", left=800)
    elements, _ = elements_of(page)
    types = [e.type for e in elements]
    assert types == [ElementType.header, ElementType.paragraph, ElementType.page_number, ElementType.page_number]
    assert all(e.is_furniture for e in elements if e.type is not ElementType.paragraph)


def test_body_size_text_at_the_top_is_not_furniture():
    page = Page()
    page._row(1, 0, 0, 0, 0, 0, 0, 1654, 2339, -1, "")
    page.line(1, 1, 1, 60, "Farmers must register before the end of July this year.")
    prose(page, 2, 300, ["The card reports twelve parameters and rates each value low, medium or high."] * 3)
    elements, _ = elements_of(page)
    assert elements[0].type is ElementType.paragraph


def test_a_number_at_the_start_of_a_wrapped_prose_line_is_not_a_list_item():
    page = Page()
    prose(
        page,
        1,
        100,
        [
            "Apply zinc sulphate once in three years at the full recommended rate of",
            "2.5 kg per hectare in the soil before sowing.",
            "1. Mix it with sand.",
        ],
    )
    elements, _ = elements_of(page)
    assert [e.type for e in elements] == [ElementType.paragraph, ElementType.list_item]
    assert "rate of 2.5 kg per hectare" in elements[0].text


def test_header_row_is_guessed_from_numbers_below_it():
    from parsers.ocr.tables import guess_header_rows

    assert guess_header_rows([["Crop", "MSP 2023-24"], ["Paddy", "2183"]]) == 1
    assert guess_header_rows([["Pest", "Dose"], ["Whitefly", "100 ml per acre"]]) == 1
    assert guess_header_rows([["pH", "8.1"], ["Zinc", "0.48"]]) == 0  # data from the first row
    assert guess_header_rows([["Crop", "Cotton"], ["Pest", "Pink bollworm"]]) == 0


def test_a_wrapped_list_item_split_by_tesseract_is_joined_back():
    page = Page()
    page.line(1, 1, 1, 100, "1. Mix 10 grams of Trichoderma per kg of seed so that every")
    page.line(1, 2, 1, 136, "seed gets an even coat.", left=140)  # hanging indent, new paragraph
    page.line(1, 3, 1, 172, "2. Sow within 24 hours.")
    elements, _ = elements_of(page)
    assert [e.type for e in elements] == [ElementType.list_item, ElementType.list_item]
    assert elements[0].text.endswith("so that every seed gets an even coat.")


def test_a_bullet_glued_to_the_first_word_still_makes_a_list_item():
    page = Page()
    page.line(1, 1, 1, 100, "«सात बारह उतारा और बुवाई प्रमाण पत्र।")
    page.line(1, 2, 1, 160, "•Install yellow sticky traps.")
    page.line(1, 3, 1, 220, "«Bonjour» said the notice to the farmers of the district this year.")
    elements, _ = elements_of(page)
    assert [(e.type, e.text) for e in elements] == [
        (ElementType.list_item, "सात बारह उतारा और बुवाई प्रमाण पत्र।"),
        (ElementType.list_item, "Install yellow sticky traps."),
        (ElementType.paragraph, "«Bonjour» said the notice to the farmers of the district this year."),
    ]


def test_a_two_line_title_split_into_two_paragraphs_is_one_title():
    page = Page()
    page.line(1, 1, 1, 100, "Krishi Samachar: Kharif Advisory for", height=48, advance=32)
    page.line(2, 1, 1, 156, "Soybean Growers", height=48, advance=32)
    prose(page, 3, 260, ["Issued by the Krishi Vigyan Kendra for farmers of the Akola and Buldhana districts."] * 2)
    page.line(4, 1, 1, 400, "Sowing Window", height=48, advance=32)
    elements, _ = elements_of(page)
    assert [(e.type, e.text) for e in elements if e.type is ElementType.title] == [
        (ElementType.title, "Krishi Samachar: Kharif Advisory for Soybean Growers"),
        (ElementType.title, "Sowing Window"),
    ]


def test_a_paragraph_split_mid_sentence_by_tesseract_is_joined_back():
    page = Page()
    page.line(1, 1, 1, 100, "Issued by the Krishi Vigyan Kendra for farmers of the Akola")
    page.line(1, 2, 1, 136, "and Buldhana districts.")
    page.line(1, 3, 1, 172, "after sowing, a new paragraph would not start in lowercase but")  # after a full stop
    elements, _ = elements_of(page)
    assert [e.text for e in elements] == [
        "Issued by the Krishi Vigyan Kendra for farmers of the Akola and Buldhana districts.",
        "after sowing, a new paragraph would not start in lowercase but",
    ]


def test_a_bold_line_at_body_size_is_a_lowest_level_heading():
    page = Page()
    prose(page, 1, 100, ["Cotton grows best on deep black soils that hold moisture well through the season."] * 3)
    page.line(2, 1, 1, 240, "Seed Rate and Spacing", ink=0.30)  # bold: 1.5x the body's ink
    prose(page, 3, 290, ["Use 900 grams of Bt hybrid seed per acre, which is two packets of 450 grams each."] * 2)
    page.line(4, 1, 1, 400, "Spray only in the evening", ink=0.22)  # regular weight
    elements, _ = elements_of(page)
    assert [(e.type, e.heading_level) for e in elements] == [
        (ElementType.paragraph, None),
        (ElementType.title, 4),
        (ElementType.paragraph, None),
        (ElementType.paragraph, None),
    ]


def test_a_bold_first_row_is_the_table_header():
    page = Page()
    page.line(1, 1, 1, 300, [("Parameter", 100), ("Value", 600)], ink=0.32)
    page.line(1, 1, 2, 340, [("pH", 100), ("Slightly", 600), ("alkaline", 735)])
    page.line(1, 1, 3, 380, [("Zinc", 100), ("Low", 600)])
    elements, _ = elements_of(page)
    assert elements[0].type is ElementType.table and elements[0].header_rows == 1


def test_a_big_key_figure_with_its_label_is_not_a_heading():
    page = Page()
    page.line(1, 1, 1, 100, "Employment Creation", height=48, advance=32)
    page.line(2, 1, 1, 200, "New jobs created 2,32,822", height=48, advance=32)
    prose(
        page,
        3,
        300,
        ["Reliance added jobs across its retail and digital services businesses during", "the year under review."],
    )
    elements, _ = elements_of(page)
    assert [(e.type, e.text) for e in elements[:2]] == [
        (ElementType.title, "Employment Creation"),
        (ElementType.paragraph, "New jobs created 2,32,822"),
    ]
