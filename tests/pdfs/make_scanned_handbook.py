"""Scanned handbook pages: an equipment handbook that names each part of a machine in a short
bold line (one to three words, body size) above the paragraph that describes it, printed, then
scanned to a greyscale image with no text layer, so every heading is decided from OCR."""

from __future__ import annotations

import datetime
import io
import random

from fpdf import FPDF

DPI = 200
PARTS = [
    (
        "Motor Housing",
        "The motor housing encloses the drive motor and the cooling fan. Keep its vents "
        "clear of dust and chaff, and never operate the machine with the cover removed.",
    ),
    (
        "Cutting Bar",
        "The cutting bar carries the knife sections and the guards. Check the sections for "
        "wear every morning and replace any that are cracked or blunt before work begins.",
    ),
    (
        "Belt Guard",
        "The belt guard covers the drive belt between the motor and the gearbox. "
        "Adjust the belt tension with the guard in place and the engine stopped.",
    ),
    (
        "Gearbox",
        "The gearbox holds one litre of oil. Check the level weekly through the "
        "sight glass and change the oil after every one hundred hours of work.",
    ),
    (
        "Wheels",
        "The wheels are set to the width of the rows. Loosen the two clamp "
        "bolts on each hub to move a wheel along its axle, then tighten them again.",
    ),
    (
        "Handle Bar",
        "The handle bar folds for transport. Lift the locking lever, swing "
        "the bar forward and let the lever fall back into the notch.",
    ),
]


def _page(parts: list[tuple[str, str]], family: str, size: float) -> bytes:
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
    pdf.set_auto_page_break(False)
    pdf.add_page()
    y = 72.0
    for name, text in parts:
        pdf.set_xy(72, y)
        pdf.set_font(family, "B", size)
        pdf.cell(450, 14, name)
        y += 16
        pdf.set_xy(72, y)
        pdf.set_font("Times", "", 11)
        pdf.multi_cell(450, 14, text)
        y = pdf.get_y() + 12
    return bytes(pdf.output())


def _scan(pdf_bytes: bytes, seed: int) -> io.BytesIO:
    """Page 1 as a greyscale JPEG with a paper tone and a few seeded specks, as a scanner gives."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf_bytes)
    try:
        image = document[0].render(scale=DPI / 72, grayscale=True).to_pil().convert("L")
    finally:
        document.close()
    image = image.point(lambda v: 18 + v * 222 // 255)
    rng = random.Random(seed)
    pixels = image.load()
    width, height = image.size
    for _ in range(width * height // 4000):
        pixels[rng.randrange(width), rng.randrange(height)] = rng.randrange(120, 200)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=80, dpi=(DPI, DPI))
    out.seek(0)
    return out


def build() -> tuple[bytes, dict]:
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
    pdf.set_auto_page_break(False)
    pages = [PARTS[:3], PARTS[3:]]
    # the first page names its parts in the body's face, the second in a bold sans a point smaller
    for number, (parts, family, size) in enumerate(zip(pages, ("Times", "Helvetica"), (11, 10))):
        pdf.add_page()
        pdf.image(_scan(_page(parts, family, size), seed=number), x=0, y=0, w=pdf.w, h=pdf.h)
    headings = [{"text": name, "page": number + 1} for number, parts in enumerate(pages) for name, _ in parts]
    return bytes(pdf.output()), {"headings": headings}
