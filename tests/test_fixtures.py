"""The committed fixtures themselves: they exist, open, match their truth, and regenerate identically.

These test the fixture set, not the parser: a parser test failing on a fixture should be able to
trust that the truth file describes what is really in the PDF.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from pathlib import Path

import pdfplumber
import pytest
from conftest import FIXTURES, non_empty

SPECS = non_empty(sorted((FIXTURES / "source").glob("*.json")), "fixture specs")
NAMES = [json.loads(p.read_text(encoding="utf-8"))["file"] for p in SPECS]
FONTS = [
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf"),
]
CID = re.compile(r"\(cid:\d+\)")
PUNCT = "।॥,.:;()\"'"


def load_truth(name: str) -> dict:
    return json.loads((FIXTURES / name).with_suffix(".truth.json").read_text(encoding="utf-8"))


def load_generator():
    if not all(f.exists() for f in FONTS):
        pytest.skip("generator fonts (fonts-dejavu-core, fonts-noto-core) not installed")
    pytest.importorskip("fpdf")
    pytest.importorskip("uharfbuzz")
    spec = importlib.util.spec_from_file_location("fixtures_generate", FIXTURES / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page_words(page) -> Counter:
    """Whitespace words of a page's text layer, with fpdf2's unmapped Devanagari glyphs
    (`(cid:N)`) dropped and hyphenated line breaks rejoined, punctuation stripped."""
    text = CID.sub("", page.extract_text() or "")
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)
    return Counter(w.strip(PUNCT) for w in text.split() if w.strip(PUNCT))


def words(text: str) -> Counter:
    return Counter(w.strip(PUNCT) for w in text.split() if w.strip(PUNCT))


def recall(expected: Counter, found: Counter) -> float:
    return sum((expected & found).values()) / max(1, sum(expected.values()))


@pytest.fixture(scope="module")
def opened():
    docs = {name: pdfplumber.open(FIXTURES / name) for name in NAMES}
    yield docs
    for doc in docs.values():
        doc.close()


def test_specs_exist_and_name_distinct_pdfs():
    assert len(NAMES) >= 8
    assert len(set(NAMES)) == len(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_pdf_and_truth_exist_and_page_count_matches(name, opened):
    truth = load_truth(name)
    assert truth["file"] == name
    assert len(opened[name].pages) == truth["pages"]


@pytest.mark.parametrize("name", NAMES)
def test_scanned_pages_have_no_text_layer_and_one_full_page_image(name, opened):
    truth = load_truth(name)
    for page_no in truth["scanned_pages"]:
        page = opened[name].pages[page_no - 1]
        assert page.chars == []
        assert len(page.images) == 1
        image = page.images[0]
        assert image["width"] >= page.width - 1 and image["height"] >= page.height - 1


@pytest.mark.parametrize("name", NAMES)
def test_every_body_block_is_in_the_text_layer_of_its_page(name, opened):
    """Words of each heading, paragraph, list item and table of a non-scanned page are on that
    page (tables: on one of their pages). Devanagari tolerates fpdf2's few split clusters."""
    truth = load_truth(name)
    doc = opened[name]
    threshold = 1.0 if truth["language"] == "en" else 0.8
    cache: dict[int, Counter] = {}
    for block in truth["blocks"]:
        if block["page"] in truth["scanned_pages"]:
            continue
        pages = block.get("pages") or [block["page"]]
        found = Counter()
        for page_no in pages:
            if page_no not in cache:
                cache[page_no] = page_words(doc.pages[page_no - 1])
            found += cache[page_no]
        cells = block["text"].replace(" | ", " ")
        assert recall(words(cells), found) >= threshold, (name, block["type"], block["text"][:60])


@pytest.mark.parametrize("name", NAMES)
def test_whole_text_layer_recall(name, opened):
    truth = load_truth(name)
    text_pages = [p for p in range(1, truth["pages"] + 1) if p not in truth["scanned_pages"]]
    expected = words("\n".join(b["text"].replace(" | ", " ") for b in truth["blocks"] if b["page"] in text_pages))
    found = Counter()
    for page_no in text_pages:
        found += page_words(opened[name].pages[page_no - 1])
    if expected:
        assert recall(expected, found) >= (1.0 if truth["language"] == "en" else 0.97)


@pytest.mark.parametrize("name", NAMES)
def test_furniture_is_on_every_text_page(name, opened):
    """The running header and the page's own footer (e.g. "Page 2 of 5") are on every text page."""
    truth = load_truth(name)
    assert [f["page"] for f in truth["furniture_by_page"]] == list(range(1, truth["pages"] + 1))
    for entry in truth["furniture_by_page"]:
        if entry["page"] in truth["scanned_pages"]:
            continue
        text = " ".join(CID.sub("", opened[name].pages[entry["page"] - 1].extract_text()).split())
        for furniture in (entry["header"], entry["footer"]):
            if furniture:
                assert furniture in text, (name, entry["page"], furniture)
                assert furniture in truth["furniture"]


def test_ruled_tables_are_found_by_pdfplumber_with_the_truth_cells(opened):
    """Each ruled table on a text page is recovered cell for cell by pdfplumber's lattice
    finder; a continued table shows its header again on every page."""
    checked = 0
    for name in NAMES:
        truth = load_truth(name)
        for table in truth["tables"]:
            if not table["ruled"] or set(table["pages"]) & set(truth["scanned_pages"]):
                continue
            found_rows: list[list[str]] = []
            for page_no in table["pages"]:
                page = opened[name].pages[page_no - 1]
                for found in page.extract_tables():
                    cleaned = [[" ".join((c or "").split()) for c in row] for row in found]
                    if cleaned and cleaned[0] == table["header"][0]:
                        found_rows += cleaned[1:]
                        break
                else:
                    pytest.fail(f"{name} p{page_no}: no ruled table with header {table['header'][0]}")
            assert found_rows == table["rows"], name
            checked += 1
    assert checked >= 2


def test_unruled_table_has_no_lines_or_rects(opened):
    for name in NAMES:
        truth = load_truth(name)
        for table in truth["tables"]:
            if table["ruled"]:
                continue
            for page_no in table["pages"]:
                page = opened[name].pages[page_no - 1]
                assert page.lines == [] and page.rects == [], name


def test_the_set_covers_every_case_the_issue_lists():
    truths = [load_truth(name) for name in NAMES]
    english_text = [t for t in truths if t["language"] == "en" and len(t["scanned_pages"]) < t["pages"]]
    assert any({1, 2, 3} <= {h["level"] for h in t["headings"]} for t in truths)
    tables = [tb for t in truths for tb in t["tables"]]
    assert any(tb["ruled"] for tb in tables) and any(not tb["ruled"] for tb in tables)
    assert any(len(tb["pages"]) > 1 and tb["header_repeated"] for tb in tables)
    lists = [(t, lst) for t in english_text for lst in t["lists"]]
    for ordered in (True, False):
        wrapped = [
            b
            for t in english_text
            for b in t["blocks"]
            if b["type"] == "list_item" and b["ordered"] is ordered and b["lines"] >= 2
        ]
        assert wrapped, f"no wrapped {'ordered' if ordered else 'bullet'} list item"
    assert any(lst["lead_in"] == "Documents needed:" for _, lst in lists)
    assert any(t["hyphenated"] for t in english_text)
    two_col = load_truth("two_column.pdf")
    assert two_col["reading_order"][2:4] == ["Sowing Window", "Sow soybean only"]
    assert any(t["furniture"] and any("Page" in f for f in t["furniture"]) for t in truths)
    assert any(t["scanned_pages"] == list(range(1, t["pages"] + 1)) and t["language"] == "en" for t in truths)
    assert any(t["scanned_pages"] == list(range(1, t["pages"] + 1)) and t["language"] in ("hi", "mr") for t in truths)
    devanagari_text = [t for t in truths if t["language"] in ("hi", "mr") and not t["scanned_pages"]]
    assert any("।" in t["text"] and "॥" in t["text"] for t in devanagari_text)
    assert any(
        0 < len(t["scanned_pages"]) < t["pages"]
        and 1 not in t["scanned_pages"]
        and t["pages"] not in t["scanned_pages"]
        for t in truths
    )
    dose = [tb for tb in tables if tb["heading_path"] == ["Cotton Crop Manual", "Pest Management", "Sucking Pests"]]
    assert dose and {"Whitefly", "Aphids", "Jassids", "Thrips"} <= {row[0] for row in dose[0]["rows"]}


def test_truth_text_is_nfc_and_free_of_markup():
    import unicodedata

    for name in NAMES:
        text = load_truth(name)["text"]
        assert unicodedata.normalize("NFC", text) == text, name
        assert "~" not in text and "(cid:" not in text, name


def test_fixture_folder_is_small_enough_to_bundle():
    total = sum(p.stat().st_size for p in FIXTURES.glob("*.pdf"))
    assert total < 1_500_000


@pytest.mark.slow
def test_generation_is_deterministic(tmp_path):
    generator = load_generator()
    first = generator.generate(tmp_path / "a")
    generator.generate(tmp_path / "b")
    for pdf in first:
        for path in (pdf, pdf.with_suffix(".truth.json")):
            assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name


@pytest.mark.slow
def test_committed_truth_matches_a_fresh_generation(tmp_path):
    """The committed truth files are what the specs generate today (run
    `python fixtures/generate.py` after editing a spec)."""
    generator = load_generator()
    for pdf in generator.generate(tmp_path):
        truth = pdf.with_suffix(".truth.json")
        assert json.loads(truth.read_text(encoding="utf-8")) == load_truth(pdf.name), (
            f"{pdf.name} is stale: run python fixtures/generate.py"
        )
