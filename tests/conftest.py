"""Where the tests find their PDFs, defined once, and how a test that needs real PDFs skips.

- `FIXTURES`: the small generated PDFs in this repository, with their ground truth.
- `CORPUS`: the real documents in `../shared/corpus` beside the checkout, or the folder named by
  the environment variable `INGEST_TEST_CORPUS` (to run the corpus tests on other documents).
- `BENCH`: `../shared/bench` (ICDAR 2013, FinanceBench, Docling ground truth).

The real PDFs are not in the repository (README, "Tests on real PDFs"). A test that reads
them is marked `shared` (or asks for its file through `shared_file`): on a clone with no
`../shared` beside it, it skips with the one reason `SHARED_MISSING`, naming the folder; a
test that would check nothing where the folder IS present still fails (`non_empty`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = Path(os.environ.get("INGEST_TEST_CORPUS") or ROOT.parent / "shared" / "corpus")
BENCH = ROOT.parent / "shared" / "bench"
SHARED_PRESENT = CORPUS.is_dir() and BENCH.is_dir()
SHARED_MISSING = (
    f"needs the real PDFs of {CORPUS} and {BENCH}, which are not beside this checkout (README, 'Tests on real PDFs')"
)


def pytest_collection_modifyitems(config, items) -> None:
    """Skip the tests marked `shared` when the real PDFs are not beside the checkout."""
    if SHARED_PRESENT:
        return
    skip = pytest.mark.skip(reason=SHARED_MISSING)
    for item in items:
        if item.get_closest_marker("shared") is not None:
            item.add_marker(skip)


def shared_file(path: Path) -> Path:
    """`path`, a file under `CORPUS` or `BENCH`; skips the calling test when it is not there:
    with `SHARED_MISSING` when the folder is absent, naming the file when only the file is."""
    if not SHARED_PRESENT:
        pytest.skip(SHARED_MISSING)
    if not path.exists():
        pytest.skip(f"{path} is not in {path.parent}")
    return path


def shared_pdfs(found: list, what: str) -> list:
    """Parameters for a test over every PDF of the shared folders: `found`, failing at collection
    when the folders are present but hold none (the test would check nothing), or one skipped
    parameter when the folders are absent (a plain clone: nothing to check, and it says why)."""
    if not SHARED_PRESENT:
        return [pytest.param(None, id="no-shared-folder", marks=pytest.mark.skip(reason=SHARED_MISSING))]
    return non_empty(found, what)


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
