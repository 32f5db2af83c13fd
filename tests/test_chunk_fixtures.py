"""Fixture tests: the mission's guarantee on the generated PDFs' ground truth and on parse_pdf output.

The dose table of `fixtures/crop_manual.pdf` (Table 2, under Cotton Crop Manual / Pest
Management / Sucking Pests) must never lose the link between "Whitefly" and
"2 ml per litre": whatever the child size, the dose reaches the reader in the same
chunk as its row label, the table header naming the columns, and the heading path.

Documents are built twice: from the fixture's truth JSON (proves the chunker alone,
independent of the parser) and through `parse_pdf` (proves the pipeline's real input).
"""

from __future__ import annotations

import json

import pytest
from conftest import CORPUS, FIXTURES

from ingest.chunker import chunk_document
from ingest.chunking.checks import chunk_violations
from ingest.chunking.prose import sentence_boundaries
from ingest.chunking.sections import document_to_sections
from ingest.chunking.settings import ChunkSettings
from ingest.contracts.elements import Document, Element, table_rows_to_text
from ingest.tokens import tiktoken_counter

CL100K = tiktoken_counter("cl100k_base")
DOSE_PATH = "Cotton Crop Manual / Pest Management / Sucking Pests"
SIZES = [24, 32, 40, 48, 64, 96, 150, 300, 1000]


def truth(name: str) -> dict:
    path = FIXTURES / f"{name}.truth.json"
    if not path.exists():
        pytest.skip(f"{path} missing: run `python fixtures/generate.py`")
    return json.loads(path.read_text(encoding="utf-8"))


def truth_to_document(data: dict) -> Document:
    """The elements a correct parser returns, from the truth's blocks, with page furniture
    (running header at each page start, page footer at each page end) interleaved."""
    furniture = data.get("furniture", [])
    elements: list[Element] = []
    page = 0
    for block in data["blocks"]:
        while block["page"] > page:
            if page and len(furniture) > page:
                elements.append(Element(type="footer", text=furniture[page], page=page))
            page += 1
            if furniture:
                elements.append(Element(type="header", text=furniture[0], page=page))
        kind = block["type"]
        if kind in ("title", "heading"):
            elements.append(Element(type="title", text=block["text"], page=page, heading_level=block["level"] + 1))
        elif kind == "table":
            rows = block["header"] + block["rows"]
            pages = block.get("pages") or [page]
            elements.append(
                Element(
                    type="table",
                    text=table_rows_to_text(rows),
                    rows=rows,
                    page=pages[0],
                    page_end=pages[-1],
                    header_rows=len(block["header"]),
                    caption=block.get("caption"),
                )
            )
        elif kind == "list_item":
            elements.append(Element(type="list_item", text=block["text"], page=page, list_level=0))
        else:
            elements.append(Element(type=kind, text=block["text"], page=page))
    if len(furniture) > page:
        elements.append(Element(type="footer", text=furniture[page], page=page))
    return Document(
        source_path=data["file"],
        content_sha256="0" * 64,
        size_bytes=1,
        page_count=data["pages"],
        title=data["title"],
        elements=elements,
    )


def markdown_rows(body: str) -> list[dict[str, str]]:
    """Each table row of a chunk body as {header cell: value}, read with the header above it."""
    lines = body.split("\n")
    rows = []
    for position, line in enumerate(lines):
        if line.startswith("| ---") and position > 0:
            header = _cells(lines[position - 1])
            for row_line in lines[position + 1 :]:
                if not row_line.startswith("| "):
                    break
                rows.append(dict(zip(header, _cells(row_line))))
    return rows


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def assert_dose_guarantee(document: Document, child_max: int) -> None:
    config = ChunkSettings(
        child_max_tokens=child_max, overlap_tokens=min(50, child_max // 4), parent_max_tokens=max(child_max, 1200)
    )
    chunks = chunk_document(document, config, CL100K)
    assert chunk_violations(document, chunks, config, CL100K) == []
    children = [c for c in chunks if c.kind == "child"]
    found = [
        c
        for c in children
        for row in markdown_rows(c.body)
        if row.get("Pest") == "Whitefly" and row.get("Dose per litre of water") == "2 ml per litre"
    ]
    assert found, f"no child at {child_max} tokens reads Whitefly -> 2 ml per litre under the header"
    for chunk in found:
        if chunk.metadata.get("heading_path_truncated"):  # tiny sizes: the nearest headings stay
            path = " / ".join(chunk.heading_path)
            assert DOSE_PATH.endswith(" / " + path) and path.endswith("Sucking Pests")
            assert chunk.text.startswith(path + "\n\n")
        else:
            assert _headings_before_row(chunk) == DOSE_PATH.split(" / ")
        if "table_columns" not in chunk.metadata:  # whole rows carry the caption too
            assert "Table 2: Recommended insecticides for sucking pests of cotton" in chunk.body
    for chunk in children:
        for line in chunk.body.split("\n"):
            if "2 ml per litre" in line and line.startswith("| "):
                readings = [row for row in markdown_rows(chunk.body) if "2 ml per litre" in row.values()]
                assert readings and all(row.get("Pest") in {"Whitefly", "Thrips"} for row in readings), (
                    f"a dose row without its pest at {child_max} tokens: {line!r}"
                )


def _headings_before_row(chunk) -> list[str]:
    """The headings a reader sees above the whitefly row: the heading path, then the
    sub-headings of a merged section that are body lines before the row."""
    before_row = chunk.body[: chunk.body.index("| Whitefly |")]
    lines = [line for line in before_row.split("\n\n") if line in DOSE_PATH.split(" / ")]
    return chunk.heading_path + lines


@pytest.mark.parametrize("child_max", SIZES)
def test_whitefly_dose_stays_with_header_and_path_from_truth(child_max):
    assert_dose_guarantee(truth_to_document(truth("crop_manual")), child_max)


def test_truth_document_is_what_the_fixture_describes():
    """Guard the builder above: the dose table is a real table element with its header row."""
    document = truth_to_document(truth("crop_manual"))
    tables = [e for e in document.elements if e.type.value == "table"]
    assert any(
        t.rows[0][0] == "Pest" and t.header_rows == 1 and ["Whitefly", "Pyriproxyfen 10 EC"] == t.rows[2][:2]
        for t in tables
    )


def test_every_truth_block_reaches_a_chunk():
    data = truth("crop_manual")
    document = truth_to_document(data)
    chunks = chunk_document(document, None, CL100K)
    text = "\n".join(c.text for c in chunks if c.kind == "child")
    for paragraph in data["paragraphs"]:
        assert paragraph in text
    assert not any(f in c.text for c in chunks for f in data["furniture"])


def _hindi_settings(document: Document) -> ChunkSettings:
    """A child size that forces every long Hindi paragraph to split, but fits its longest sentence."""
    canonical = document.canonical_text()
    spans = [s for s, e in zip(document.body_spans(), document.elements) if s and e.type.value == "paragraph"]
    longest = 0
    for start, end in spans:
        cuts = [start] + sentence_boundaries(canonical, start, end) + [end]
        longest = max(longest, max(CL100K.count(canonical[a:b].strip()) for a, b in zip(cuts, cuts[1:])))
    deepest = max(CL100K.count(" / ".join(s.heading_path)) + 1 for s in document_to_sections(document))
    child = longest + deepest + 2 * 20 + 4
    assert any(CL100K.count(canonical[s:e]) > child for s, e in spans), "fixture too small to force a split"
    return ChunkSettings(child_max_tokens=child, overlap_tokens=20, parent_max_tokens=max(child, 1200))


def assert_split_at_dandas(document: Document) -> None:
    config = _hindi_settings(document)
    chunks = chunk_document(document, config, CL100K)
    assert chunk_violations(document, chunks, config, CL100K) == []
    prose = [c for c in chunks if c.kind == "child" and c.element_types == ["paragraph"]]
    assert len(prose) > len({c.element_indexes[0] for c in prose}), "no paragraph was split"
    for chunk in prose:
        assert chunk.body.rstrip()[-1] in "।॥:", f"cut inside a sentence: {chunk.body[-30:]!r}"


def test_hindi_notice_splits_at_danda_from_truth():
    assert_split_at_dandas(truth_to_document(truth("scheme_notice_hi")))


# --- through the parser -------------------------------------------------------------------


@pytest.fixture(scope="module")
def parsed_crop_manual() -> Document:
    from parsers.pdf import parse_pdf

    path = FIXTURES / "crop_manual.pdf"
    if not path.exists():
        pytest.skip(f"{path} missing: run `python fixtures/generate.py`")
    return parse_pdf(path, None)


@pytest.mark.slow
@pytest.mark.parametrize("child_max", SIZES)
def test_whitefly_dose_stays_with_header_and_path_from_parse_pdf(parsed_crop_manual, child_max):
    assert any(e.type.value == "table" and e.rows and "Whitefly" in e.text for e in parsed_crop_manual.elements), (
        "parse_pdf found no dose table in crop_manual.pdf"
    )
    assert_dose_guarantee(parsed_crop_manual, child_max)


@pytest.mark.slow
def test_hindi_notice_splits_at_danda_from_parse_pdf():
    from parsers.pdf import parse_pdf

    path = FIXTURES / "scheme_notice_hi.pdf"
    if not path.exists():
        pytest.skip(f"{path} missing: run `python fixtures/generate.py`")
    assert_split_at_dandas(parse_pdf(path, None))


# --- real PDFs from the shared corpus --------------------------------------------------------


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "normal_4pages.pdf",
        "reliance.pdf",
        "word365_structure.pdf",
        "cupertino_usd_4-6-16.pdf",
        "pr-136-example.pdf",
        "la-precinct-bulletin-2014-p1.pdf",
    ],
)
def test_invariants_hold_on_corpus_documents(name):
    """Documents nobody on this project designed: every invariant, at the default and a small size."""
    from parsers.pdf import parse_pdf

    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"shared corpus not found at {CORPUS} (a fresh clone has none)")
    document = parse_pdf(path, None)
    for config in (ChunkSettings(), ChunkSettings(child_max_tokens=64, overlap_tokens=16, parent_max_tokens=256)):
        chunks = chunk_document(document, config, CL100K)
        assert chunks, f"{name}: no chunks"
        assert chunk_violations(document, chunks, config, CL100K) == []
