"""An annual report on Form 10-K: its headings carry their level in their numbering ("PART II",
"Item 8.", "Note 7 - Goodwill") and are all set in bold at the body size, with unnumbered bold
subsections under an Item or a Note. Only the numbering tells a Note from its subsection."""

from __future__ import annotations

import datetime

from fpdf import FPDF

PROSE = (
    "The Company evaluates the carrying amount of each reporting unit at least once a year and "
    "whenever events indicate that the carrying amount may not be recoverable. The evaluation "
    "compares the fair value of the unit with its carrying amount, including goodwill."
)
#: (heading, path of the heading: its ancestors then itself, centred)
HEADINGS = [
    ("PART II", ["PART II"], True),
    (
        "Item 7. Management's Discussion and Analysis",
        ["PART II", "Item 7. Management's Discussion and Analysis"],
        False,
    ),
    ("Overview", ["PART II", "Item 7. Management's Discussion and Analysis", "Overview"], False),
    (
        "Results of Operations",
        ["PART II", "Item 7. Management's Discussion and Analysis", "Results of Operations"],
        False,
    ),
    ("Item 8. Financial Statements", ["PART II", "Item 8. Financial Statements"], False),
    ("Note 7 - Goodwill", ["PART II", "Item 8. Financial Statements", "Note 7 - Goodwill"], False),
    (
        "Goodwill impairment testing",
        ["PART II", "Item 8. Financial Statements", "Note 7 - Goodwill", "Goodwill impairment testing"],
        False,
    ),
    (
        "Changes in the carrying amount",
        ["PART II", "Item 8. Financial Statements", "Note 7 - Goodwill", "Changes in the carrying amount"],
        False,
    ),
    ("Note 8 - Debt", ["PART II", "Item 8. Financial Statements", "Note 8 - Debt"], False),
    (
        "Credit facilities",
        ["PART II", "Item 8. Financial Statements", "Note 8 - Debt", "Credit facilities"],
        False,
    ),
    ("PART III", ["PART III"], True),
    ("Item 10. Directors and Officers", ["PART III", "Item 10. Directors and Officers"], False),
]


def build() -> tuple[bytes, dict]:
    pdf = FPDF(unit="pt", format="Letter")
    pdf.set_creation_date(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
    pdf.set_auto_page_break(False)
    pdf.add_page()
    x, width, y = 72.0, 468.0, 72.0
    for text, _, centred in HEADINGS:
        if y > 640:
            pdf.add_page()
            y = 72.0
        pdf.set_xy(x, y)
        pdf.set_font("Times", "B", 10)
        pdf.cell(width, 12, text, align="C" if centred else "L")
        y += 18
        if centred:
            continue
        pdf.set_xy(x, y)
        pdf.set_font("Times", "", 10)
        pdf.multi_cell(width, 12, PROSE)
        y = pdf.get_y() + 10
    truth = {"headings": [{"text": text, "path": path} for text, path, _ in HEADINGS]}
    return bytes(pdf.output()), truth
