"""Pages per second and peak memory: `parse_pdf` against pdfplumber's own
`extract_words()` + `find_tables()` over the same pages, side by side in one run.

Each (tool, file) pair runs in a fresh subprocess, so its peak RSS (`ru_maxrss` of
that child) is its own; time is measured inside the child around the parse only
(imports, pdfplumber's included, and interpreter start excluded for both alike). OCR is off
(`ocr.mode = never`): this measures the text-layer parser, not Tesseract.

    python benchmarks/bench_parse.py                  # every PDF in ../shared/corpus
    python benchmarks/bench_parse.py --max-pages 100  # cap pages per file (quicker)
    python benchmarks/bench_parse.py a.pdf b.pdf      # chosen files

Prints a Markdown table: per file and in total, pages/s and peak MB of both, and the
speed ratio (parse_pdf pages/s / pdfplumber pages/s).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
tool, path, max_pages = sys.argv[1], sys.argv[2], int(sys.argv[3])
if tool == "parse_pdf":
    from parsers.pdf import parse_pdf
    import pdfplumber  # imported before the clock, as for the baseline (a batch worker imports once)
    import pypdfium2
    count = len(pypdfium2.PdfDocument(path))
    start = time.perf_counter()
    if max_pages and count > max_pages:
        import tempfile, os
        # parse_pdf reads whole files: cut the file to its first pages for a capped run
        source = pypdfium2.PdfDocument(path)
        cut = pypdfium2.PdfDocument.new()
        cut.import_pages(source, list(range(max_pages)))
        handle, tmp = tempfile.mkstemp(suffix=".pdf"); os.close(handle)
        cut.save(tmp); path, count = tmp, max_pages
        start = time.perf_counter()
    document = parse_pdf(path, {{"ocr": {{"mode": "never"}}}})
    pages = document.page_count
else:
    import pdfplumber
    start = time.perf_counter()
    pages = 0
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages[: max_pages or None]:
            page.extract_words()
            page.find_tables()
            page.close()
            pages += 1
elapsed = time.perf_counter() - start
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"pages": pages, "seconds": elapsed, "peak_mb": peak_mb}}))
"""


def run_child(tool: str, path: Path, max_pages: int) -> dict:
    code = CHILD.format(root=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code, tool, str(path), str(max_pages)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--max-pages", type=int, default=0, help="cap pages per file (0 = all)")
    args = parser.parse_args()
    files = args.files or sorted(CORPUS.glob("*.pdf"))
    if not files:
        sys.exit(f"no PDFs given and none in {CORPUS}")
    rows = []
    totals = {"parse_pdf": [0, 0.0], "pdfplumber": [0, 0.0]}
    peaks = {"parse_pdf": 0.0, "pdfplumber": 0.0}
    for path in files:
        ours = run_child("parse_pdf", path, args.max_pages)
        base = run_child("pdfplumber", path, args.max_pages)
        if "error" in ours or "error" in base:
            rows.append(f"| {path.name} | error: {ours.get('error') or base.get('error')} | | | | | |")
            continue
        for name, result in (("parse_pdf", ours), ("pdfplumber", base)):
            totals[name][0] += result["pages"]
            totals[name][1] += result["seconds"]
            peaks[name] = max(peaks[name], result["peak_mb"])
        ours_rate = ours["pages"] / ours["seconds"]
        base_rate = base["pages"] / base["seconds"]
        rows.append(
            f"| {path.name} | {ours['pages']} | {ours_rate:.1f} | {base_rate:.1f} | {ours_rate / base_rate:.1f}x "
            f"| {ours['peak_mb']:.0f} | {base['peak_mb']:.0f} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    ours_total = totals["parse_pdf"][0] / max(totals["parse_pdf"][1], 1e-9)
    base_total = totals["pdfplumber"][0] / max(totals["pdfplumber"][1], 1e-9)
    print(
        "| file | pages | parse_pdf pages/s | pdfplumber words+tables pages/s | ratio | parse_pdf peak MB "
        "| pdfplumber peak MB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(
        f"| **total** | {totals['parse_pdf'][0]} | **{ours_total:.1f}** | **{base_total:.1f}** | "
        f"**{ours_total / base_total:.1f}x** | {peaks['parse_pdf']:.0f} (max) | {peaks['pdfplumber']:.0f} (max) |"
    )


if __name__ == "__main__":
    main()
