"""Where a document's CPU goes, stage by stage, in one process: ms of CPU per page.

    python benchmarks/stage_costs.py [PDF] [--repeat 3] [--profile 25]

The stages of `ingest run --workers 0` (`ingest.pipeline.document.process_document`, then
`storage.store.save_document`), each timed with `time.process_time()` (CPU of this process,
user + system), run in the order the pipeline runs them:

- pages: the per-page stage (`parsers.pages.read_page_range_of_file`: characters, lines,
  drawings, ruled tables);
- document passes: the rest of `parse_pdf` given those pages (furniture, blocks and unruled
  tables per page, headings, elements, conservation, continuations);
- metadata, chunk, language: `document_metadata`, `chunk_document`, `chunks_with_language`;
- store: `save_document` into a new SQLite file, committed (FTS5 indexing included).

The first page alone is processed once beforehand, so imports, model loads and first calls
are not counted; each figure is the median of `--repeat` runs, divided by the page count.
`--profile N`: also one run under cProfile with a CPU-time clock, its N costliest functions
by own time (cProfile's own overhead inflates small functions; read it as a ranking).
Default PDF: ../shared/corpus/DA-619p.pdf. `PYTHONPATH=DIR` measures the code in DIR instead
of this tree (compare versions in the same session, one after the other, as ratios).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # PYTHONPATH=DIR measures the code in DIR (e.g. an older revision)
    sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(Path(__file__).resolve().parent))
from bench_pipeline import BIG_PDF, first_page_of  # noqa: E402 - a sibling script, not a package

STAGES = ("pages", "document passes", "metadata", "chunk", "language", "store")


def run_stages(pdf: Path, db_path: Path) -> dict[str, float]:
    """CPU seconds per stage for one document, end to end (the collector paused as
    `ingest.pipeline.document.process_document` pauses it, where that exists)."""
    from ingest.pipeline.settings import PipelineSettings
    from parsers.pdf_info import open_pdfium

    try:
        from ingest.pipeline.document import collector_paused
    except ImportError:  # older code: the collector ran throughout
        from contextlib import nullcontext as collector_paused

    settings = PipelineSettings()
    pages = len(open_pdfium(pdf))
    return _stages(pdf, db_path, settings, pages, collector_paused)


def _stages(pdf: Path, db_path: Path, settings, pages: int, collector_paused) -> dict[str, float]:
    from ingest.chunker import chunk_document
    from ingest.pipeline.document import _sentence_embedder
    from ingest.pipeline.enrich import chunks_with_language, document_metadata, document_title
    from ingest.tokens import tiktoken_counter
    from parsers.pages import read_page_range_of_file
    from parsers.pdf import parse_pdf
    from storage.db import open_database
    from storage.store import DocumentInfo, save_document

    spent: dict[str, float] = {}

    def timed(stage, function, *arguments, **keywords):
        start = time.process_time()
        result = function(*arguments, **keywords)
        spent[stage] = time.process_time() - start
        return result

    with collector_paused():  # as `process_document` runs these stages; the store runs outside it
        read = timed("pages", read_page_range_of_file, pdf, settings.parse, 0, pages)
        document = timed("document passes", parse_pdf, pdf, settings.parse, pages_read=read)
        metadata = timed("metadata", document_metadata, document, settings.enrich)
        counter = tiktoken_counter(settings.chunk.encoding)
        chunks = timed("chunk", chunk_document, document, settings.chunk, counter, _sentence_embedder(settings))
        chunks = timed("language", chunks_with_language, chunks, settings.enrich)
    info = DocumentInfo(pipeline_version="bench", title=document_title(document, metadata), metadata=metadata)
    database = open_database(db_path)

    def store():
        with database.transaction() as session:
            save_document(session, "doc", document, chunks, info)

    timed("store", store)
    database.close()
    return spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf", nargs="?", type=Path, default=BIG_PDF)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, help="also list the N costliest functions")
    args = parser.parse_args(argv)
    from parsers.pdf_info import open_pdfium

    pages = len(open_pdfium(args.pdf))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        run_stages(first_page_of(args.pdf, tmp / "first.pdf"), tmp / "warm.db")  # imports, loads, first calls
        runs = [run_stages(args.pdf, tmp / f"run{i}.db") for i in range(args.repeat)]
        print(f"\n| {args.pdf.name} ({pages} pages), stage | CPU ms/page (median of {args.repeat}) |")
        print("|---|---|")
        total = 0.0
        for stage in STAGES:
            ms = statistics.median(run[stage] for run in runs) * 1000 / pages
            total += ms
            print(f"| {stage} | {ms:.1f} |")
        print(f"| total | {total:.1f} |")
        if args.profile:
            profile = cProfile.Profile(time.process_time)
            profile.runcall(run_stages, args.pdf, tmp / "profile.db")
            pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
