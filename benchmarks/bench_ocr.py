"""OCR throughput and accuracy: seconds per page at 200 and 300 dpi with 1 and 2 workers.

    python benchmarks/bench_ocr.py [--pages 8] [--repeat 3]

Builds an image-only PDF of `--pages` pages by repeating the fixtures' scanned English
pages (scanned_notice p1, mixed p2), OCRs it with `ocr_pages` in every configuration
and prints a Markdown table: wall seconds per page and CPU seconds per page (Tesseract
subprocesses + this process), each the fastest of `--repeat` interleaved runs, and word
recall against the fixtures' truth text, measured on all three scanned fixture pages
(English with `eng`, Hindi with `hin`). The load average is printed before and after:
other work on the machine inflates wall times (CPU seconds much less).
Measurement only: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import pypdfium2 as pdfium

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ingest.evaluation.scoring import word_recall  # noqa: E402 - after the sys.path line
from parsers.ocr.tesseract import ocr_pages  # noqa: E402
from parsers.settings import OcrSettings  # noqa: E402

FIXTURES = ROOT / "fixtures"
SOURCE_PAGES = [("scanned_notice.pdf", 1), ("mixed.pdf", 2)]
RECALL_PAGES = [("scanned_notice", 1, "eng"), ("mixed", 2, "eng"), ("scanned_hi", 1, "hin")]


def build_scan_pdf(pages: int, out: Path) -> None:
    """An image-only PDF of `pages` pages cycling through SOURCE_PAGES."""
    target = pdfium.PdfDocument.new()
    sources = {name: pdfium.PdfDocument(str(FIXTURES / name)) for name, _ in SOURCE_PAGES}
    for i in range(pages):
        name, page_no = SOURCE_PAGES[i % len(SOURCE_PAGES)]
        target.import_pages(sources[name], [page_no - 1])
    target.save(str(out))


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def time_run(path: Path, pages: int, dpi: int, workers: int) -> tuple[float, float]:
    start_wall, start_cpu = time.perf_counter(), cpu_seconds()
    results = ocr_pages(path, list(range(1, pages + 1)), OcrSettings(dpi=dpi, workers=workers))
    wall, cpu = time.perf_counter() - start_wall, cpu_seconds() - start_cpu
    failed = [n for n, r in results.items() if r.error]
    if failed:
        raise SystemExit(f"OCR failed on pages {failed}: {results[failed[0]].error}")
    return wall / pages, cpu / pages


def recall_at(dpi: int) -> dict[str, float]:
    scores = {}
    for name, page_no, lang in RECALL_PAGES:
        truth = json.loads((FIXTURES / f"{name}.truth.json").read_text(encoding="utf-8"))
        expected = "\n".join(b["text"] for b in truth["blocks"] if b["page"] == page_no)
        result = ocr_pages(FIXTURES / f"{name}.pdf", [page_no], OcrSettings(dpi=dpi, languages=lang))[page_no]
        scores[f"{name} p{page_no} ({lang})"] = word_recall(
            expected, "\n".join(e.text for e in result.elements if not e.is_furniture)
        )
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="runs per configuration; the fastest is reported")
    args = parser.parse_args()
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    print(
        f"cores: {os.cpu_count()}, pages: {args.pages}, OMP_THREAD_LIMIT={os.environ['OMP_THREAD_LIMIT']}, "
        f"load average before: {os.getloadavg()[0]:.2f}\n"
    )
    configs = [(dpi, workers) for dpi in (200, 300) for workers in (1, 2)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scans.pdf"
        build_scan_pdf(args.pages, path)
        ocr_pages(path, [1], OcrSettings(dpi=72))  # warm the page cache and Tesseract's model files
        recall = {dpi: recall_at(dpi) for dpi in (200, 300)}
        runs: dict[tuple[int, int], list[tuple[float, float]]] = {config: [] for config in configs}
        for _ in range(args.repeat):  # configurations interleaved, so a burst of load hits all alike
            for dpi, workers in configs:
                runs[(dpi, workers)].append(time_run(path, args.pages, dpi, workers))
    # the least-disturbed run: other processes only ever add time
    rows = [
        (dpi, workers, min(r[0] for r in runs[(dpi, workers)]), min(r[1] for r in runs[(dpi, workers)]), recall[dpi])
        for dpi, workers in configs
    ]
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")
    names = list(rows[0][4])
    print("| dpi | workers | wall s/page | CPU s/page | " + " | ".join(f"recall {n}" for n in names) + " |")
    print("|---|---|---|---|" + "---|" * len(names))
    for dpi, workers, wall, cpu, recall in rows:
        print(f"| {dpi} | {workers} | {wall:.2f} | {cpu:.2f} | " + " | ".join(f"{recall[n]:.3f}" for n in names) + " |")


if __name__ == "__main__":
    main()
