"""A crop protection manual: the crop is named in the title, the doses sit in table rows.

Extension manuals name their crop once, on the cover ("Cotton Pest Management Handbook"),
and then speak of "the crop": the pages that hold the answers (a table of insecticides with
a dose per litre of water, one row per pest and product) never repeat it. A short
introduction says the crop and "doses" in one breath. A question such as "whitefly cotton
dose per litre" must still find the table piece holding the whitefly rows: the chunk is
about cotton because its document is.

Truth: the title, the heading of the table's section, and the cells of the whitefly rows.
"""

from __future__ import annotations

from datetime import datetime, timezone

from fpdf import FPDF

TITLE = "Cotton Pest Management Handbook"
#: Heading font size (pt) per level: parts, chapters, sections.
HEADING_SIZES = {1: 16, 2: 13.5, 3: 11.5}
TABLE_HEADING = "Insecticides for Sucking Pests"
HEADER = ["Pest", "Insecticide", "Formulation", "Dose per litre of water", "Waiting days"]
ROWS = [
    ["Aphid", "Imidacloprid", "17.8 SL", "0.25 ml", "7"],
    ["Aphid", "Thiamethoxam", "25 WG", "0.2 g", "10"],
    ["Aphid", "Flonicamid", "50 WG", "0.3 g", "7"],
    ["Jassid", "Acetamiprid", "20 SP", "0.2 g", "7"],
    ["Jassid", "Dinotefuran", "20 SG", "0.3 g", "7"],
    ["Jassid", "Fipronil", "5 SC", "1.5 ml", "10"],
    ["Thrips", "Spinetoram", "11.7 SC", "0.8 ml", "7"],
    ["Thrips", "Tolfenpyrad", "15 EC", "2 ml", "7"],
    ["Thrips", "Profenophos", "50 EC", "2 ml", "14"],
    ["Mealybug", "Buprofezin", "25 SC", "2 ml", "14"],
    ["Mealybug", "Profenophos", "50 EC", "2 ml", "14"],
    ["Mite", "Fenpyroximate", "5 SC", "1 ml", "7"],
    ["Mite", "Propargite", "57 EC", "2 ml", "14"],
    ["Whitefly", "Diafenthiuron", "50 WP", "1.2 g", "7"],
    ["Painted bug", "Malathion", "50 EC", "2 ml", "7"],
    ["Dusky bug", "Dimethoate", "30 EC", "1.5 ml", "14"],
    ["Leaf hopper", "Flupyradifurone", "17.09 SL", "1.2 ml", "7"],
]

#: Chapters on growing the crop, which name neither pests nor doses: a manual's bulk.
FIELD_CHAPTERS = [
    (
        2,
        "Soil and Land Preparation",
        [
            "Choose deep, well drained black or alluvial soil. Plough once deep after the harvest of the "
            "previous crop and harrow twice before the rains to get a fine tilth.",
            "Level the field so that irrigation water spreads evenly and no patch stays waterlogged.",
        ],
    ),
    (
        2,
        "Varieties",
        [
            "Pick a hybrid approved for your zone. Early hybrids escape the late season drought; long "
            "duration hybrids need assured irrigation until the end of November.",
        ],
    ),
    (
        2,
        "Irrigation",
        [
            "Give the first irrigation three weeks after sowing and later ones every twelve to fifteen days. "
            "Flowering and boll formation are the critical stages: stress then sheds squares and bolls.",
            "Drip irrigation saves forty percent of the water and raises the yield by a fifth.",
        ],
    ),
    (
        2,
        "Nutrient Management",
        [
            "Apply farmyard manure before the last harrowing. Give nitrogen in three splits: at sowing, at "
            "square formation and at flowering. Phosphorus and potash go in full at sowing.",
        ],
    ),
    (
        2,
        "Intercultivation",
        [
            "Hoe between the rows three times before the canopy closes. Earth up the plants after the "
            "second hoeing so that they stand against wind.",
        ],
    ),
    (
        2,
        "Picking and Storage",
        [
            "Pick fully opened bolls in the morning after the dew dries. Keep the first and last pickings "
            "apart, dry the produce in shade and store it in a clean, dry room on a wooden platform.",
        ],
    ),
    (
        2,
        "Marketing",
        [
            "Sell through the regulated market yard and keep the receipt. Grade the produce by colour and "
            "trash content before taking it to the market.",
        ],
    ),
]

SECTIONS = [
    (
        1,
        "Introduction",
        ["This handbook gives cotton growers the pests of the crop and the doses that control them."],
    ),
    (1, "Growing the Crop", []),
    (
        2,
        "Sowing and Crop Stand",
        [
            "Sow cotton when the soil at 10 cm depth is above 20 degrees and the monsoon has set in. "
            "Delayed sowing of cotton raises the attack of sucking pests and bollworms late in the season.",
            "Keep 60 to 90 cm between rows of cotton and fill gaps within ten days of sowing. "
            "A uniform stand of cotton plants is easier to scout and to spray evenly.",
        ],
    ),
    *FIELD_CHAPTERS,
    (1, "Pest Management", []),
    (2, "Sucking Pests", []),
    (
        3,
        "Whitefly",
        [
            "Whitefly adults are small white winged insects that rest on the underside of the leaves. "
            "Whitefly nymphs suck sap and excrete honeydew on which sooty mould grows. "
            "The whitefly carries leaf curl virus, so a whitefly outbreak on cotton can cost half the yield.",
            "Scout twenty plants per acre every week and count whitefly adults on three leaves of each plant. "
            "Spray when the whitefly count crosses the threshold and rotate the insecticide groups, "
            "because whitefly develops resistance to the same group after two sprays.",
        ],
    ),
    (
        3,
        "Jassid and Thrips",
        [
            "Jassid nymphs make the leaf edges curl down and turn red. Thrips rasp the leaf surface, which "
            "turns silvery. Both are worst in dry spells and on cotton sown late.",
        ],
    ),
    (3, TABLE_HEADING, ["Spray the lower surface of the leaves with a hollow cone nozzle."]),
    (
        2,
        "Bollworms",
        [
            "Pink bollworm larvae bore into the cotton bolls. Install pheromone traps at five per acre and "
            "spray emamectin benzoate at a dose of 0.4 g per litre when eight moths are caught a night.",
        ],
    ),
    (
        2,
        "Natural Enemies",
        [
            "Encarsia wasps lay their eggs in whitefly nymphs, and lacewing larvae eat whitefly, aphids and "
            "jassids on cotton. A cotton field sprayed early with broad spectrum doses loses these predators "
            "and the whitefly comes back stronger.",
        ],
    ),
    (
        2,
        "Resistance Management",
        [
            "Sucking pests of cotton have become resistant to several groups. Use each group once a season, at the "
            "full dose per litre on the label, and never mix two products of one group against one pest.",
        ],
    ),
    (
        2,
        "Weed Control",
        [
            "Weeds in cotton host sucking pests between seasons. Spray pendimethalin at a dose of 5 ml per litre of "
            "water within two days of sowing cotton, then weed by hand at 30 and 50 days.",
        ],
    ),
    (
        2,
        "Spraying Practice",
        [
            "Measure the dose with a marked cup, mix it in a little water first and then make up the tank. "
            "A knapsack sprayer takes 15 litre of water, so multiply the dose per litre by 15. "
            "Never raise the dose above the label: a double dose does not kill more whitefly, "
            "it kills the predators of the whitefly.",
            "Wash the sprayer after use and keep the doses of different products apart. Spray in the "
            "morning or the evening, never in wind or rain, and wear gloves and a mask.",
        ],
    ),
]


def build() -> tuple[bytes, dict]:
    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=timezone.utc))
    pdf.set_auto_page_break(True, margin=20)
    pdf.set_margins(20, 20, 20)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 22)
    pdf.multi_cell(0, 12, TITLE, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(6)
    for level, heading, paragraphs in SECTIONS:
        pdf.set_font("Helvetica", "B", HEADING_SIZES[level])
        pdf.ln(3)
        pdf.multi_cell(0, HEADING_SIZES[level] * 0.55, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
        pdf.set_font("Helvetica", "", 10)
        for paragraph in paragraphs:
            pdf.multi_cell(0, 5.5, paragraph, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        if heading == TABLE_HEADING:
            with pdf.table(col_widths=(34, 38, 26, 40, 24), text_align="LEFT", line_height=6) as table:
                for row in [HEADER, *ROWS]:
                    cells = table.row()
                    for cell in row:
                        cells.cell(cell)
            pdf.ln(4)
    truth = {
        "title": TITLE,
        "table_heading": TABLE_HEADING,
        "header": HEADER,
        "whitefly_rows": [row for row in ROWS if row[0] == "Whitefly"],
        "question": "whitefly cotton dose per litre",
    }
    return bytes(pdf.output()), truth
