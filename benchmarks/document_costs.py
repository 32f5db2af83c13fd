"""Where a small document's CPU goes, stage by stage, in a batch: ms of CPU per document.

    python benchmarks/document_costs.py [--small 100]

`--small N` copies of fixtures/two_column.pdf (each with its own hash, as `bench_pipeline.py
--small` makes them) go through `run_pipeline` with `workers = 0` into one database, so the
parse, chunk, language and store of every document run in this process, with the run's
per-document work (discover's hashing, one transaction per document, run items). One
document is ingested first, so imports, model loads and first calls are not counted.

Each stage is the CPU (`time.process_time()`, user + system) spent inside one function,
counted at its outermost call: the per-page read (`pdfium_page_to_layout`: characters, lines,
ruled tables), the unruled-table pass (`lines_to_unruled_tables`), the reading-order pass
that holds it (`layout_to_blocks`), the heading passes, chunking, language, the store
(`store_or_fail`: one transaction) and discover. Stages nest (parse holds the others named
"parse"), so the rows do not add up to the total. `PYTHONPATH=DIR` measures the code in DIR
(compare versions one after the other in the same session, as ratios).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # PYTHONPATH=DIR measures the code in DIR (e.g. an older revision)
    sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent))
from bench_pipeline import small_copies  # noqa: E402 - a sibling script, not a package

#: (module, function, stage): each function is timed where the pipeline looks it up.
STAGES = (
    ("ingest.pipeline.batch", "classify", "discover (hashing)"),
    ("ingest.pipeline.document", "parse_pdf", "parse"),
    ("parsers.pages", "pdfium_page_to_layout", "parse: page read (chars, lines, ruled tables)"),
    ("parsers.pdf", "layout_to_blocks", "parse: reading order, unruled tables included"),
    ("parsers.textlayer.layout", "lines_to_unruled_tables", "parse: unruled tables"),
    ("parsers.pdf", "heading_shaped_blocks", "parse: run-in and multi-line headings"),
    ("parsers.pdf", "blocks_to_headings", "parse: headings"),
    ("parsers.pdf", "blocks_to_elements", "parse: elements"),
    ("ingest.pipeline.document", "chunk_document", "chunk"),
    ("ingest.pipeline.document", "chunks_with_language", "language"),
    ("ingest.pipeline.batch", "store_or_fail", "store (one transaction)"),
)


def timed(spent: Counter, stage: str, function):
    """`function`, adding its CPU seconds to `spent[stage]` at its outermost call only."""
    depth = 0

    def wrapper(*arguments, **keywords):
        nonlocal depth
        depth += 1
        start = time.process_time()
        try:
            return function(*arguments, **keywords)
        finally:
            depth -= 1
            if depth == 0:
                spent[stage] += time.process_time() - start

    return wrapper


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100, help="how many small PDFs")
    args = parser.parse_args(argv)
    spent: Counter = Counter()
    for module_name, name, stage in STAGES:
        module = importlib.import_module(module_name)
        setattr(module, name, timed(spent, stage, getattr(module, name)))
    from ingest.pipeline.batch import run_pipeline

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        db = str(tmp / "small.db")
        run_pipeline([str(small_copies(tmp / "warm", 1))], {"workers": 0}, db=db)
        spent.clear()
        start = time.process_time()
        run_pipeline([str(small_copies(tmp / "small", args.small))], {"workers": 0}, db=db)
        total = time.process_time() - start
    print(f"\n| {args.small} small PDFs (two_column.pdf), stage | CPU ms per document |")
    print("|---|--:|")
    for _, _, stage in STAGES:
        print(f"| {stage} | {1000 * spent[stage] / args.small:.1f} |")
    print(f"| run_pipeline, all | {1000 * total / args.small:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
