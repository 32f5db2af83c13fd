"""A filing's cover page whose embedded font maps its space glyph to a line feed.

Word processors that embed a subset of a TrueType font write a ToUnicode table for it, and
some map the space glyph to U+000A (a line feed) or U+00A0 (a no-break space) instead of
U+0020. The page still draws a space glyph between the words, with its advance; a text
extractor that reads a line feed as a control character and leaves it out has only the glyph
gaps left to tell the words apart, and after a short-advance letter ("f" overhangs its
advance in serif faces) the gap falls under a word space: "of registrant" read "ofregistrant".

The cover is set in a bold serif, one line per call, the way 10-K covers set their captions.
The PDF is written uncompressed, so the ToUnicode entry of the space glyph (fpdf2 gives it
code 0x20) is rewritten to U+000A in place, keeping every byte offset."""

from __future__ import annotations

from datetime import datetime, timezone

from fpdf import FPDF

FONT_BOLD = "/usr/share/fonts/truetype/noto/NotoSerifDisplay-Bold.ttf"

LINES = [
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
    "Annual report pursuant to Section 13 of the Securities Exchange Act",
    "Exact name of registrant as specified in its charter",
    "Address of principal executive offices",
    "Securities registered pursuant to Section 12(b) of the Act",
    "Title of each class and name of each exchange on which registered",
]

SIZE = 10.0  # points
LEADING = 22.0  # points between baselines: each caption a line of its own

#: The space glyph's ToUnicode entry as fpdf2 writes it, and the same entry mapped to a line feed.
SPACE_ENTRY = b"<0020> <0020>"
LINE_FEED_ENTRY = b"<0020> <000A>"


def build() -> tuple[bytes, dict]:
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=timezone.utc))
    pdf.set_compression(False)
    pdf.add_font("CoverSerif", "", FONT_BOLD)
    pdf.set_font("CoverSerif", size=SIZE)
    pdf.add_page()
    for index, line in enumerate(LINES):
        pdf.text(72, 96 + index * LEADING, line)
    raw = bytes(pdf.output())
    assert raw.count(SPACE_ENTRY) == 1, "fpdf2 no longer maps the space glyph as code 0x20"
    data = raw.replace(SPACE_ENTRY, LINE_FEED_ENTRY)
    return data, {"lines": LINES, "space_maps_to": "U+000A"}
