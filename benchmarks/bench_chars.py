"""Per-page cost of reading characters from pdfium and grouping them into segments.

    PYTHONPATH=DIR python benchmarks/bench_chars.py [PDF]     # default ../shared/corpus/DA-619p.pdf

CPU ms per page (process time, this process only) of three steps of the per-page parse, in one
pass over the document: opening the page and its text page, `pdfium_chars.page_to_chars`
(falls back to `chars.page_to_chars` in older trees), and `chars.chars_to_segments`; and
us per character for the reading step. Run it with `PYTHONPATH` set to each tree to compare,
interleaved, on the same machine: the figures move with the machine's load.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pypdfium2 as pdfium

from parsers.textlayer.chars import chars_to_segments

try:
    from parsers.textlayer.pdfium_chars import page_to_chars
except ImportError:  # a tree from before the reader moved out of chars.py
    from parsers.textlayer.chars import page_to_chars  # type: ignore[attr-defined,no-redef]

DEFAULT_PDF = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "DA-619p.pdf"


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT_PDF
    document = pdfium.PdfDocument(path)
    opening = reading = grouping = 0.0
    characters = 0
    pages = len(document)
    try:
        for index in range(pages):
            started = time.process_time()
            page = document[index]
            textpage = page.get_textpage()
            opened = time.process_time()
            chars, _frame = page_to_chars(page, textpage)
            read = time.process_time()
            chars_to_segments(chars)
            grouped = time.process_time()
            textpage.close()
            page.close()
            opening += opened - started
            reading += read - opened
            grouping += grouped - read
            characters += len(chars)
    finally:
        document.close()
    print(
        f"{path.name}: {pages} pages, {characters} characters; ms/page: open {1000 * opening / pages:.1f}, "
        f"read characters {1000 * reading / pages:.1f} ({1e6 * reading / max(characters, 1):.2f} us/character), "
        f"segments {1000 * grouping / pages:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
