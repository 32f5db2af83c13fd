"""A two-column public notice: a title across the page, then two text columns side by side (the
left a bulleted list of who may apply, the right dated paragraphs and a numbered list whose
items wrap over two lines), then a small unruled two-column table of fees spanning the page.

Municipal and scheme notices are set this way. The two columns share their line positions, so
each line of the page holds a bullet, a line of the left column and a line of the right one:
read as rows, they line up as a table of three columns with short cells. They are prose: the
right column's lines are ragged, wrap sentences with their punctuation, and cut a date between
two lines ("... closes on 31 July" / "2026 for all ..."), which no table does between cells.
The lines are set one by one, so every break falls where the truth says."""

from __future__ import annotations

from datetime import datetime, timezone

from fpdf import FPDF

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

TITLE = "Public Notice: Community Garden Allotments"
#: The left column: who may apply, one bulleted item of two lines each.
BULLETS = [
    ["Residents of the district", "aged eighteen or over."],
    ["Households that hold no", "garden allotment today."],
    ["Community groups on the", "council's register."],
    ["Schools and colleges", "within the district."],
]
#: The right column: two dated paragraphs, then a numbered list; each item a list of lines.
PARAGRAPHS = [
    [
        "The council invites applications",
        "for garden plots at the riverside",
        "site. The application window",
        "closes on 31 July",
        "2026 for all applicants; late",
        "forms will not be accepted.",
    ],
    [
        "Applicants will be told by letter",
        "on 15 August 2026, and plots are",
        "handed over from 1 September",
        "2026 after a short induction.",
    ],
]
STEPS = [
    ["Complete the form, available", "from the council offices."],
    ["Attach proof of address, such", "as a council tax statement."],
    ["Return the form by post or in", "person before the closing date."],
]
TABLE = [
    ["Plot size", "Annual rent"],
    ["Quarter plot", "£35"],
    ["Half plot", "£60"],
    ["Full plot", "£110"],
]

SIZE = 11.0  # points
LEADING = 14.0  # points between baselines of one item's lines
ITEM_GAP = 4.0  # points added between items


def _joined(lines: list[str]) -> str:
    return " ".join(lines)


def build() -> tuple[bytes, dict]:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=timezone.utc))
    pdf.add_font("DejaVu", "", FONT)
    pdf.add_font("DejaVu", "B", FONT_BOLD)
    pdf.set_auto_page_break(False)
    pdf.add_page()
    margin = 56.0
    left_text, right_x, number_w = margin + 18, 260.0, 18.0
    pdf.set_font("DejaVu", "B", 18)
    pdf.set_xy(margin, 60)
    pdf.cell(400, 24, TITLE)
    pdf.set_font("DejaVu", "", SIZE)
    y = 110.0
    for item in BULLETS:
        pdf.set_xy(margin, y)
        pdf.cell(10, LEADING, "•")
        for line in item:
            pdf.set_xy(left_text, y)
            pdf.cell(180, LEADING, line)
            y += LEADING
        y += ITEM_GAP
    left_bottom = y
    y = 110.0
    for paragraph in PARAGRAPHS:
        for line in paragraph:
            pdf.set_xy(right_x, y)
            pdf.cell(280, LEADING, line)
            y += LEADING
        y += ITEM_GAP
    for number, step in enumerate(STEPS, start=1):
        pdf.set_xy(right_x, y)
        pdf.cell(number_w, LEADING, f"{number}.")
        for line in step:
            pdf.set_xy(right_x + number_w, y)
            pdf.cell(260, LEADING, line)
            y += LEADING
        y += ITEM_GAP
    y = max(y, left_bottom) + 10
    for r, row in enumerate(TABLE):
        pdf.set_font("DejaVu", "B" if r == 0 else "", SIZE)
        pdf.set_xy(margin, y)
        pdf.cell(190, LEADING, row[0])
        pdf.set_xy(margin + 200, y)
        pdf.cell(150, LEADING, row[1])
        y += LEADING + ITEM_GAP
    truth = {
        "title": TITLE,
        "list_items": [_joined(b) for b in BULLETS] + [f"{n}. {_joined(s)}" for n, s in enumerate(STEPS, start=1)],
        "paragraphs": [_joined(p) for p in PARAGRAPHS],
        "dates": ["31 July 2026", "15 August 2026", "1 September 2026"],
        "table": {"rows": TABLE, "header_rows": 1},
    }
    return bytes(pdf.output()), truth
