"""Does indexing the document's name help questions asked without `--doc`? Measured, not assumed.

    python benchmarks/title_eval.py GOLDEN --db DB [--strategies structure,recursive,fixed]

For each strategy (default chunk settings) the children of every stored document are indexed
three ways: bm25 over (heading path, body) alone; with the document's name (file stem words and
stored title, e.g. "VERIZON 2021 10K") added in front of the heading path, which is what a
third FTS column would add; and with `ingest search`'s document-name boost
(`storage.search.name_matches`). Every question is then searched
over ALL documents (its `doc` is not used to restrict the search) and a hit must come from the
question's own document (and cover an evidence page / hold the phrases as `ingest eval` scores
it). Prints one Markdown row per variant and strategy. Figures and the decision:
docs/search.md. Measurement only.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path, PurePath

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.chunker import chunk_document  # noqa: E402
from ingest.contracts.chunks import HEADING_PATH_SEPARATOR  # noqa: E402
from ingest.contracts.evaluation import load_golden  # noqa: E402
from ingest.evaluation.evaluate import _resolve_scopes  # noqa: E402
from ingest.evaluation.scoring import Retrieved, score_ranking  # noqa: E402
from ingest.tokens import tiktoken_counter  # noqa: E402
from storage.evals import load_stored_documents, stored_fts_tokenize  # noqa: E402
from storage.schema import FTS_TOKENIZE  # noqa: E402
from storage.search import ChunkIndex  # noqa: E402

VARIANTS = ("bm25 only", "name in heading column", "name boost")


def document_name(document) -> str:
    """File stem with separators as spaces, then the stored title: what a name column would hold."""
    stem = re.sub(r"[_\-.]+", " ", PurePath(document.source_path).stem)
    return f"{stem} {document.title or ''}".strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("golden", type=Path)
    parser.add_argument("--db", required=True)
    parser.add_argument("--strategies", default="structure,recursive,fixed")
    args = parser.parse_args(argv)
    documents = load_stored_documents(args.db)
    items = load_golden(args.golden)
    scopes, skipped = _resolve_scopes(documents, items)
    items = [item for item in items if item.line not in {s.line for s in skipped}]
    tokenize = stored_fts_tokenize(args.db, default=FTS_TOKENIZE)
    counter = tiktoken_counter("cl100k_base")
    print("| variant | strategy | hit@1 | hit@4 | hit@10 | budget |")
    print("|---|---|---:|---:|---:|---:|")
    for strategy in args.strategies.split(","):
        chunked = {doc_id: chunk_document(doc, {"strategy": strategy}, counter) for doc_id, doc in documents.items()}
        for variant in VARIANTS:
            with_name = variant == "name in heading column"
            found: dict[str, tuple[str, object]] = {}
            with ChunkIndex(tokenize) as index:
                for doc_id, chunks in chunked.items():
                    name = document_name(documents[doc_id])
                    if variant == "name boost":
                        index.name_scope(doc_id, documents[doc_id].title, documents[doc_id].source_path)
                    rows = []
                    for chunk in chunks:
                        if chunk.kind != "child":
                            continue
                        key = f"{doc_id}#{chunk.index}"
                        found[key] = (doc_id, chunk)
                        path = HEADING_PATH_SEPARATOR.join(chunk.heading_path)
                        rows.append((key, doc_id, f"{name} {path}" if with_name else path, chunk.body))
                    index.add(rows)
                ranks = {1: 0, 4: 0, 10: 0}
                budget = 0
                for item in items:
                    ranked = []
                    for key, _ in index.search(item.question, 50):
                        doc_id, chunk = found[key]
                        own = scopes[item.line] in (None, doc_id)
                        pages = (chunk.page_start, chunk.page_end) if own else (0, 0)
                        text = chunk.text if own else ""
                        ranked.append(Retrieved(key=key, text=text, tokens=chunk.token_count, pages=pages))
                    score = score_ranking(ranked, item.must_contain, 1200, item.pages)
                    for k in ranks:
                        ranks[k] += score.child_rank is not None and score.child_rank <= k
                    budget += score.budget_hit
            n = len(items)
            print(
                f"| {variant} | {strategy} | {ranks[1] / n:.2f} | {ranks[4] / n:.2f} | "
                f"{ranks[10] / n:.2f} | {budget / n:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
