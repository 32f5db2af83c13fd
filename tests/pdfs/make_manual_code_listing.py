"""A technical manual's page: a numbered section heading, prose, and code listings of SQL
statements, one per line, in a monospaced font a point larger than the prose (as manuals set
their examples) with a blank line between statements, and bold command lines among them."""

from __future__ import annotations

import datetime

from fpdf import FPDF

PROSE = (
    "Row permissions are defined with the CREATE PERMISSION statement. The statements below "
    "create a permission for the human resources group, enable it on the table and show the "
    "rows that a user of another group can read once row access control is activated."
)
LISTING = [
    ("CREATE PERMISSION HR_ROWS ON EMPLOYEE", ""),
    ("FOR ROWS WHERE VERIFY_GROUP_FOR_USER(SESSION_USER, 'HR') = 1", ""),
    ("ENFORCED FOR ALL ACCESS ENABLE", ""),
    ("ALTER TABLE EMPLOYEE ACTIVATE ROW ACCESS CONTROL", "B"),
    ("SELECT EMPNO, LASTNAME, SALARY FROM EMPLOYEE", "B"),
    ("WHERE WORKDEPT = 'D11'", ""),
]
SECOND = [
    ("CREATE MASK SALARY_MASK ON EMPLOYEE FOR COLUMN SALARY", ""),
    ("RETURN CASE WHEN VERIFY_GROUP_FOR_USER(SESSION_USER, 'HR') = 1", ""),
    ("THEN SALARY ELSE NULL END ENABLE", ""),
    ("ALTER TABLE EMPLOYEE ACTIVATE COLUMN ACCESS CONTROL", "B"),
]


def build() -> tuple[bytes, dict]:
    pdf = FPDF(unit="pt", format="Letter")
    pdf.set_creation_date(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
    pdf.set_auto_page_break(False)
    pdf.add_page()
    x, width, y = 72.0, 468.0, 72.0
    headings = []
    listings = []
    for heading, statements in (("3.2 Row permissions", LISTING), ("3.3 Column masks", SECOND)):
        pdf.set_xy(x, y)
        pdf.set_font("Helvetica", "B", 12)
        pdf.cell(width, 16, heading)
        headings.append({"text": heading, "level": 2})
        y += 26
        for _ in range(2):
            pdf.set_xy(x, y)
            pdf.set_font("Helvetica", "", 9)
            pdf.multi_cell(width, 12, PROSE)
            y = pdf.get_y() + 8
        for text, style in statements:
            pdf.set_xy(x + 18, y)
            pdf.set_font("Courier", style, 10)
            pdf.cell(width, 12, text)
            listings.append(text)
            y += 24
        y += 10
    return bytes(pdf.output()), {"headings": headings, "code_lines": listings}
