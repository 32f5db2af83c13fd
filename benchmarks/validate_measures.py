"""The database measures of `validate.py`, run once per side in a fresh interpreter whose
`PYTHONPATH` is that side's tree (so the side's stored parse and its chunkers are measured with
this file's rules):

    PYTHONPATH=TREE python benchmarks/validate_measures.py --db SET.db --out SET.json \
        [--golden G.jsonl] [--truths fixtures|docling-gt] [--retrievers bm25,plain] \
        [--strategies structure,naive,langchain,fixed,recursive] [--vector-cache FILE]

Writes one JSON object of figures (keys below); a figure the side cannot produce (a strategy or a
retriever its code does not know yet) is written as a string saying why, which the table prints
as `n/a`.

- `chunks.heading_only`: stored child chunks whose body holds nothing but heading text (no body
  at all, or every non-empty line of it is one of the document's headings): a reader retrieving
  it gets a title and no answer. `chunks.short_share`: share of stored child chunks under
  SHORT_CHILD_TOKENS tokens. `chunks.children`: their count.
- `headers.recognised` / `headers.tables`: ground-truth tables with a header (fixtures'
  `*.truth.json` `header` rows; Docling's cells flagged `column_header`) whose matched stored table
  marks as header rows the same words: matched = a stored table on one of the table's pages
  holding at least half of its distinct non-empty cells (the best such); same words = the Jaccard
  similarity of the two word multisets at least HEADER_WORDS_JACCARD.
- `retrieval.<retriever>.<strategy>.hit@4` and `.budget@1200`: `evaluate_documents` (the code of
  `ingest eval`) over the stored documents and the golden set, k = 4, budget 1,200 tokens; the
  peers `naive`, `langchain` and `plain` are this tree's on both sides (`validate_peers.py`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sqlite3
import sys
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
DOCLING_GT = ROOT.parent / "shared" / "bench" / "docling-gt"
#: A child under this many tokens carries about one sentence: too little to answer from.
SHORT_CHILD_TOKENS = 30
#: Header words of the stored table and of the truth must overlap this much (Jaccard of word
#: multisets): a merged or split header cell still counts, a body row taken as header does not.
HEADER_WORDS_JACCARD = 0.8
#: A stored table is the truth's table when it holds at least this share of its distinct cells.
TABLE_CELLS_SHARE = 0.5
HIT_K = 4
BUDGET_TOKENS = 1200


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def words(texts) -> Counter:
    return Counter(word for text in texts for word in normalise(text).split())


def chunk_shape(db: Path) -> dict:
    """Heading-only children and the share of short children, from the stored chunks (raw SQL:
    the same reading for both sides' databases)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    headings: dict[str, set[str]] = {}
    for doc_id, text in connection.execute("select document_id, text from elements where type = 'title'"):
        headings.setdefault(doc_id, set()).add(normalise(text))
    children = heading_only = short = 0
    rows = connection.execute(
        "select document_id, body, heading_path_json, token_count from chunks where kind = 'child'"
    )
    for doc_id, body, path_json, tokens in rows:
        children += 1
        short += tokens < SHORT_CHILD_TOKENS
        known = headings.get(doc_id, set()) | {normalise(h) for h in json.loads(path_json or "[]")}
        lines = [normalise(line) for line in (body or "").splitlines()]
        if all(not line or line in known for line in lines):
            heading_only += 1
    connection.close()
    return {
        "children": children,
        "heading_only": heading_only,
        "short_share": round(short / children, 4) if children else 0.0,
    }


def fixtures_header_truths() -> dict[str, list[dict]]:
    """File stem -> [{pages, header words, cells}] for every fixture table with a header row."""
    found: dict[str, list[dict]] = {}
    for path in sorted(FIXTURES.glob("*.truth.json")):
        truth = json.loads(path.read_text(encoding="utf-8"))
        for table in truth.get("tables") or []:
            header = [cell for row in table.get("header") or [] for cell in row]
            if not header:
                continue
            cells = header + [cell for row in table.get("rows") or [] for cell in row]
            stem = path.name.removesuffix(".truth.json")
            found.setdefault(stem, []).append({"pages": set(table["pages"]), "header": header, "cells": cells})
    return found


def docling_header_truths() -> dict[str, list[dict]]:
    """File stem -> tables of Docling's ground truth with cells flagged `column_header`."""
    found: dict[str, list[dict]] = {}
    for path in sorted(DOCLING_GT.glob("*.json")):
        truth = json.loads(path.read_text(encoding="utf-8"))
        for table in truth.get("tables") or []:
            cells = (table.get("data") or {}).get("table_cells") or []
            header = [cell["text"] for cell in cells if cell.get("column_header")]
            if not header:
                continue
            pages = {prov["page_no"] for prov in table.get("prov") or []}
            found.setdefault(path.stem, []).append(
                {"pages": pages, "header": header, "cells": [cell["text"] for cell in cells]}
            )
    return found


def header_recognition(documents: dict, truths: dict[str, list[dict]]) -> dict:
    """Truth tables with a header, and those whose matched stored table has the same header words."""
    by_stem = {Path(document.source_path).stem: document for document in documents.values()}
    total = recognised = 0
    for stem, tables in truths.items():
        document = by_stem.get(stem)
        for truth in tables:
            total += 1
            if document is None:
                continue
            wanted = {normalise(cell) for cell in truth["cells"] if normalise(cell)}
            best, best_share = None, 0.0
            for element in document.elements:
                if element.type != "table" or not element.rows:
                    continue
                if not set(range(element.page, element.last_page + 1)) & truth["pages"]:
                    continue
                held = {normalise(cell) for row in element.rows for cell in row}
                share = len(wanted & held) / len(wanted) if wanted else 0.0
                if share > best_share:
                    best, best_share = element, share
            if best is None or best_share < TABLE_CELLS_SHARE:
                continue
            predicted = words(cell for row in best.rows[: best.header_rows] for cell in row)
            expected = words(truth["header"])
            union = sum((predicted | expected).values())
            if union and sum((predicted & expected).values()) / union >= HEADER_WORDS_JACCARD:
                recognised += 1
    return {"tables": total, "recognised": recognised}


def retrieval(db: Path, golden: Path, retrievers: list[str], strategies: list[str], cache: Path | None) -> dict:
    """hit@4 and budget@1200 per retriever and strategy, with the side's `ingest eval` code; the
    peers (`naive`, `langchain`, `plain`) are this tree's on both sides (`validate_peers.py`)."""
    from typing import get_args

    from validate_peers import PEER_STRATEGIES, evaluate

    from ingest.chunking.settings import ChunkSettings
    from ingest.contracts.errors import ConfigError
    from ingest.contracts.evaluation import load_golden
    from ingest.evaluation import evaluate as evaluation
    from storage.evals import load_stored_documents, stored_fts_tokenize
    from storage.schema import FTS_TOKENIZE

    known = set(get_args(ChunkSettings.model_fields["strategy"].annotation)) | set(PEER_STRATEGIES)
    missing = {name: "the side's code has no such strategy" for name in strategies if name not in known}
    if "langchain" in strategies and importlib.util.find_spec("langchain_text_splitters") is None:
        missing["langchain"] = "langchain-text-splitters is not installed"
    documents = load_stored_documents(db)
    items = load_golden(golden)
    options = {
        "ks": (HIT_K,),
        "budget_tokens": BUDGET_TOKENS,
        "fts_tokenize": stored_fts_tokenize(db, default=FTS_TOKENIZE),
        "golden_path": str(golden),
    }
    figures: dict = {}
    for retriever in retrievers:
        row = figures.setdefault(retriever, {})
        embed = evaluation._database_embedder(db, None, cache) if retriever in ("vector", "hybrid") else None
        for strategy in strategies:
            if strategy in missing:
                row[strategy] = missing[strategy]
                continue
            try:
                result = evaluate(evaluation, documents, items, strategy, retriever, embed_texts=embed, **options)
            except ConfigError as error:
                row[strategy] = f"not measurable: {error}"
                continue
            row[strategy] = {
                f"hit@{HIT_K}": result.overall.hit_at_k[HIT_K],
                f"budget@{BUDGET_TOKENS}": result.overall.budget_hit,
                "questions": result.overall.questions,
                "chunks": result.chunk_count,
            }
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--golden", type=Path, default=None)
    parser.add_argument("--truths", choices=["fixtures", "docling-gt"], default=None)
    parser.add_argument("--retrievers", default="bm25,plain")
    parser.add_argument("--strategies", default="structure,naive,langchain,fixed,recursive")
    parser.add_argument("--vector-cache", type=Path, default=None)
    args = parser.parse_args(argv)
    out: dict = {"chunks": chunk_shape(args.db)}
    if args.truths:
        from storage.evals import load_stored_documents

        truths = fixtures_header_truths() if args.truths == "fixtures" else docling_header_truths()
        out["headers"] = header_recognition(load_stored_documents(args.db), truths)
    if args.golden:
        out["retrieval"] = retrieval(
            args.db, args.golden, args.retrievers.split(","), args.strategies.split(","), args.vector_cache
        )
    args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
