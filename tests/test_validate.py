"""benchmarks/validate.py's fixed corpus split and its table, and validate_measures.py's rules
(heading-only children, header recognition) on hand-built inputs.

benchmarks/ is not a package, so the modules are loaded from their file paths.
"""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


validate = load("validate")
measures = load("validate_measures")


def test_corpus_split_is_even_positions_dev_odd_positions_validation():
    dev, val = validate.corpus_halves()
    if not dev:  # the shared corpus is outside the repository
        return
    assert [path.stem for path in dev] == [
        "150109DSP-Milw-505-90D",
        "DA-619p",
        "code_and_formula",
        "embedded-images-tables",
        "la-precinct-bulletin-2014-p1",
        "normal_4pages",
        "pr-136-example",
        "scotus-transcript-p1",
        "word365_structure",
    ]
    assert len(val) == 8 and not {path.stem for path in dev} & {path.stem for path in val}


def test_golden_lines_are_split_by_their_document(tmp_path):
    source = tmp_path / "golden.jsonl"
    lines = [{"question": "a", "doc": "one.pdf"}, {"question": "b", "doc": "two.pdf"}, {"question": "c", "doc": "one"}]
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    kept = validate.golden_for([Path("/x/one.pdf")], source, tmp_path / "out.jsonl")
    assert [json.loads(line)["question"] for line in kept.read_text().splitlines()] == ["a", "c"]
    assert validate.golden_for([Path("/x/three.pdf")], source, tmp_path / "none.jsonl") is None


def test_a_worse_validation_figure_is_marked_and_direction_is_respected():
    sets = [validate.PdfSet("financebench-val", "val", []), validate.PdfSet("financebench-dev", "dev", [])]
    before = {
        ("hit@4 bm25 structure ^", "financebench-val"): 0.5,
        ("hit@4 bm25 structure ^", "financebench-dev"): 0.5,
        ("chunks: heading-only children v", "financebench-val"): 3,
        ("hit@4 plain naive ^", "financebench-val"): "the side's code has no such strategy",
    }
    after = {
        ("hit@4 bm25 structure ^", "financebench-val"): 0.45,
        ("hit@4 bm25 structure ^", "financebench-dev"): 0.4,
        ("chunks: heading-only children v", "financebench-val"): 1,
        ("hit@4 plain naive ^", "financebench-val"): 0.3,
    }
    rows = validate.figures_to_table(before, after, sets).splitlines()[2:]
    assert rows[0].endswith("| 0.5 | 0.45 | -0.05 | **WORSE (val)** |")
    assert rows[1].endswith("| -0.1 | worse |")
    assert rows[2].endswith("| 3 | 1 | -2 | better |")
    assert rows[3].endswith("| n/a | 0.3 |  |  |")


def test_heading_only_children_and_short_share_from_stored_chunks(tmp_path):
    db = tmp_path / "x.db"
    connection = sqlite3.connect(db)
    connection.execute("create table elements (document_id text, type text, text text)")
    connection.execute(
        "create table chunks (document_id text, kind text, body text, heading_path_json text, token_count int)"
    )
    connection.executemany("insert into elements values (?, ?, ?)", [("d", "title", "Results of Operations")])
    rows = [
        ("d", "child", "Results of Operations", "[]", 4),  # a heading alone: no answer in it
        ("d", "child", "", '["Liquidity"]', 1),  # no body at all
        ("d", "child", "Net sales rose 4 percent.\n" * 10, '["Results of Operations"]', 60),
        ("d", "parent", "", "[]", 0),  # parents are not indexed units
    ]
    connection.executemany("insert into chunks values (?, ?, ?, ?, ?)", rows)
    connection.commit()
    connection.close()
    assert measures.chunk_shape(db) == {"children": 3, "heading_only": 2, "short_share": round(2 / 3, 4)}


def test_a_header_counts_when_the_matched_table_marks_the_same_words():
    from ingest.contracts.elements import Document, Element, ElementType, table_rows_to_text

    rows = [["Crop", "MSP 2024-25"], ["Paddy", "2300"], ["Jowar", "3371"]]

    def document(header_rows: int) -> dict:
        table = Element(
            type=ElementType.table, text=table_rows_to_text(rows), page=1, rows=rows, header_rows=header_rows
        )
        doc = Document(source_path="/f/msp.pdf", content_sha256="0" * 64, size_bytes=1, page_count=1, elements=[table])
        return {"d": doc}

    truths = {"msp": [{"pages": {1}, "header": ["Crop", "MSP 2024-25"], "cells": [c for r in rows for c in r]}]}
    assert measures.header_recognition(document(1), truths) == {"tables": 1, "recognised": 1}
    assert measures.header_recognition(document(0), truths) == {"tables": 1, "recognised": 0}
    assert measures.header_recognition(document(2), truths) == {"tables": 1, "recognised": 0}


def test_the_peers_run_inside_a_sides_eval_code_score_as_the_native_ones():
    sys.path.insert(0, str(BENCH))
    peers = load("validate_peers")
    from ingest.contracts.elements import Document, Element, ElementType
    from ingest.contracts.evaluation import GoldenItem
    from ingest.evaluation import evaluate as evaluation
    from ingest.tokens import WhitespaceCounter

    words = " ".join(f"word{n}" for n in range(900))
    elements = [
        Element(type=ElementType.title, text="Seed treatment", page=1, heading_level=1),
        Element(type=ElementType.paragraph, text=words, page=1),
        Element(type=ElementType.paragraph, text="Treat seed with Thiram 2 g per kg before sowing.", page=2),
    ]
    document = Document(source_path="/d/s.pdf", content_sha256="0" * 64, size_bytes=1, page_count=2, elements=elements)
    items = [
        GoldenItem(line=1, question="how much thiram per kg of seed", must_contain=["Thiram 2 g per kg"]),
        GoldenItem(line=2, question="word450 word451", must_contain=["word450 word451"]),
    ]
    options = {"ks": (1,), "counter": WhitespaceCounter()}
    for strategy in ("structure", "naive", "langchain"):
        for retriever in ("bm25", "plain"):
            native = evaluation.evaluate_documents(
                {"d": document}, items, strategies=[strategy], retriever=retriever, **options
            ).strategies[0]
            peer = peers.evaluate(evaluation, {"d": document}, items, strategy, retriever, **options)
            assert peer.chunk_count == native.chunk_count
            assert [q.child_rank for q in peer.questions] == [q.child_rank for q in native.questions]
    assert evaluation.chunk_document is not None and evaluation.ranked_keys.__module__ == "ingest.evaluation.vectors"
