"""Rendering speed: `ingest render` and `ingest report` on a 20-page document.

    python benchmarks/bench_render.py [--copies 4] [--dpi 100] [--repeat 3]

Builds a 20-page PDF from four copies of fixtures/crop_manual.pdf (pypdfium2 page import), ingests
it once in-process (text layer, no OCR) into a temporary database, then times, best of --repeat:
rendering every page with elements and chunks (in memory, and written as PNGs), and writing the
HTML report. Prints a Markdown table. Measurement only: no assertion, no timing in tests.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest import api  # noqa: E402


def build_pdf(path: Path, copies: int) -> int:
    import pypdfium2

    source = pypdfium2.PdfDocument(str(ROOT / "fixtures" / "crop_manual.pdf"))
    target = pypdfium2.PdfDocument.new()
    for _ in range(copies):
        target.import_pages(source)
    target.save(str(path))
    return len(target)


def best(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=4, help="copies of the 5-page fixture (4 = 20 pages)")
    parser.add_argument("--dpi", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pdfs").mkdir()
        pdf = root / "pdfs" / "twenty.pdf"
        pages = build_pdf(pdf, options.copies)
        db = str(root / "b.db")
        summary = api.run([str(root / "pdfs")], db=db, workers=0, ocr="never")
        assert not summary.failed, summary.failed
        memory, drawn = best(lambda: api.render(db, str(pdf), dpi=options.dpi), options.repeat)
        files, _ = best(lambda: api.render(db, str(pdf), dpi=options.dpi, out=root / "png"), options.repeat)
        report, result = best(lambda: api.report(db, str(pdf), out=root / "r.html", dpi=options.dpi), options.repeat)
        size = result.path.stat().st_size
    labels = sum(len(page.chunk_labels) for page in drawn)
    print(f"{pages} pages, {labels} chunk labels, dpi {options.dpi}, best of {options.repeat}\n")
    print("| what | seconds | per page |\n|---|---:|---:|")
    print(f"| render, in memory | {memory:.2f} | {memory / pages * 1000:.0f} ms |")
    print(f"| render, PNGs written | {files:.2f} | {files / pages * 1000:.0f} ms |")
    print(f"| report ({size / 1e6:.1f} MB HTML) | {report:.2f} | {report / pages * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
