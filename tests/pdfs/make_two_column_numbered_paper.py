"""A two-column scientific paper page set in TeX's fonts: numbered section and subsection
headings ("5 Experiments", "5.1 Datasets") in bold at the body size, each on a line of its own
at the head of its paragraph, with a journal column's tight leading (no gap around the heading).

TeX's bold faces say so only by name: Computer Modern's bold extended ("CMBX10") and the URW
Times clone's medium ("NimbusRomNo9L-Medi") carry a stem width that reads as weight ~550 and no
force-bold flag. The fonts here are DejaVu Serif renamed and reweighted the same way, so the
page's text layer looks like such a paper's."""

from __future__ import annotations

import datetime
import tempfile
from pathlib import Path

from fontTools.ttLib import TTFont
from fpdf import FPDF

FONTS = Path("/usr/share/fonts/truetype/dejavu")
BODY = (
    "We evaluate the method on three public benchmarks and report the mean over five runs with "
    "different random seeds. Hyper parameters were tuned on the validation split only, and the "
    "test split was used once for the numbers reported here. The models share one backbone and "
    "differ only in the head that predicts the layout labels of each region of the page."
)
#: (heading, level, paragraphs under it, bold font name)
SECTIONS = [
    ("5 Experiments", 1, 1, "CMBX10"),
    ("5.1 Datasets", 2, 2, "CMBX10"),
    ("5.2 Training Details", 2, 2, "CMBX10"),
    ("6 Results", 1, 1, "NimbusRomNo9L-Medi"),
    ("6.1 Layout Detection", 2, 2, "NimbusRomNo9L-Medi"),
    ("6.2 Error Analysis", 2, 2, "NimbusRomNo9L-Medi"),
]
LEADING = 11.5  # points between baselines: a journal column's tight leading


def _renamed(source: Path, name: str, weight: int, folder: Path) -> Path:
    """`source` saved as a font named `name` of OS/2 weight class `weight` (fpdf2 derives the
    PDF's StemV, hence pdfium's weight, from it; below 600 it sets no force-bold flag)."""
    font = TTFont(source)
    font["name"].names = [r for r in font["name"].names if r.nameID not in (2, 16, 17, 21, 22)]
    for record in font["name"].names:
        if record.nameID in (1, 3, 4, 6):
            record.string = name
    font["OS/2"].usWeightClass = weight
    target = folder / f"{name}.ttf"
    font.save(target)
    return target


def build() -> tuple[bytes, dict]:
    pdf = FPDF(unit="pt", format="Letter")
    pdf.set_creation_date(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
    pdf.set_auto_page_break(False)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pdf.add_font("body", "", str(_renamed(FONTS / "DejaVuSerif.ttf", "CMR10", 400, folder)))
        for name in {s[3] for s in SECTIONS}:
            pdf.add_font(name, "", str(_renamed(FONTS / "DejaVuSerif-Bold.ttf", name, 500, folder)))
        pdf.add_page()
        columns = [(54.0, 252.0), (318.0, 252.0)]
        headings: list[dict] = []
        column, y = 0, 72.0
        for text, level, paragraphs, bold_font in SECTIONS:
            if y > 520 and column == 0:
                column, y = 1, 72.0
            x, width = columns[column]
            pdf.set_xy(x, y)
            pdf.set_font(bold_font, "", 9)
            pdf.cell(width, LEADING, text)
            headings.append({"text": text, "level": level})
            y += LEADING
            pdf.set_font("body", "", 9)
            for _ in range(paragraphs):
                pdf.set_xy(x, y)
                pdf.multi_cell(width, LEADING, BODY, align="J")
                y = pdf.get_y() + 2.0
        data = bytes(pdf.output())
    return data, {"headings": headings}
