"""A report with bookmarks (a PDF outline) whose type does not say how its sections nest: the
chapter headings ("Background", "Findings") and the sections under them ("Site history", ...)
are bookmarked at two depths but set in one bold type, and unbookmarked box titles inside a
section ("Sampling notes") are set larger than either. The outline is the heading tree; type
only places the box titles below its deepest level."""

from __future__ import annotations

import datetime

from fpdf import FPDF

PROSE = (
    "The site was used as a vehicle depot until the late nineteen eighties. Records of the "
    "period describe fuel storage in two underground tanks, removed when the depot closed, and "
    "a wash bay that drained to the storm sewer along the northern boundary."
)
#: (text, outline depth or None, type size, path)
HEADINGS = [
    ("Background", 0, 11, ["Background"]),
    ("Site history", 1, 11, ["Background", "Site history"]),
    ("Sampling notes", None, 13, ["Background", "Site history", "Sampling notes"]),
    ("Previous studies", 1, 11, ["Background", "Previous studies"]),
    ("Findings", 0, 11, ["Findings"]),
    ("Water quality", 1, 11, ["Findings", "Water quality"]),
    ("Laboratory method", None, 13, ["Findings", "Water quality", "Laboratory method"]),
    ("Soil", 1, 11, ["Findings", "Soil"]),
]


def build() -> tuple[bytes, dict]:
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
    pdf.set_auto_page_break(False)
    pdf.add_page()
    y = 72.0
    for text, depth, size, _ in HEADINGS:
        if y > 700:
            pdf.add_page()
            y = 72.0
        pdf.set_xy(72, y)
        if depth is not None:
            pdf.start_section(text, level=depth)
        pdf.set_font("Helvetica", "B", size)
        pdf.cell(450, size + 4, text)
        y += size + 12
        pdf.set_xy(72, y)
        pdf.set_font("Helvetica", "", 10)
        pdf.multi_cell(450, 13, PROSE)
        y = pdf.get_y() + 14
    truth = {"headings": [{"text": t, "outline_depth": d, "path": p} for t, d, _, p in HEADINGS]}
    return bytes(pdf.output()), truth
