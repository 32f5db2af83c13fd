"""A report page whose sections are set apart by a row of asterisks ("* * *", a dinkus).

Quarterly reports, letters and essays mark a break between two runs of prose with three
asterisks centred on a line of their own, spaced wide apart. The line begins with a bullet
glyph ("*"), so it reads as a bulleted item whose own text ("* *") opens with that same glyph;
every asterisk is text of the page and must reach an element."""

from __future__ import annotations

from datetime import datetime, timezone

from fpdf import FPDF

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"

BEFORE = [
    "Cash provided by operating activities reflected higher deposits",
    "and net proceeds from long-term borrowings during the quarter.",
]
AFTER = [
    "Refer to the liquidity discussion on the following pages for a",
    "description of the sources and uses of cash in the period.",
]
ASTERISKS = 3
SIZE = 10.0  # points
LEADING = 13.0  # points between baselines of one paragraph
PARAGRAPH_GAP = 12.0  # points added between the paragraphs and the break
ASTERISK_PITCH = 16.0  # points between the asterisks' left edges: wide apart, as set


def build() -> tuple[bytes, dict]:
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=timezone.utc))
    pdf.add_font("Serif", "", FONT)
    pdf.set_font("Serif", size=SIZE)
    pdf.add_page()
    y = 96.0
    for line in BEFORE:
        pdf.text(72, y, line)
        y += LEADING
    y += PARAGRAPH_GAP
    middle = pdf.w / 2
    for index in range(ASTERISKS):
        pdf.text(middle + (index - (ASTERISKS - 1) / 2) * ASTERISK_PITCH, y, "*")
    y += LEADING + PARAGRAPH_GAP
    for line in AFTER:
        pdf.text(72, y, line)
        y += LEADING
    truth = {"paragraphs": [" ".join(BEFORE), " ".join(AFTER)], "section_break": " ".join("*" * ASTERISKS)}
    return bytes(pdf.output()), truth
