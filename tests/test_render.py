"""`ingest render` and `ingest report` without a browser: pixels inside the stored boxes, chunk
labels, page sizes at a dpi, the report's structure, and the usual errors for bad input."""

from __future__ import annotations

import re
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import FIXTURES
from typer.testing import CliRunner

from ingest import api
from ingest.cli import EXIT_NOT_FOUND, EXIT_USAGE, app
from ingest.contracts.elements import ElementType
from ingest.views.geometry import (
    Fragment,
    element_to_parts,
    fragments_to_outlines,
    page_spec_to_numbers,
    table_to_row_bands,
)
from ingest.views.render import CHUNK_COLOURS, FILL_ALPHA, TYPE_COLOURS

sys.path.insert(0, str(Path(__file__).parent))
from test_pipeline import make_pdf  # noqa: E402

runner = CliRunner()
#: The fixture with titles at three levels, lists and a 17-row table split into three pieces.
MANUAL = "crop_manual.pdf"


def ingest_fixture(folder: Path, name: str = MANUAL) -> Path:
    """A database holding one fixture PDF (copied, so its path is the test's own), text layer only."""
    (folder / "pdfs").mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / name, folder / "pdfs" / name)
    db = folder / "render.db"
    result = runner.invoke(
        app, ["run", str(folder / "pdfs"), "--db", str(db), "--workers", "0", "--ocr", "never", "-q"]
    )
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return ingest_fixture(tmp_path_factory.mktemp("render"))


@pytest.fixture(scope="module")
def doc(db) -> str:
    """The fixture's source path: how `ingest render PATH` names it."""
    return str(db.parent / "pdfs" / MANUAL)


@pytest.fixture(scope="module")
def stored(db, doc):
    from storage import load_chunks, load_document, open_database

    with open_database(str(db), create=False) as database:
        return load_document(database, doc), load_chunks(database, doc)


def blended(colour: tuple[int, int, int], alpha: int) -> tuple[int, ...]:
    return tuple(round(c * alpha / 255 + 255 * (1 - alpha / 255)) for c in colour)


def test_page_specs():
    assert page_spec_to_numbers(None, 3) == [1, 2, 3]
    assert page_spec_to_numbers("3, 1-2,2", 5) == [1, 2, 3]
    for bad in ("0", "6", "2-9", "a", "3-1"):
        with pytest.raises(ValueError):
            page_spec_to_numbers(bad, 5)


def test_touching_fragments_merge_and_distant_ones_do_not():
    rows = [Fragment(1, (0, 0, 10, 10)), Fragment(1, (0, 10, 12, 20)), Fragment(1, (0, 200, 10, 210))]
    assert fragments_to_outlines(rows) == [Fragment(1, (0, 0, 12, 20)), Fragment(1, (0, 200, 10, 210))]
    assert len(fragments_to_outlines([Fragment(1, (0, 0, 1, 1)), Fragment(2, (0, 1, 1, 2))])) == 2


@pytest.mark.slow
@pytest.mark.parametrize("dpi", [72, 150])
def test_page_size_follows_the_dpi(db, doc, stored, dpi):
    document, _ = stored
    [page] = api.render(str(db), doc, pages="2", dpi=dpi)
    info = document.pages[1]
    assert page.page_size == (round(info.width * dpi / 72), round(info.height * dpi / 72))
    assert page.image.width == page.page_size[0] and page.image.height > page.page_size[1]  # the legend strip


@pytest.mark.slow
def test_each_element_box_is_filled_with_its_type_colour(db, doc, stored):
    document, _ = stored
    dpi = 100
    pages = api.render(str(db), doc, what="elements", dpi=dpi)
    scale = dpi / 72
    checked = Counter()
    for page in pages:
        pixels = page.image.load()
        for element in document.elements:
            for part in element_to_parts(element):
                if part.page != page.page_no or element.type is ElementType.table:
                    continue  # tables: grid lines and shaded header rows; checked below
                x0, top, x1, bottom = (round(v * scale) for v in part.rect)
                inside = [pixels[x, y] for x in range(x0 + 3, x1 - 3) for y in range(top + 3, bottom - 3)]
                if len(inside) < 50:
                    continue
                colour, _ = Counter(inside).most_common(1)[0]
                expected = blended(TYPE_COLOURS[element.type], FILL_ALPHA)
                assert max(abs(a - b) for a, b in zip(colour, expected)) <= 3, (element.type, element.text[:30])
                checked[element.type] += 1
    assert {ElementType.title, ElementType.paragraph, ElementType.list_item} <= set(checked)


@pytest.mark.slow
def test_every_child_chunk_gets_a_numbered_label_on_each_of_its_pages(db, doc, stored):
    document, chunks = stored
    pages = api.render(str(db), doc, what="chunks")
    drawn = {page.page_no: sorted(index for index, _ in page.chunk_labels) for page in pages}

    def pages_of(chunk, index):
        element = document.elements[index]
        if index == chunk.metadata.get("table_element"):  # a table piece: the pages of its rows
            bands = table_to_row_bands(element)[element.header_rows :]
            return {bands[row].page for row in chunk.metadata["table_rows"]}
        return {part.page for part in element_to_parts(element)}

    expected = {
        page.page_no: sorted(
            chunk.index
            for chunk in chunks
            if chunk.kind == "child" and any(page.page_no in pages_of(chunk, i) for i in chunk.element_indexes)
        )
        for page in pages
    }
    assert drawn == expected
    pieces = [chunk.index for chunk in chunks if "table_rows" in chunk.metadata]
    assert len(pieces) >= 3 and all(any(piece in labels for labels in drawn.values()) for piece in pieces)
    for page in pages:
        pixels = page.image.load()
        for index, (left, _, _, bottom) in page.chunk_labels:
            assert pixels[left + 1, bottom - 1] == CHUNK_COLOURS[index % 2]


@pytest.mark.slow
def test_render_writes_one_png_per_chosen_page(db, doc, tmp_path):
    result = runner.invoke(app, ["render", doc, "--db", str(db), "--pages", "1,3", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert sorted(path.name.split("-")[-1] for path in tmp_path.glob("*.png")) == ["p1.png", "p3.png"]


@pytest.mark.slow
def test_the_report_lists_every_child_chunk_and_loads_nothing_from_outside(db, doc, stored, tmp_path):
    _, chunks = stored
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", doc, "--db", str(db), "--out", str(out), "--dpi", "50"])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    children = [chunk.index for chunk in chunks if chunk.kind == "child"]
    assert [int(n) for n in re.findall(r'<article class="chunk" id="chunk-(\d+)"', page)] == children
    assert page.count('<figure class="page"') == 5
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert page.count("<table>") == len([chunk for chunk in chunks if "table_rows" in chunk.metadata])


@pytest.mark.slow
def test_bad_input_gets_the_usual_errors(db, doc, tmp_path):
    unknown = runner.invoke(app, ["render", "nosuchdoc", "--db", str(db)])
    assert unknown.exit_code == EXIT_NOT_FOUND and "no document" in unknown.output
    outside = runner.invoke(app, ["render", doc, "--db", str(db), "--pages", "2,9"])
    assert outside.exit_code == EXIT_USAGE and "page 9 is out of range" in outside.output
    missing = runner.invoke(app, ["report", "nosuchdoc", "--db", str(db)])
    assert missing.exit_code == EXIT_NOT_FOUND


def test_a_removed_document_is_refused_with_its_reason(tmp_path):
    pdf = make_pdf(tmp_path / "pdfs" / "gone.pdf", "Gone", ["Soon removed."])
    db = tmp_path / "g.db"
    for _ in range(2):
        done = runner.invoke(
            app, ["run", str(tmp_path / "pdfs"), "--db", str(db), "--workers", "0", "--ocr", "never", "-q"]
        )
        assert done.exit_code == 0, done.output
        pdf.unlink(missing_ok=True)
    for command in ("render", "report"):
        result = runner.invoke(app, [command, str(pdf), "--db", str(db)])
        assert result.exit_code == EXIT_NOT_FOUND and "was removed" in result.output, result.output
