"""Where the tests find their PDFs, defined once.

- `FIXTURES`: the small generated PDFs in this repository, with their ground truth.
- `CORPUS`: the real documents in `../shared/corpus` beside the checkout, or the folder named by
  the environment variable `INGEST_TEST_CORPUS` (to run the corpus tests on other documents).
  A test that needs a corpus file skips, naming the folder, when the file is not there.
- `BENCH`: `../shared/bench` (ICDAR 2013, FinanceBench, Docling ground truth).
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = Path(os.environ.get("INGEST_TEST_CORPUS") or ROOT.parent / "shared" / "corpus")
BENCH = ROOT.parent / "shared" / "bench"


def non_empty(items: list, what: str) -> list:
    """`items`, failing at collection when empty: a loop over nothing would pass by testing nothing."""
    assert items, f"no {what} found: the tests would check nothing"
    return items


def pdf_pages(path: Path, first: int, last: int | None = None, *, into: Path, times: int = 1) -> Path:
    """Pages `first` to `last` of the PDF at `path` (1-based, both included; no `last`: page
    `first` alone) copied with pypdfium2 into a PDF of their own in the folder `into`, the range
    `times` over one after the other; returns that PDF's path, `into / "<stem>-p<first>-<last>.pdf"`
    (`-x<times>` before ".pdf" when `times` is over 1). A page beyond the end raises."""
    import pypdfium2

    last = first if last is None else last
    target = into / f"{path.stem}-p{first}-{last}{f'-x{times}' if times > 1 else ''}.pdf"
    source = pypdfium2.PdfDocument(path)
    cut = pypdfium2.PdfDocument.new()
    try:
        for _ in range(times):
            cut.import_pages(source, list(range(first - 1, last)))
        cut.save(target)
    finally:
        cut.close()
        source.close()
    return target


# Real engines (a throw-away PostgreSQL server, `db_url` over SQLite and PostgreSQL): tests/engines.py.
from engines import db_url, postgres_server, postgres_url  # noqa: E402, F401
