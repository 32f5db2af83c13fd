"""An annual report on an SEC-style cover: the agency lines in the largest type, "FORM 10-K", the
fiscal year, the registrant's name set large with "(Exact name of registrant as specified in
its charter)" below, then the report's parts and items on later pages. Every filing shares the
agency line, so it must not be the title: the issuer, form and period are."""

from __future__ import annotations

from datetime import datetime, timezone

from fpdf import FPDF

ISSUER = "ACME CORPORATION"
BODY = (
    "The Company designs, manufactures and sells industrial fasteners and the tools that set them. "
    "Its customers are builders of aircraft, rail cars and farm machinery in North America and Europe. "
)


def build() -> tuple[bytes, dict]:
    pdf = FPDF(format="letter")
    pdf.set_creation_date(datetime(2024, 2, 20, tzinfo=timezone.utc))
    pdf.set_auto_page_break(True, margin=54)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 9, "UNITED STATES", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 9, "SECURITIES AND EXCHANGE COMMISSION", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    pdf.cell(0, 6, "Washington, D.C. 20549", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 8, "FORM 10-K", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    pdf.ln(2)
    pdf.multi_cell(
        0, 5, "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934", align="C"
    )
    pdf.cell(0, 6, "For the fiscal year ended December 31, 2023", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 6, "Commission File Number 001-12345", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 8, ISSUER, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 9)
    pdf.cell(0, 5, "(Exact name of registrant as specified in its charter)", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Helvetica", "", 10)
    pdf.cell(0, 6, "Delaware 12-3456789", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(6)
    pdf.multi_cell(
        0,
        5,
        "Indicate by check mark if the registrant is a well-known seasoned issuer, as defined in Rule 405 of "
        "the Securities Act. Yes [X] No [ ]. Indicate by check mark whether the registrant has filed all "
        "reports required to be filed by Section 13 or 15(d) of the Securities Exchange Act of 1934 during "
        "the preceding 12 months. Yes [X] No [ ].",
    )
    items = [
        ("PART I", None),
        ("Item 1. Business", "business"),
        ("Item 1A. Risk Factors", "risk"),
        ("PART II", None),
        ("Item 7. Management's Discussion and Analysis", "mdna"),
    ]
    for heading, body in items:
        if body is None:
            pdf.add_page()
        pdf.set_font("Helvetica", "B", 12)
        pdf.ln(4)
        pdf.cell(0, 7, heading, new_x="LMARGIN", new_y="NEXT")
        if body is not None:
            pdf.set_font("Helvetica", "", 10)
            for _ in range(3):
                pdf.multi_cell(0, 5, BODY * 3)
                pdf.ln(2)
    truth = {
        "title": f"{ISSUER} - Form 10-K, fiscal year ended December 31, 2023",
        "metadata": {
            "title_source": "filing_cover",
            "issuer": ISSUER,
            "document_kind": "Form 10-K",
            "period": "fiscal year ended December 31, 2023",
            "period_end": "2023-12-31",
        },
        "shared_lines": ["UNITED STATES SECURITIES AND EXCHANGE COMMISSION", "FORM 10-K"],
        "items": [heading for heading, body in items if body],
    }
    return bytes(pdf.output()), truth
