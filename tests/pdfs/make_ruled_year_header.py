"""A ruled table of figures whose header row names its columns by year and leaves the stub
(the label column's head) blank, set in the body's weight: the way annual reports, budgets and
statistical releases head a comparison of periods.

The years are numbers, so a header test that asks for a row of text takes the row for body;
the blank stub over a column of filled labels is what marks it as the header. A second table
stacks its header over two rows: a group label over the value columns ("Fiscal year"), then
the years, the stub blank in both. A third table, of an agronomy manual, sets its header in
bold over two rows, the column names and under them their units, the stub's unit cell blank;
its body is in the regular weight."""

from __future__ import annotations

from datetime import datetime, timezone

from fpdf import FPDF

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

YEARS = [
    ["", "2024", "2023"],
    ["Revenue", "1,240", "1,105"],
    ["Operating costs", "(860)", "(790)"],
    ["Operating profit", "380", "315"],
    ["Tax", "(95)", "(80)"],
    ["Profit for the year", "285", "235"],
]
STACKED = [
    ["", "Fiscal year", ""],
    ["", "2024", "2023"],
    ["Grants received", "412", "398"],
    ["Fees and charges", "96", "90"],
    ["Total income", "508", "488"],
]

UNITS = [
    ["Crop", "Seed rate", "Row spacing"],
    ["", "(kg/ha)", "(cm)"],
    ["Wheat", "100", "22.5"],
    ["Mustard", "5", "45"],
    ["Gram", "80", "30"],
]


def _ruled_table(
    pdf: FPDF, x: float, y: float, rows: list[list[str]], spans: dict[int, int], bold_rows: int = 0
) -> float:
    """Draw `rows` as a fully ruled grid at (x, y); `spans`: row index whose second cell spans
    the value columns. Returns the y under the table."""
    widths, height = [180.0, 80.0, 80.0], 18.0
    for r, row in enumerate(rows):
        pdf.set_font("DejaVu", "B" if r < bold_rows else "", 10)
        cx = x
        k = 0
        while k < len(row):
            width = widths[k]
            if r in spans and k == 1:
                width = sum(widths[1:])
            align = "L" if k == 0 else "R" if r not in spans else "C"
            pdf.set_xy(cx, y)
            pdf.cell(width, height, row[k], border=1, align=align)
            cx += width
            k += 2 if r in spans and k == 1 else 1
        y += height
    return y


def build() -> tuple[bytes, dict]:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=timezone.utc))
    pdf.add_font("DejaVu", "", FONT)
    pdf.add_font("DejaVu", "B", FONT_BOLD)
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("DejaVu", "", 10)
    pdf.set_xy(56, 60)
    pdf.cell(400, 14, "Summary of results, in thousands")
    y = _ruled_table(pdf, 56, 90, YEARS, {})
    pdf.set_xy(56, y + 40)
    pdf.cell(400, 14, "Income by source, in thousands")
    y = _ruled_table(pdf, 56, y + 70, STACKED, {0: 1})
    pdf.set_font("DejaVu", "", 10)
    pdf.set_xy(56, y + 40)
    pdf.cell(400, 14, "Seed rates and spacing of rabi crops")
    _ruled_table(pdf, 56, y + 70, UNITS, {}, bold_rows=2)
    truth = {
        "tables": [
            {"rows": YEARS, "header_rows": 1},
            {"rows": STACKED, "header_rows": 2},
            {"rows": UNITS, "header_rows": 2},
        ]
    }
    return bytes(pdf.output()), truth
