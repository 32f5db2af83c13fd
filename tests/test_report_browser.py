"""The HTML report in a real browser: Debian's Chromium driven by Playwright (never a browser
download: `executable_path` points at the system binary). Loads from file:// with no console error
and no network request, lists every child chunk, and clicking chunk N shows exactly N's boxes.
The screenshot is kept under `$INGEST_ARTEFACTS` (default: pytest's temp dir) for CI."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_render import MANUAL, ingest_fixture, runner  # noqa: E402

from ingest.cli import app  # noqa: E402

CHROMIUM = next((path for name in ("chromium", "chromium-browser") if (path := shutil.which(name))), None)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None, reason="no system Chromium: run `./install.sh --dev` (Debian package chromium)"
    ),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    db = ingest_fixture(folder)
    out = folder / "report.html"
    result = runner.invoke(app, ["report", str(folder / "pdfs" / MANUAL), "--db", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    from storage import load_chunks, open_database

    with open_database(str(db), create=False) as database:
        chunks = load_chunks(database, str(folder / "pdfs" / MANUAL))
    return out, chunks


def test_report_in_chromium(report, tmp_path_factory):
    out, chunks = report
    children = [chunk.index for chunk in chunks if chunk.kind == "child"]
    piece = next(chunk.index for chunk in chunks if chunk.metadata.get("table_rows"))
    prose = next(chunk.index for chunk in chunks if chunk.kind == "child" and chunk.element_types == ["paragraph"])
    errors, outside = [], []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1366, "height": 800})
            page.on("console", lambda message: message.type == "error" and errors.append(message.text))
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on(
                "request", lambda request: request.url.startswith(("file:", "data:")) or outside.append(request.url)
            )
            page.goto(out.as_uri())
            page.wait_for_load_state("load")
            listed = [int(n) for n in page.eval_on_selector_all(".chunk", "cards => cards.map(c => c.dataset.chunk)")]
            assert listed == children
            for chosen in (piece, prose):
                page.click(f"#chunk-{chosen}")
                shown = page.eval_on_selector_all(
                    ".cbox",
                    "boxes => boxes.filter(b => getComputedStyle(b).display !== 'none').map(b => b.dataset.chunk)",
                )
                assert shown and set(shown) == {str(chosen)}
                assert len(shown) == page.locator(f'.cbox[data-chunk="{chosen}"]').count()
                assert page.eval_on_selector_all(".chunk.on", "cards => cards.map(c => c.dataset.chunk)") == [
                    str(chosen)
                ]
            folder = Path(os.environ.get("INGEST_ARTEFACTS") or tmp_path_factory.mktemp("artefacts"))
            folder.mkdir(parents=True, exist_ok=True)
            shot = folder / "report.png"
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 10_000
        finally:
            browser.close()
    assert errors == [] and outside == []
