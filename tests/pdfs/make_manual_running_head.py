"""A field manual: its title set large on page 1, the same title repeated small as the running head
of every page, and a stale info Title left by the template it was made from. The printed title
is the title; the running head above it is not a reason to refuse it."""

from __future__ import annotations

from datetime import datetime, timezone

from fpdf import FPDF

TITLE = "Drip Irrigation Field Manual"
PARAGRAPH = (
    "Lay the lateral lines along the crop rows and flush them before the emitters are fitted. "
    "Check the filter every week during the season and clean it when the pressure drop passes the mark. "
)


class Manual(FPDF):
    def header(self) -> None:
        self.set_font("Helvetica", "", 8)
        self.cell(0, 5, f"{TITLE} 2024", align="R", new_x="LMARGIN", new_y="NEXT")
        self.ln(4)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", "", 8)
        self.cell(0, 5, f"Page {self.page_no()}", align="C")


def build() -> tuple[bytes, dict]:
    pdf = Manual(format="A4")
    pdf.set_creation_date(datetime(2024, 3, 1, tzinfo=timezone.utc))
    pdf.set_title("Template - Extension Booklet")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 22)
    pdf.cell(0, 12, TITLE, new_x="LMARGIN", new_y="NEXT")
    sections = ["Planning the Layout", "Installing the Laterals", "Filters and Flushing", "Scheduling Water"]
    for index, heading in enumerate(sections):
        if index and index % 2 == 0:
            pdf.add_page()
        pdf.ln(4)
        pdf.set_font("Helvetica", "B", 14)
        pdf.cell(0, 8, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 10)
        for _ in range(3):
            pdf.multi_cell(0, 5, PARAGRAPH * 3)
            pdf.ln(2)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 8, "Troubleshooting", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 5, PARAGRAPH * 4)
    truth = {"title": TITLE, "metadata": {"title_source": "typographic"}, "sections": sections}
    return bytes(pdf.output()), truth
